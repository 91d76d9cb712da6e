"""Batching rules of indexing: dynamic slices, gather and the scatter family.

Batched indices turn ``dynamic_slice``/``dynamic_update_slice`` into a
``gather``/``scatter`` in clip mode. ``gather`` and ``scatter`` map a batch
present on both operand and indices to their batching dimensions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of
from tessela_tracer.lax import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
)
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import (
    BDim,
    NotMapped,
    batch_size,
    bdim_at_front,
    moveaxis,
    register_batching,
)

__all__: list[str] = []


def _plus1(dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(d + 1 for d in dims)


# ----------------------------------------------------------------- gather


def _gather_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...], **params: Any,
) -> Any:  # fmt: skip
    (x, idx), (dx, di) = args, dims
    dn = dimension_numbers
    if isinstance(di, NotMapped):
        x = moveaxis(x, dx, 0)
        new = GatherDimensionNumbers(
            offset_dims=(0, *_plus1(dn.offset_dims)),
            collapsed_slice_dims=_plus1(dn.collapsed_slice_dims),
            start_index_map=_plus1(dn.start_index_map),
            operand_batching_dims=_plus1(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims,
        )
        size = get_aval_of(x).shape[0]
        return P.gather_p.bind(
            x, idx, dimension_numbers=new, slice_sizes=(size, *slice_sizes), **params
        ), 0
    idx = moveaxis(idx, di, 0)
    if isinstance(dx, NotMapped):
        new = GatherDimensionNumbers(
            offset_dims=_plus1(dn.offset_dims),
            collapsed_slice_dims=dn.collapsed_slice_dims,
            start_index_map=dn.start_index_map,
            operand_batching_dims=dn.operand_batching_dims,
            start_indices_batching_dims=_plus1(dn.start_indices_batching_dims),
        )
        return P.gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=slice_sizes, **params), 0
    x = moveaxis(x, dx, 0)
    new = GatherDimensionNumbers(
        offset_dims=_plus1(dn.offset_dims),
        collapsed_slice_dims=_plus1(dn.collapsed_slice_dims),
        start_index_map=_plus1(dn.start_index_map),
        operand_batching_dims=(0, *_plus1(dn.operand_batching_dims)),
        start_indices_batching_dims=(0, *_plus1(dn.start_indices_batching_dims)),
    )
    return P.gather_p.bind(
        x, idx, dimension_numbers=new, slice_sizes=(1, *slice_sizes), **params
    ), 0


register_batching(P.gather_p, _gather_rule)


# ----------------------------------------------------------------- scatter


def _scatter_rule(prim: Primitive) -> Any:
    def rule(
        args: Sequence[ArrayLike], dims: Sequence[BDim], *,
        dimension_numbers: ScatterDimensionNumbers, **params: Any,
    ) -> tuple[Array, int]:  # fmt: skip
        (x, idx, upd), (dx, di, du) = args, dims
        size = batch_size(args, dims)
        dn = dimension_numbers
        x = bdim_at_front(x, dx, size)
        upd = bdim_at_front(upd, du, size)
        if isinstance(di, NotMapped):
            new = ScatterDimensionNumbers(
                update_window_dims=(0, *_plus1(dn.update_window_dims)),
                inserted_window_dims=_plus1(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_plus1(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=_plus1(dn.operand_batching_dims),
                scatter_indices_batching_dims=dn.scatter_indices_batching_dims,
            )
        else:
            idx = moveaxis(idx, di, 0)
            new = ScatterDimensionNumbers(
                update_window_dims=_plus1(dn.update_window_dims),
                inserted_window_dims=_plus1(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_plus1(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=(0, *_plus1(dn.operand_batching_dims)),
                scatter_indices_batching_dims=(0, *_plus1(dn.scatter_indices_batching_dims)),
            )
        return prim.bind(x, idx, upd, dimension_numbers=new, **params), 0

    return rule


for _p in (
    P.scatter_p, P.scatter_add_p, P.scatter_sub_p, P.scatter_mul_p, P.scatter_min_p,
    P.scatter_max_p,
):  # fmt: skip
    register_batching(_p, _scatter_rule(_p))


# ----------------------------------------------------------------- dynamic slicing


def _index_vector(idx: Sequence[Any], dims: Sequence[Any], size: int) -> Any:
    """Stack scalar start indices (some batched) into a ``(size, len(idx))`` int32 array."""
    cols = []
    for i, d in zip(idx, dims, strict=True):
        i = lax.convert_element_type(i, np.int32)
        dims_ = () if isinstance(d, NotMapped) else (0,)
        cols.append(lax.broadcast_in_dim(i, (size, 1), dims_))
    return lax.concatenate(cols, 1)


def _dynamic_slice_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, slice_sizes: tuple[int, ...]
) -> Any:
    (x, *idx), (dx, *di) = args, dims
    if all(isinstance(d, NotMapped) for d in di):
        zero = np.zeros((), get_aval_of(idx[0]).dtype) if idx else np.int32(0)
        size = get_aval_of(x).shape[dx]
        starts = [*idx[:dx], zero, *idx[dx:]]
        sizes = (*slice_sizes[:dx], size, *slice_sizes[dx:])
        return P.dynamic_slice_p.bind(x, *starts, slice_sizes=sizes), dx
    size = batch_size(args, dims)
    nd = len(idx)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(nd)), collapsed_slice_dims=(), start_index_map=tuple(range(nd))
    )
    return _gather_rule(
        [x, _index_vector(idx, di, size)], [dx, 0], dimension_numbers=dn,
        slice_sizes=slice_sizes, indices_are_sorted=True, unique_indices=True,
        mode=GatherScatterMode.CLIP, fill_value=None,
    )  # fmt: skip


register_batching(P.dynamic_slice_p, _dynamic_slice_rule)


def _dynamic_update_slice_rule(args: Sequence[ArrayLike], dims: Sequence[Any]) -> Any:
    (x, upd, *idx), (dx, du, *di) = args, dims
    size = batch_size(args, dims)
    if all(isinstance(d, NotMapped) for d in di):
        x = bdim_at_front(x, dx, size)
        upd = bdim_at_front(upd, du, size)
        zero = np.zeros((), get_aval_of(idx[0]).dtype) if idx else np.int32(0)
        return P.dynamic_update_slice_p.bind(x, upd, zero, *idx), 0
    nd = len(idx)
    dn = ScatterDimensionNumbers(
        update_window_dims=tuple(range(nd)),
        inserted_window_dims=(),
        scatter_dims_to_operand_dims=tuple(range(nd)),
    )
    rule = _scatter_rule(P.scatter_p)
    return rule(
        [x, _index_vector(idx, di, size), upd], [dx, 0, du], dimension_numbers=dn,
        indices_are_sorted=True, unique_indices=True, mode=GatherScatterMode.CLIP,
        update_consts=(), update_jaxpr=None,
    )  # fmt: skip


register_batching(P.dynamic_update_slice_p, _dynamic_update_slice_rule)
