"""``take`` and ``take_along_axis``: one ``gather`` each, with JAX's out-of-bounds modes.

By default an out-of-bounds index reads a fill value (NaN for inexact
dtypes, the smallest value of signed integers, the largest of unsigned ones,
``True`` for booleans) instead of raising as NumPy does; ``mode="clip"``
clamps indices into bounds instead. Negative indices count from the end.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, shape_of
from ._shapes import broadcast_shapes, canonicalize_axis
from ._ufuncs import mod
from ._where import where

__all__ = ["take", "take_along_axis"]


def take(
    a: ArrayLike,
    indices: ArrayLike,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: ArrayLike | None = None,
) -> Array:
    """Take entries of ``a`` at ``indices`` along an axis.

    Args:
      a: the source array.
      indices: integer indices, any shape.
      axis: the axis to index; ``None`` indexes the flattened array.
      out: not supported.
      mode: ``None``/``"fill"`` (out-of-bounds reads give ``fill_value``),
        ``"clip"`` (indices are clamped) or ``"wrap"`` (indices wrap around).
      unique_indices: promise that the indices are unique.
      indices_are_sorted: promise that the indices are sorted.
      fill_value: the value out-of-bounds reads give under ``"fill"``; by
        default NaN, or the dtype's extreme for integers.

    Returns:
      ``a``'s shape with ``axis`` replaced by ``indices``' shape.

    Raises:
      NotImplementedError: ``out`` is given, or ``mode="raise"``.
      ValueError: ``mode`` is unknown.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, i: take(x, i, axis=1), s((3, 4), "float32"), s((2,), "int32")).shape
    (3, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    check_arraylike("take", a, indices)
    idx_dt = aval_of(indices).dtype
    if idx_dt.kind not in "biu":  # JAX's class and test (booleans count as 0 and 1)
        raise ValueError(f"take: indices must have an integer type, got {idx_dt}")
    if mode == "raise":
        raise NotImplementedError(
            "The 'raise' mode to jnp.take is not supported; use mode='fill' or mode='clip'."
        )
    if mode not in (None, "fill", "clip", "wrap"):
        raise ValueError(f"Invalid mode '{mode}' for np.take; use 'fill', 'clip' or 'wrap'.")
    ax = None if axis is None else operator.index(axis)
    return unchanged(
        _take_jit(a, indices, ax, mode, bool(unique_indices), bool(indices_are_sorted), fill_value)
    )


def _take(
    a: Any,
    indices: Any,
    axis: int | None,
    mode: str | None,
    unique_indices: bool,
    indices_are_sorted: bool,
    fill_value: Any,
) -> Any:
    if axis is None:
        shape = shape_of(a)
        if len(shape) != 1:
            a = lax.reshape(a, (int(np.prod(shape)),))
        axis_idx = 0
    else:
        axis_idx = canonicalize_axis(axis, len(shape_of(a)))
    a_shape = shape_of(a)
    size = a_shape[axis_idx]
    if mode is None or mode == "fill":
        gather_mode = lax.GatherScatterMode.FILL_OR_DROP
        indices = where(indices < 0, indices + size, indices)
    elif mode == "wrap":
        indices = mod(indices, convert(size, aval_of(indices).dtype))
        gather_mode = lax.GatherScatterMode.PROMISE_IN_BOUNDS
    else:
        gather_mode = lax.GatherScatterMode.CLIP
    idx_shape = shape_of(indices)
    index_dims = len(idx_shape)
    if size == 0:
        if int(np.prod(idx_shape)) != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if int(np.prod(idx_shape)) == 0:
        out_shape = (*a_shape[:axis_idx], *idx_shape, *a_shape[axis_idx + 1 :])
        return lax.broadcast_in_dim(np.zeros((), aval_of(a).dtype), out_shape, ())
    slice_sizes = list(a_shape)
    slice_sizes[axis_idx] = 1
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(
            *range(axis_idx),
            *range(axis_idx + index_dims, len(a_shape) + index_dims - 1),
        ),
        collapsed_slice_dims=(axis_idx,),
        start_index_map=(axis_idx,),
    )
    start = lax.broadcast_in_dim(indices, (*idx_shape, 1), tuple(range(index_dims)))
    return lax.gather(
        a,
        start,
        dnums,
        tuple(slice_sizes),
        mode=gather_mode,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        fill_value=fill_value,
    )


_take_jit = jit(_take, static_argnums=(2, 3, 4, 5, 6))


def take_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    axis: int | None = -1,
    mode: str | None = None,
    fill_value: ArrayLike | None = None,
) -> Array:
    """Take entries of ``arr`` at ``indices`` matched slice by slice along an axis.

    Args:
      arr: the source array.
      indices: integer indices with ``arr``'s rank (1-D when ``axis`` is
        ``None``); other axes broadcast against ``arr``'s.
      axis: the axis to index; ``None`` indexes the flattened array.
      mode: ``None``/``"fill"`` (out-of-bounds reads give ``fill_value``) or
        ``"clip"`` (indices are clamped).
      fill_value: the value out-of-bounds reads give under ``"fill"``.

    Returns:
      The gathered array, of the broadcast shape of ``indices`` and ``arr``
      (with ``arr``'s ``axis`` taken from ``indices``).

    Raises:
      TypeError: ``indices`` are not integers.
      ValueError: the ranks differ, or ``axis=None`` with indices that are not 1-D.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> f = lambda x, i: take_along_axis(x, i, axis=1)
    >>> eval_shape(f, s((3, 4), "float32"), s((3, 2), "int32")).shape
    (3, 2)
    """
    check_arraylike("take_along_axis", arr, indices)
    index_dtype = aval_of(indices).dtype
    if not _dt.issubdtype(index_dtype, np.integer):
        raise TypeError(f"take_along_axis indices must be of integer type, got {index_dtype}")
    if axis is None:
        if len(shape_of(indices)) != 1:
            raise ValueError(
                f"take_along_axis indices must be 1D if axis=None, got shape {shape_of(indices)}"
            )
    elif len(shape_of(arr)) != len(shape_of(indices)):
        raise ValueError(
            "indices and arr must have the same number of dimensions; "
            f"{len(shape_of(indices))} vs. {len(shape_of(arr))}"
        )
    if mode not in (None, "fill", "clip", "promise_in_bounds"):
        raise ValueError(f"Invalid mode {mode!r} for take_along_axis; use 'fill' or 'clip'.")
    ax = None if axis is None else operator.index(axis)
    return unchanged(_take_along_axis_jit(arr, indices, ax, mode, fill_value))


def _take_along_axis(
    a: Any, indices: Any, axis: int | None, mode: str | None, fill_value: Any
) -> Any:
    if axis is None:
        shape = shape_of(a)
        if len(shape) != 1:
            a = lax.reshape(a, (int(np.prod(shape)),))
        axis = 0
    rank = len(shape_of(a))
    axis_int = canonicalize_axis(axis, rank)
    a_shape = shape_of(a)
    idx_shape = shape_of(indices)
    axis_size = a_shape[axis_int]
    arr_shape = tuple(1 if i == axis_int else d for i, d in enumerate(a_shape))
    out_shape = broadcast_shapes(idx_shape, arr_shape)
    if axis_size == 0:
        return lax.broadcast_in_dim(np.zeros((), aval_of(a).dtype), out_shape, ())
    wrap = mode != "promise_in_bounds"
    if wrap:
        big = axis_size > np.iinfo(np.int32).max
        indices = convert(indices, np.dtype(np.int64 if big else np.int32))
        if not _dt.issubdtype(aval_of(indices).dtype, np.unsignedinteger):
            size = convert(axis_size, aval_of(indices).dtype)
            indices = lax.select(indices < 0, lax.add(indices, size), indices)
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis_int or d != 1]
    gather_index_shape = (*(out_shape[i] for i in index_dims), 1)
    gather_indices = lax.reshape(indices, gather_index_shape)
    slice_sizes: list[int] = []
    offset_dims: list[int] = []
    start_index_map: list[int] = []
    collapsed: list[int] = []
    operand_batching: list[int] = []
    indices_batching: list[int] = []
    squeeze: list[int] = []
    new_i = j = 0
    for i in range(rank):
        if i == axis_int:
            slice_sizes.append(1)
            start_index_map.append(new_i)
            collapsed.append(new_i)
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            operand_batching.append(new_i)
            indices_batching.append(j)
            new_i += 1
            j += 1
    if squeeze:
        a = lax.squeeze(a, squeeze)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_index_map),
        operand_batching_dims=tuple(operand_batching),
        start_indices_batching_dims=tuple(indices_batching),
    )
    return lax.gather(
        a,
        gather_indices,
        dnums,
        tuple(slice_sizes),
        mode="fill" if mode is None else mode,
        fill_value=fill_value,
    )


_take_along_axis.__name__ = _take_along_axis.__qualname__ = "take_along_axis"
_take_along_axis_jit = jit(_take_along_axis, static_argnums=(2, 3, 4))
