"""The indexing family: dynamic slicing, gather and scatter (JAX's dimension numbers)."""

from __future__ import annotations

import enum
import math
from typing import Any, NamedTuple

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval

__all__ = ["GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers"]


def _prim(name: str, rule: Any) -> Primitive:
    p = Primitive(name)
    register_abstract_eval(p, rule)
    return p


def _check_indices(name: str, x: ShapedArray, idx: tuple[ShapedArray, ...]) -> None:
    if len(idx) != x.ndim:
        raise TypeError(
            f"{name} start_indices must have length equal to the number of dimensions of the "
            f"operand, got {len(idx)} indices for operand shape {x.shape}."
        )
    for i in idx:
        if i.shape or not _dtypes.issubdtype(i.dtype, np.integer):
            raise TypeError(f"{name} start indices must be integer scalars, got {i.str_short()}")
    if any(i.dtype != idx[0].dtype for i in idx):
        got = ", ".join(i.dtype.name for i in idx)
        sep = ": " if name == "dynamic_slice" else " "  # JAX's two texts
        raise TypeError(
            f"index arguments to {name} must be integers of the same type, got{sep}{got}"
        )


def _dynamic_slice_rule(
    x: ShapedArray, *idx: ShapedArray, slice_sizes: tuple[int, ...]
) -> ShapedArray:
    _check_indices("dynamic_slice", x, idx)
    if len(slice_sizes) != x.ndim:
        # JAX's class for this mistake.
        raise ValueError(
            f"dynamic_slice slice_sizes must have one size per dimension of the operand, got "
            f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}; pass "
            f"{x.ndim} sizes"
        )
    if any(s > d or s < 0 for s, d in zip(slice_sizes, x.shape, strict=True)):
        raise TypeError(
            f"slice slice_sizes must be less than or equal to operand shape, got slice_sizes "
            f"{slice_sizes} for operand shape {x.shape}."
        )
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


dynamic_slice_p = _prim("dynamic_slice", _dynamic_slice_rule)


def _dynamic_update_slice_rule(
    x: ShapedArray, update: ShapedArray, *idx: ShapedArray
) -> ShapedArray:
    _check_indices("dynamic_update_slice", x, idx)
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape, strict=True)):
        raise TypeError(
            "dynamic_update_slice update shape must be smaller than operand shape, got update "
            f"shape {update.shape} for operand shape {x.shape}."
        )
    if update.dtype != x.dtype:
        raise TypeError(
            "lax.dynamic_update_slice requires arguments to have the same dtypes, got "
            f"{x.dtype.name}, {update.dtype.name}."
        )
    return x


dynamic_update_slice_p = _prim("dynamic_update_slice", _dynamic_update_slice_rule)


class GatherScatterMode(enum.Enum):
    """Out-of-bounds index handling of gather and scatter."""

    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2
    ONE_HOT = 3

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """Parse ``"clip"``, ``"fill"``/``"drop"``/None or ``"promise_in_bounds"``."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"; use "clip", "fill" or "promise_in_bounds"')


class GatherDimensionNumbers(NamedTuple):
    """Describes which operand dimensions a gather indexes and keeps."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """Describes which operand dimensions a scatter updates."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def _gather_rule(
    x: ShapedArray,
    idx: ShapedArray,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: GatherScatterMode,
    fill_value: Any,
) -> ShapedArray:
    dn = dimension_numbers
    if not _dtypes.issubdtype(idx.dtype, np.integer):
        # JAX's class and text (its dtype rule).
        raise ValueError(f"indices must have an integer type, got gather indices {idx.dtype.name}")
    if len(slice_sizes) != x.ndim:
        raise TypeError(
            f"gather slice_sizes must have the same length as the operand rank, got slice_sizes "
            f"{slice_sizes} for operand shape {x.shape}"
        )
    for i, (size, bound) in enumerate(zip(slice_sizes, x.shape, strict=True)):
        if math.prod(idx.shape) and not 0 <= size <= bound:
            raise TypeError(
                f"Slice size at index {i} in gather op is out of range, must be within "
                f"[0, {bound} + 1), got {size}."
            )
    for pos, d in enumerate(dn.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError(
                "Gather op can only collapse slice dims with bound 1, but bound is "
                f"{slice_sizes[d]} for index {d} at position {pos}."
            )
    for pos, d in enumerate(dn.operand_batching_dims):
        if slice_sizes[d] > 1:
            raise TypeError(
                "Gather op can only have operand batching dims with bound 0/1, but bound is "
                f"{slice_sizes[d]} for index {d} at position {pos}."
            )
    batch_shape = idx.shape[:-1]
    if idx.shape[-1:] and idx.shape[-1] != len(dn.start_index_map):
        raise TypeError(
            "gather start_index_map must have one entry per index vector element; got "
            f"start_index_map {dn.start_index_map} for indices shape {idx.shape}"
        )
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_sizes = [s for i, s in enumerate(slice_sizes) if i not in dropped]
    out_rank = len(batch_shape) + len(offset_sizes)
    shape = []
    it_b = iter(batch_shape)
    it_o = iter(offset_sizes)
    for i in range(out_rank):
        shape.append(next(it_o) if i in dn.offset_dims else next(it_b))
    return ShapedArray(shape, x.dtype, x.weak_type)


gather_p = _prim("gather", _gather_rule)


def _scatter_rule(
    x: ShapedArray, idx: ShapedArray, updates: ShapedArray, **params: Any
) -> ShapedArray:
    if not _dtypes.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"scatter indices must be of integer type, got {idx.dtype.name}")
    if updates.dtype != x.dtype:
        raise TypeError(
            "lax.scatter requires arguments to have the same dtypes, got "
            f"{x.dtype.name}, {updates.dtype.name}."
        )
    return x


scatter_p = _prim("scatter", _scatter_rule)
scatter_add_p = _prim("scatter-add", _scatter_rule)
scatter_sub_p = _prim("scatter-sub", _scatter_rule)
scatter_mul_p = _prim("scatter-mul", _scatter_rule)
scatter_min_p = _prim("scatter-min", _scatter_rule)
scatter_max_p = _prim("scatter-max", _scatter_rule)
