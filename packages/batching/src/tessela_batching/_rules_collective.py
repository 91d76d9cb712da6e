"""Batching rules of the collective family: ``psum``, ``pmax``, ``pmin``, ``all_gather``,
``axis_index``.

The primitives and their wrappers live in the tracer
(``tessela_tracer.lax.psum``, ...); their ``axis_name`` parameter is a tuple
of names bound by enclosing ``vmap``\\ s. Each rule is registered with
:func:`register_collective_batching`, so it receives the running batching
trace's :class:`BatchAxis` and also runs on unbatched operands when that
trace owns one of the names:

- the ``vmap`` whose ``axis_name`` is among the names computes the collective
  over its batch dimension (a reduction over it; the values stacked along a
  new axis; the member's position, an ``iota``), whose result is the same for
  every member (unbatched), and binds the primitive again for the remaining
  names, which enclosing ``vmap``\\ s then compute in turn;
- any other ``vmap`` batches it like an ordinary primitive: the reductions
  elementwise, ``all_gather`` with its batch moved to the front.

An unbatched operand of the owning ``vmap`` is the same for every member:
``psum`` multiplies it by the axis size, ``pmax``/``pmin`` return it, and
``all_gather`` repeats it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of

from tessela_batching._core import (
    BatchAxis,
    NotMapped,
    broadcast,
    moveaxis,
    not_mapped,
    register_collective_batching,
)

__all__: list[str] = []

Names = tuple[Hashable, ...]


def _rest(axis_name: Names, done: Hashable) -> Names:
    return tuple(n for n in axis_name if n != done)


# ----------------------------------------------------------------- psum / pmax / pmin


def _reduction_rule(
    prim: Primitive,
    reduce: Callable[[Any, Sequence[int]], Any],
    if_unmapped: Callable[[Any, int], Any],
) -> Callable[..., tuple[Any, Any]]:
    """The rule of a reducing collective: ``reduce`` over the owned batch axis."""

    def rule(
        batch_axis: BatchAxis, args: Sequence[Any], dims: Sequence[Any], /, *, axis_name: Names
    ) -> tuple[Any, Any]:
        (x,), (d,) = args, dims
        if batch_axis.name not in axis_name:
            return prim.bind(x, axis_name=axis_name), d
        out = if_unmapped(x, batch_axis.size) if isinstance(d, NotMapped) else reduce(x, (d,))
        rest = _rest(axis_name, batch_axis.name)
        return (prim.bind(out, axis_name=rest) if rest else out), not_mapped

    return rule


def _times_size(x: Any, size: int) -> Any:
    return lax.mul(x, lax.convert_element_type(size, get_aval_of(x).dtype))


def _same(x: Any, size: int) -> Any:
    return x


register_collective_batching(P.psum_p, _reduction_rule(P.psum_p, lax.reduce_sum, _times_size))
register_collective_batching(P.pmax_p, _reduction_rule(P.pmax_p, lax.reduce_max, _same))
register_collective_batching(P.pmin_p, _reduction_rule(P.pmin_p, lax.reduce_min, _same))


# ----------------------------------------------------------------- all_gather


def _all_gather_rule(
    batch_axis: BatchAxis, args: Sequence[Any], dims: Sequence[Any], /, *, axis_name: Names,
    axis_size: int, axis: int, tiled: bool,
) -> tuple[Any, Any]:  # fmt: skip
    (x,), (d,) = args, dims
    if batch_axis.name not in axis_name:
        out = P.all_gather_p.bind(
            moveaxis(x, d, 0), axis_name=axis_name, axis_size=axis_size, axis=axis + 1,
            tiled=tiled,
        )  # fmt: skip
        return out, 0
    size = batch_axis.size
    out = broadcast(x, size, axis) if isinstance(d, NotMapped) else moveaxis(x, d, axis)
    if tiled:
        shape = list(get_aval_of(out).shape)
        shape[axis : axis + 2] = [shape[axis] * shape[axis + 1]]
        out = lax.reshape(out, shape)
    return out, not_mapped


register_collective_batching(P.all_gather_p, _all_gather_rule)


# ----------------------------------------------------------------- axis_index


def _axis_index_rule(
    batch_axis: BatchAxis, args: Sequence[Any], dims: Sequence[Any], /, *, axis_name: Names
) -> tuple[Any, Any]:
    # No operands: the rule runs only for the vmap that owns the (one) name.
    return lax.iota(np.int32, batch_axis.size), 0


register_collective_batching(P.axis_index_p, _axis_index_rule)
