"""Batching rules of the collective family: ``psum``, ``pmax``, ``pmin``, ``all_gather``,
``axis_index``, ``ppermute``, ``reduce_scatter`` (``psum_scatter``), ``all_to_all``.

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

``ppermute``, ``reduce_scatter`` and ``all_to_all`` move data between members:
the owning ``vmap`` computes them over its batch dimension (members' values
taken in the permuted order, zeros for a member that receives none; the sum,
then member ``i``'s block of it; blocks exchanged between members), when the
names are that one axis alone.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import (
    BatchAxis,
    BDim,
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
        batch_axis: BatchAxis,
        args: Sequence[ArrayLike],
        dims: Sequence[BDim],
        /,
        *,
        axis_name: Names,
    ) -> tuple[Array, BDim]:
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
    batch_axis: BatchAxis, args: Sequence[ArrayLike], dims: Sequence[Any], /, *, axis_name: Names,
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
    batch_axis: BatchAxis, args: Sequence[ArrayLike], dims: Sequence[Any], /, *, axis_name: Names
) -> tuple[Any, Any]:
    # No operands: the rule runs only for the vmap that owns the (one) name.
    return lax.iota(np.int32, batch_axis.size), 0


register_collective_batching(P.axis_index_p, _axis_index_rule)


# ----------------------------------------------------------------- ppermute / reduce_scatter / all_to_all


def _only_owned(fn: str, batch_axis: BatchAxis, axis_name: Names) -> None:
    if axis_name != (batch_axis.name,):
        raise NotImplementedError(
            f"{fn} over several named axes {axis_name} under vmap is not supported; apply it "
            "to one axis at a time."
        )


def _members_first(x: Any, d: Any, size: int) -> Any:
    return broadcast(x, size, 0) if isinstance(d, NotMapped) else moveaxis(x, d, 0)


def _other_axis(
    prim: Primitive, x: Any, d: Any, shift: tuple[str, ...], params: dict[str, Any]
) -> tuple[Any, Any]:
    """Batch ``prim`` over another vmap's axis: batch dimension first, axes shifted by one."""
    moved = dict(params)
    for key in shift:
        moved[key] += 1
    return prim.bind(moveaxis(x, d, 0), **moved), 0


def _ppermute_rule(
    batch_axis: BatchAxis, args: Sequence[ArrayLike], dims: Sequence[Any], /, *, axis_name: Names,
    perm: tuple[tuple[int, int], ...],
) -> tuple[Any, Any]:  # fmt: skip
    (x,), (d,) = args, dims
    if batch_axis.name not in axis_name:
        return P.ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    _only_owned("ppermute", batch_axis, axis_name)
    size = batch_axis.size
    xs = _members_first(x, d, size)
    source = {dst: src for src, dst in perm}
    zero = lax.mul(lax.index_in_dim(xs, 0, 0, keepdims=True), np.zeros((), get_aval_of(xs).dtype))
    pieces = [
        lax.index_in_dim(xs, source[j], 0, keepdims=True) if j in source else zero
        for j in range(size)
    ]
    return lax.concatenate(pieces, 0), 0


register_collective_batching(P.ppermute_p, _ppermute_rule)


def _reduce_scatter_rule(
    batch_axis: BatchAxis, args: Sequence[ArrayLike], dims: Sequence[Any], /, *, axis_name: Names,
    axis_size: int, scatter_dimension: int, tiled: bool,
) -> tuple[Any, Any]:  # fmt: skip
    (x,), (d,) = args, dims
    params = {"axis_name": axis_name, "axis_size": axis_size,
              "scatter_dimension": scatter_dimension, "tiled": tiled}  # fmt: skip
    if batch_axis.name not in axis_name:
        return _other_axis(P.reduce_scatter_p, x, d, ("scatter_dimension",), params)
    _only_owned("psum_scatter", batch_axis, axis_name)
    size = batch_axis.size
    total = _times_size(x, size) if isinstance(d, NotMapped) else lax.reduce_sum(x, (d,))
    if tiled:
        shape = list(get_aval_of(total).shape)
        shape[scatter_dimension : scatter_dimension + 1] = [size, shape[scatter_dimension] // size]
        total = lax.reshape(total, tuple(shape))
    return moveaxis(total, scatter_dimension, 0), 0


register_collective_batching(P.reduce_scatter_p, _reduce_scatter_rule)


def _all_to_all_rule(
    batch_axis: BatchAxis, args: Sequence[ArrayLike], dims: Sequence[Any], /, *, axis_name: Names,
    axis_size: int, split_axis: int, concat_axis: int, tiled: bool,
) -> tuple[Any, Any]:  # fmt: skip
    (x,), (d,) = args, dims
    params = {"axis_name": axis_name, "axis_size": axis_size, "split_axis": split_axis,
              "concat_axis": concat_axis, "tiled": tiled}  # fmt: skip
    if batch_axis.name not in axis_name:
        return _other_axis(P.all_to_all_p, x, d, ("split_axis", "concat_axis"), params)
    _only_owned("all_to_all", batch_axis, axis_name)
    size = batch_axis.size
    xs = _members_first(x, d, size)  # [sender, *block]
    shape = list(get_aval_of(xs).shape)
    s = split_axis + 1
    shape[s : s + 1] = [size, shape[s] // size]
    ys = moveaxis(lax.reshape(xs, tuple(shape)), s, 0)  # [receiver, sender, *piece]
    ys = moveaxis(ys, 1, 1 + concat_axis)  # the sender's index just before concat_axis
    out_shape = list(get_aval_of(ys).shape)
    c = 1 + concat_axis
    out_shape[c : c + 2] = [out_shape[c] * out_shape[c + 1]]
    return lax.reshape(ys, tuple(out_shape)), 0


register_collective_batching(P.all_to_all_p, _all_to_all_rule)
