"""``x[idx]``: realising the plans of :mod:`._index_plan` with primitives.

Static integers and slices become ``slice``/``squeeze``; traced scalars and
out-of-bounds integers become ``dynamic_slice`` (which clamps); integer
arrays become ``gather`` in ``PROMISE_IN_BOUNDS`` mode after negative indices
are wrapped, so out-of-bounds gathers clamp as JAX's do. Boolean masks must be
concrete; a traced mask raises ``NonConcreteBooleanIndexError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import Tracer, lax
from tessela_tracer.errors import NonConcreteBooleanIndexError
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, convert, full_like, select_n, shape_of
from ._gather_plan import GatherPlan, gather_plan
from ._index_plan import (
    DynamicSlicePlan,
    ParsedIndex,
    StaticSlicePlan,
    dynamic_slice_plan,
    expand_bool_indices,
    parse_indices,
    static_slice_plan,
)
from ._shapes import broadcast_shapes

__all__ = ["build_gather_indices", "getitem", "parse_for_gather"]

_I32 = np.dtype(np.int32)


def _concrete(x: Any) -> np.ndarray[Any, Any] | None:
    if isinstance(x, np.ndarray | np.generic | bool):
        return np.asarray(x)
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else np.asarray(value)
    try:
        return np.asarray(x)
    except TypeError:
        return None


def _reverse_squeeze_expand(out: Any, plan: StaticSlicePlan | DynamicSlicePlan) -> Any:
    # What a slice plan does after slicing: reverse, drop and insert axes.
    if plan.rev_axes:
        out = lax.rev(out, plan.rev_axes)
    if plan.squeeze_axes:
        out = lax.squeeze(out, plan.squeeze_axes)
    if plan.newaxis_dims:
        out = lax.expand_dims(out, plan.newaxis_dims)
    return out


def _apply_static(x: Any, plan: StaticSlicePlan) -> Any:
    shape = shape_of(x)
    out = x
    if not plan.is_trivial(shape):
        out = lax.slice(x, plan.start_indices, plan.limit_indices, plan.strides)
    return _reverse_squeeze_expand(out, plan)


def _apply_dynamic(x: Any, plan: DynamicSlicePlan) -> Any:
    out = x
    if not plan.trivial:
        starts = list(plan.starts)
        if len(starts) > 1:
            starts = [convert(s, _I32) for s in starts]
        else:
            starts = [convert(s, _I32) if isinstance(s, int) else s for s in starts]
        # lax.dynamic_slice counts negative starts from the end and clamps the rest.
        # Converted starts are arrays, so that wrapping is staged as JAX stages it
        # (lax wraps bare integers in Python).
        starts = [np.asarray(s) if isinstance(s, np.integer) else s for s in starts]
        out = lax.dynamic_slice(x, starts, plan.slice_sizes)
    return _reverse_squeeze_expand(out, plan)


def parse_for_gather(idx: Any, shape: tuple[int, ...], /) -> list[ParsedIndex]:
    """Parse ``idx`` and expand concrete boolean masks (traced ones raise)."""
    return expand_bool_indices(
        parse_indices(idx, shape),
        shape,
        concrete=_concrete,
        on_abstract=lambda v: NonConcreteBooleanIndexError(v),
    )


def _normalized(value: Any, size: int) -> Any:
    dt = aval_of(value).dtype
    if isinstance(value, np.ndarray | np.generic):
        return lax.select_n(np.asarray(value) < 0, value, lax.add(value, convert(size, dt)))
    return select_n(lax.lt(value, convert(0, dt)), value, lax.add(value, convert(size, dt)))


def build_gather_indices(plan: GatherPlan, /) -> ArrayLike:
    """The integer index array of a gather/scatter plan, shape ``batch + (n,)``."""
    fixed: dict[int, Any] = {}
    for value, size in plan.normalize:
        fixed[id(value)] = _normalized(value, size)
    columns: list[tuple[Any, int]] = []
    batch = plan.batch_shape
    for part in plan.parts:
        if part.kind == "advanced":
            vals = [fixed.get(id(v), v) for v in part.values]
            vals = [convert(v, _I32) if aval_of(v).dtype != _I32 else v for v in vals]
            bshape = broadcast_shapes(*(shape_of(v) for v in vals))
            for v in vals:
                s = shape_of(v)
                if s != bshape:
                    lead = len(bshape) - len(s)
                    v = lax.broadcast_in_dim(v, bshape, tuple(range(lead, len(bshape))))
                columns.append((v, part.start_dim))
        elif part.kind == "scalar":
            (v,) = part.values
            columns.append((convert(fixed.get(id(v), v), _I32), part.start_dim))
        elif part.kind == "start":
            columns.append((convert(part.start, _I32), part.start_dim))
        else:
            iota = lax.iota(_I32, part.size)
            steps = lax.add(convert(part.start, _I32), lax.mul(convert(part.step, _I32), iota))
            if part.step < 0:
                steps = lax.rev(steps, (0,))
            columns.append((steps, part.start_dim))
    if not columns:
        return np.zeros((0,), np.int32)
    if len(columns) == 1:
        v, _ = columns[0]
        nd = len(shape_of(v))
        return lax.broadcast_in_dim(v, (*shape_of(v), 1), tuple(range(nd)))
    full = (*batch, 1)
    bcast = [
        lax.broadcast_in_dim(v, full, tuple(range(start, start + len(shape_of(v)))))
        for v, start in columns
    ]
    return lax.concatenate(bcast, len(batch))


def _gather(
    x: Any,
    plan: GatherPlan,
    *,
    mode: Any,
    fill_value: Any,
    unique_indices: bool,
    indices_are_sorted: bool,
) -> Any:
    indices = build_gather_indices(plan)
    y = x
    if plan.scalar_bool_dims:
        y = lax.expand_dims(y, plan.scalar_bool_dims)
    if 0 in plan.slice_shape:
        return full_like(y, 0, shape=plan.slice_shape)
    if 0 not in shape_of(indices):
        dnums = lax.GatherDimensionNumbers(
            offset_dims=plan.offset_dims,
            collapsed_slice_dims=plan.collapsed_slice_dims,
            start_index_map=plan.start_index_map,
        )
        y = lax.gather(
            y,
            indices,
            dnums,
            plan.gather_slice_shape,
            unique_indices=unique_indices or plan.unique_indices,
            indices_are_sorted=indices_are_sorted or plan.indices_are_sorted,
            mode=mode,
            fill_value=fill_value,
        )
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    if plan.newaxis_dims:
        y = lax.expand_dims(y, plan.newaxis_dims)
    return y


def getitem(
    x: ArrayLike,
    idx: Any,
    /,
    *,
    mode: str | lax.GatherScatterMode | None = None,
    fill_value: ArrayLike | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
) -> Array:
    """``x[idx]`` with NumPy's semantics and JAX's out-of-bounds clamping.

    Args:
      x: the indexed array.
      idx: integers, slices, ``None``, ``...``, integer arrays, concrete
        boolean arrays, or a tuple of those.
      mode: ``None``/``"promise_in_bounds"`` (clamp), ``"clip"`` or ``"fill"``.
      fill_value: the value of out-of-bounds elements with ``mode="fill"``.
      unique_indices: a promise that integer-array indices do not repeat.
      indices_are_sorted: a promise that integer-array indices are sorted.

    Returns:
      The selected elements.

    Raises:
      IndexError: too many indices; a traced boolean mask
        (``NonConcreteBooleanIndexError``).
      TypeError: a list used as a multi-dimensional index, or a float index.

    >>> import numpy as np
    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: getitem(x, (slice(1, 3), None)), ShapeDtypeStruct((4, 2), "f4")).shape
    (2, 1, 2)
    """
    shape = shape_of(x)
    parsed = parse_indices(idx, shape)
    gmode = lax.GatherScatterMode.from_any(mode) if mode is not None else None
    if gmode is None or gmode in (
        lax.GatherScatterMode.PROMISE_IN_BOUNDS,
        lax.GatherScatterMode.CLIP,
    ):
        plan_s = static_slice_plan(parsed, shape)
        if plan_s is not None:
            return unchanged(_apply_static(x, plan_s))
        plan_d = dynamic_slice_plan(parsed, shape)
        if plan_d is not None:
            return unchanged(_apply_dynamic(x, plan_d))
    expanded = expand_bool_indices(
        parsed, shape, concrete=_concrete, on_abstract=lambda v: NonConcreteBooleanIndexError(v)
    )
    plan = gather_plan(expanded, shape)
    if gmode is None:
        gmode = lax.GatherScatterMode.PROMISE_IN_BOUNDS
    if fill_value is not None:
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        fill_value = np.asarray(fill_value).item()
    return unchanged(
        _gather(
            x,
            plan,
            mode=gmode,
            fill_value=fill_value,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
        )
    )
