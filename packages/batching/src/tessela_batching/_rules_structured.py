"""Batching rules of the structured-matrix primitives.

Every primitive of the family but ``cholesky_update`` maps over leading batch
axes natively: its rule moves the batch axis of each operand to the front
(broadcasting the unbatched ones) and binds the primitive once. When only the
right-hand side of ``tridiagonal_solve`` is batched, the members are stacked
side by side as extra columns of one right-hand side instead, as JAX does.
``cholesky_update`` takes exactly one matrix (JAX has no batching rule for
it); here each member is updated on its own and the results are stacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import NotMapped, batch_size, bdim_at_front, moveaxis, register_batching
from tessela_batching._rule_helpers import all_at_front
from tessela_batching._rules_linalg import _front_batcher

__all__: list[str] = []


for _prim in (
    P.hessenberg_p,
    P.tridiagonal_p,
    P.householder_product_p,
    P.ormqr_p,
    P.lu_pivots_to_permutation_p,
    P.symmetric_product_p,
):
    register_batching(_prim, _front_batcher(_prim))


def _tridiagonal_solve(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    *diags, b = args
    *diag_dims, db = dims
    if all(isinstance(d, NotMapped) for d in diag_dims):
        # One system for every member: the members' right-hand sides become extra columns.
        nd = get_aval_of(b).ndim
        b = moveaxis(b, db, nd - 2)
        shape = get_aval_of(b).shape
        flat = lax.reshape(b, (*shape[:-3], shape[-3], shape[-2] * shape[-1]))
        out = P.tridiagonal_solve_p.bind(*diags, flat, **params)
        return lax.reshape(out, shape), nd - 2
    xs = all_at_front(args, dims)
    return P.tridiagonal_solve_p.bind(*xs, **params), 0


register_batching(P.tridiagonal_solve_p, _tridiagonal_solve)


def _cholesky_update(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    size = batch_size(args, dims)
    r, w = (bdim_at_front(x, d, size) for x, d in zip(args, dims, strict=True))
    outs = [
        P.cholesky_update_p.bind(
            lax.index_in_dim(r, i, 0, keepdims=False), lax.index_in_dim(w, i, 0, keepdims=False)
        )
        for i in range(size)
    ]
    return lax.stack(outs, 0) if outs else r, 0


register_batching(P.cholesky_update_p, _cholesky_update)
