"""Batching rules of the misc family: ``reduce_precision``, ``optimization_barrier``, ``reduce``.

- ``rng_bit_generator`` / ``rng_uniform`` run once per example (``lax.map``).

- ``reduce_precision`` is elementwise (:func:`defvectorized`).
- ``optimization_barrier`` keeps each operand's batch axis.
- ``reduce``: the batch axes of the operands move to the front and the
  reduced dimensions shift by one; batched initial values are not supported
  (as in JAX).
- ``copy`` is elementwise (:func:`defvectorized`).
- ``create_token`` / ``after_all``: a token has no batch axis; a batched
  token is refused (JAX cannot batch tokens either).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import ClosedJaxpr
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import (
    BDim,
    NotMapped,
    batch_size,
    bdim_at_front,
    not_mapped,
    register_batching,
)
from tessela_batching._rule_helpers import all_at_front, defvectorized

__all__: list[str] = []

defvectorized(P.reduce_precision_p)
defvectorized(P.copy_p)


def _barrier_rule(args: Sequence[ArrayLike], dims: Sequence[Any]) -> Any:
    return P.optimization_barrier_p.bind(*args), list(dims)


register_batching(P.optimization_barrier_p, _barrier_rule)


def _reduce_rule(
    args: Sequence[ArrayLike],
    dims: Sequence[Any],
    *,
    computation: Any,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> Any:
    n = len(args) // 2
    if any(not isinstance(d, NotMapped) for d in dims[n:]):
        raise NotImplementedError("vmap of lax.reduce with batched initial values")
    size = batch_size(args, dims)
    ops = [bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n], strict=True)]
    outs = P.reduce_p.bind(
        *ops, *args[n:], computation=computation, jaxpr=jaxpr,
        dimensions=tuple(d + 1 for d in dimensions),
    )  # fmt: skip
    return outs, [0] * n


register_batching(P.reduce_p, _reduce_rule)


def _per_example(prim: Any) -> Any:
    """Apply ``prim`` to each example in turn (a ``lax.map``): its values depend on them all."""

    def rule(
        args: Sequence[ArrayLike], dims: Sequence[BDim], **params: Any
    ) -> tuple[Array | list[Array], int | list[int]]:
        fronts = all_at_front(args, dims)
        outs = lax.map(lambda xs: prim.bind(*xs, **params), fronts)
        return outs, ([0] * len(outs) if prim.multiple_results else 0)

    return rule


register_batching(P.rng_bit_generator_p, _per_example(P.rng_bit_generator_p))
register_batching(P.rng_uniform_p, _per_example(P.rng_uniform_p))


def _token_rule(prim: Any) -> Any:
    def rule(args: Sequence[ArrayLike], dims: Sequence[BDim]) -> tuple[Array, NotMapped]:
        if any(not isinstance(d, NotMapped) for d in dims):
            raise TypeError(f"vmap cannot batch the tokens of {prim.name}: a token has no axes.")
        return prim.bind(*args), not_mapped

    return rule


register_batching(P.create_token_p, _token_rule(P.create_token_p))
register_batching(P.after_all_p, _token_rule(P.after_all_p))
