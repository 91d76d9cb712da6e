"""Batching rules of the linalg family.

``cholesky``, ``lu``, ``qr``, ``eigh``, ``svd``, ``eig``, ``schur`` and
``triangular_solve`` map over leading batch axes natively, so their rules move the batch axis to the front (broadcasting
an unbatched operand of ``triangular_solve``) and bind the primitive once.
When only the right-hand side of ``triangular_solve`` is batched, the batch
is folded into its free axis instead, so one solve with a wider right-hand
side serves every member.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import (
    BDim,
    NotMapped,
    batch_size,
    bdim_at_front,
    moveaxis,
    register_batching,
)
from tessela_batching._rule_helpers import all_at_front

__all__: list[str] = []


def _front_batcher(prim: Primitive) -> Any:
    def rule(
        args: Sequence[ArrayLike], dims: Sequence[BDim], **params: Any
    ) -> tuple[Array | list[Array], int | list[int]]:
        xs = all_at_front(args, dims)
        out = prim.bind(*xs, **params)
        return (out, [0] * len(out)) if prim.multiple_results else (out, 0)

    return rule


for _prim in (P.cholesky_p, P.lu_p, P.qr_p, P.eigh_p, P.svd_p, P.eig_p, P.schur_p):
    register_batching(_prim, _front_batcher(_prim))


def _triangular_solve(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    a, b = args
    da, db = dims
    if isinstance(da, NotMapped) and get_aval_of(a).ndim == 2:
        # One matrix for every member: stack the members' right-hand sides side by side.
        left_side = params["left_side"]
        nd = get_aval_of(b).ndim
        b = moveaxis(b, db, nd - 1 if left_side else nd - 2)
        shape = get_aval_of(b).shape
        if left_side:
            flat = lax.reshape(b, (*shape[:-2], shape[-2] * shape[-1]))
        else:
            flat = lax.reshape(b, (*shape[:-3], shape[-3] * shape[-2], shape[-1]))
        out = P.triangular_solve_p.bind(a, flat, **params)
        return lax.reshape(out, shape), (nd - 1 if left_side else nd - 2)
    size = batch_size(args, dims)
    a, b = bdim_at_front(a, da, size), bdim_at_front(b, db, size)
    return P.triangular_solve_p.bind(a, b, **params), 0


register_batching(P.triangular_solve_p, _triangular_solve)
