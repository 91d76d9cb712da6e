"""The gather (and scatter) plan of an index: dimension numbers and index columns.

:func:`gather_plan` mirrors XLA's gather: each index entry either selects
(integers, integer arrays, strided slices: one column of the index array
each) or keeps a window (unit-stride slices). Array index values are
referenced, never inspected beyond their shapes.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._index_plan import (
    IndexKind,
    ParsedIndex,
    _check_static_slices,
    _expand_ellipses,
)
from ._shapes import broadcast_shapes

__all__ = ["GatherPlan", "IndexPart", "gather_plan"]


@dataclasses.dataclass(frozen=True, slots=True)
class IndexPart:
    """One block of columns of the gather indices.

    ``kind`` is ``"advanced"`` (``values`` broadcast together, one column
    each), ``"scalar"`` (one scalar ``values[0]``), ``"start"`` (a static start
    ``start``) or ``"iota"`` (``start + step * iota(size)``, reversed when
    ``step < 0``). ``start_dim`` is where its dimensions sit in the batch shape.
    """

    kind: str
    values: tuple[Any, ...]
    start_dim: int
    start: int = 0
    step: int = 1
    size: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class GatherPlan:
    """``x[idx]`` as a ``gather`` (or ``x.at[idx]`` as a ``scatter``)."""

    slice_shape: tuple[int, ...]
    gather_slice_shape: tuple[int, ...]
    parts: tuple[IndexPart, ...]
    batch_shape: tuple[int, ...]
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple[int, ...]
    newaxis_dims: tuple[int, ...]
    scalar_bool_dims: tuple[int, ...]
    normalize: tuple[tuple[Any, int], ...]  # (array index value, axis size)
    operand_shape: tuple[int, ...]


def gather_plan(parsed: Sequence[ParsedIndex], shape: Sequence[int], /) -> GatherPlan:
    """Plan ``x[idx]`` as a gather, after :func:`expand_bool_indices`.

    Args:
      parsed: the parsed index, booleans already expanded.
      shape: the operand shape.

    Returns:
      The gather plan; array values are referenced, never inspected beyond
      their shapes.

    Raises:
      IndexError: a slice entry is not static, or an integer indexes an empty axis.

    >>> from tessela_numpy._index_plan import parse_indices
    >>> plan = gather_plan(parse_indices((np.array([0, 1]), slice(1, None)), (3, 4)), (3, 4))
    >>> plan.slice_shape, plan.offset_dims, plan.start_index_map
    ((2, 3), (1,), (0, 1))
    """
    _check_static_slices(parsed)
    is_adv = [p.kind in (IndexKind.ARRAY, IndexKind.INTEGER) for p in parsed]
    adv_positions = [i for i, a in enumerate(is_adv) if a]
    contiguous = all(b - a == 1 for a, b in itertools.pairwise(adv_positions))
    expanded = _expand_ellipses(parsed, len(shape))
    # Scalar booleans become a new size-1 axis indexed by arange(int(b)).
    scalar_bool_dims = tuple(n for n, p in enumerate(expanded) if p.kind is IndexKind.BOOLEAN)
    new_shape = list(shape)
    indices: list[ParsedIndex] = []
    dim = 0
    for n, p in enumerate(expanded):
        if p.kind is IndexKind.BOOLEAN:
            new_shape.insert(n, 1)
            indices.append(
                ParsedIndex(np.arange(int(p.value), dtype=np.int32), IndexKind.ARRAY, (dim,))
            )
            dim += 1
        else:
            indices.append(ParsedIndex(p.value, p.kind, tuple(range(dim, dim + len(p.axes)))))
            dim += len(p.axes)
    shape = tuple(new_shape)
    normalize: list[tuple[Any, int]] = []
    for n, p in enumerate(indices):
        if p.kind is IndexKind.INTEGER:
            (axis,) = p.axes
            i = operator.index(p.value)
            if not isinstance(p.value, np.unsignedinteger) and i < 0:
                indices[n] = ParsedIndex(i + shape[axis], p.kind, p.axes)
        elif p.kind is IndexKind.ARRAY and not np.issubdtype(p.value.dtype, np.unsignedinteger):
            normalize.append((p.value, shape[p.axes[0]]))

    advanced = any(p.kind is IndexKind.ARRAY and len(p.value.shape) > 0 for p in indices)
    adv_values: list[Any] = []
    adv_idx_pos: list[int] = []
    adv_x_axes: list[int] = []
    if advanced:
        non_none = [(i, p) for i, p in enumerate(indices) if p.kind is not IndexKind.NONE]
        for j, (i, p) in enumerate(non_none):
            if p.kind in (IndexKind.ARRAY, IndexKind.INTEGER):
                adv_values.append(p.value)
                adv_idx_pos.append(i)
                adv_x_axes.append(j)
    x_axis = y_axis = collapsed_y = 0
    offset_dims: list[int] = []
    collapsed: list[int] = []
    start_map: list[int] = []
    parts: list[IndexPart] = []
    batch: list[int] = []
    slice_shape: list[int] = []
    newaxis: list[int] = []
    reversed_y: list[int] = []
    gslice: list[int] = []
    for pos, p in enumerate(indices):
        if adv_values and ((contiguous and pos == adv_idx_pos[0]) or (not contiguous and pos == 0)):
            bshape = broadcast_shapes(*(np.shape(v) for v in adv_values))
            parts.append(IndexPart("advanced", tuple(adv_values), len(batch)))
            batch.extend(bshape)
            start_map.extend(adv_x_axes)
            collapsed.extend(adv_x_axes)
            slice_shape.extend(bshape)
            y_axis += len(bshape)
            collapsed_y += len(bshape)
        if pos in adv_idx_pos:
            x_axis += 1
            gslice.append(1)
            continue
        if p.kind in (IndexKind.INTEGER, IndexKind.ARRAY):
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            parts.append(IndexPart("scalar", (p.value,), len(batch)))
            collapsed.append(x_axis)
            gslice.append(1)
            start_map.append(x_axis)
            x_axis += 1
        elif p.kind is IndexKind.NONE:
            slice_shape.append(1)
            newaxis.append(y_axis)
            y_axis += 1
        else:
            start, stop, step = p.value.indices(shape[x_axis])
            size = len(range(start, stop, step))
            slice_shape.append(size)
            if step == 1:
                if size != shape[x_axis]:
                    parts.append(IndexPart("start", (), len(batch), start=start))
                    start_map.append(x_axis)
                gslice.append(size)
                offset_dims.append(collapsed_y)
            else:
                if step < 0:
                    reversed_y.append(collapsed_y)
                parts.append(IndexPart("iota", (), len(batch), start=start, step=step, size=size))
                gslice.append(1)
                start_map.append(x_axis)
                batch.append(size)
                collapsed.append(x_axis)
            collapsed_y += 1
            y_axis += 1
            x_axis += 1
    return GatherPlan(
        slice_shape=tuple(slice_shape),
        gather_slice_shape=tuple(gslice),
        parts=tuple(parts),
        batch_shape=tuple(batch),
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(sorted(collapsed)),
        start_index_map=tuple(start_map),
        unique_indices=not adv_values,
        indices_are_sorted=not adv_values,
        reversed_y_dims=tuple(reversed_y),
        newaxis_dims=tuple(newaxis),
        scalar_bool_dims=scalar_bool_dims,
        normalize=tuple(normalize),
        operand_shape=shape,
    )
