"""Rolling, tiling and repeating."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import ArrayOps, jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, dtype_is, shape_of
from ._shape_ops import moveaxis, ravel, reshape
from ._shapes import canonicalize_axis

__all__ = ["repeat", "roll", "tile"]


def roll(
    a: ArrayLike,
    shift: ArrayLike | Sequence[int],
    axis: int | Sequence[int] | None = None,
) -> Array:
    """Shift elements cyclically along axes (of the flattened array when axis is None).

    Args:
      a: an array-like.
      shift: shift amounts: Python integers (sliced statically), or an integer
        array (a traced shift, by a dynamic slice of the doubled array, as JAX).
      axis: the axes, one per shift.

    Returns:
      The rolled array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: roll(x, -1, axis=1), ShapeDtypeStruct((2, 3), "f4")).shape
    (2, 3)
    """
    check_arraylike("roll", a)
    if axis is None:
        return unchanged(reshape(roll(ravel(a), shift, 0), shape_of(a)))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if isinstance(shift, Array):
        axes = tuple(canonicalize_axis(ax, len(shape_of(a))) for ax in axes)
        return unchanged(_roll_dynamic_jit(a, shift, axes))
    shifts = (shift,) if isinstance(shift, int | np.integer) else tuple(shift)  # type: ignore[arg-type]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    return unchanged(_roll_jit(a, shifts, axes))


def _roll_static(a: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    shape = shape_of(a)
    for s, ax in zip(shifts, axes, strict=True):
        ax = canonicalize_axis(ax, len(shape))
        n = shape[ax]
        if n == 0:
            continue
        k = operator.index(s) % n
        if k == 0:
            continue
        lo1 = [0] * len(shape)
        lo1[ax] = n - k
        hi2 = list(shape)
        hi2[ax] = n - k
        a = lax.concatenate(
            [
                lax.slice(a, tuple(lo1), shape, (1,) * len(shape)),
                lax.slice(a, (0,) * len(shape), tuple(hi2), (1,) * len(shape)),
            ],
            ax,
        )
    return a


_roll_jit = jit(_roll_static, static_argnums=(1, 2))


def _roll_dynamic(a: Any, shift: Any, axes: tuple[int, ...]) -> Any:
    shape = shape_of(a)
    shift = convert(shift, np.dtype(np.int32))
    if len(shape_of(shift)) > 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    n_shift = shape_of(shift)[0] if shape_of(shift) else 1
    if len(axes) == 1:
        axes = axes * n_shift
    if n_shift not in (1, len(axes)):
        raise ValueError(f"roll: {n_shift} shifts for {len(axes)} axes; give one per axis")
    for j, ax in enumerate(axes):
        x = lax.index_in_dim(shift, j, keepdims=False) if shape_of(shift) else shift
        n = shape[ax]
        x = lax.rem(lax.add(lax.rem(x, convert(max(n, 1), x.dtype)), convert(n, x.dtype)),
                    convert(max(n, 1), x.dtype))  # fmt: skip
        doubled = lax.concatenate([a, a], ax)
        a = lax.dynamic_slice_in_dim(doubled, lax.sub(convert(n, x.dtype), x), n, axis=ax)
    return a


_roll_dynamic.__name__ = _roll_dynamic.__qualname__ = "_roll_dynamic"
_roll_dynamic_jit = jit(_roll_dynamic, static_argnums=(2,))


def tile(A: ArrayLike, reps: int | Sequence[int]) -> Array:
    """Repeat a whole array ``reps`` times along each axis.

    Args:
      A: an array-like.
      reps: repetitions per axis (an int repeats the last axis), a sequence or
        a 1-D NumPy array of ints.

    Returns:
      The tiled array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: tile(x, (2, 3)), ShapeDtypeStruct((2, 3), "f4")).shape
    (4, 9)
    """
    check_arraylike("tile", A)
    reps_t = (
        (operator.index(reps),)
        if not isinstance(reps, Sequence | np.ndarray)
        else tuple(operator.index(r) for r in reps)
    )
    shape = shape_of(A)
    nd = max(len(shape), len(reps_t))
    shape = (1,) * (nd - len(shape)) + shape
    reps_t = (1,) * (nd - len(reps_t)) + reps_t
    return unchanged(lax.tile(reshape(A, shape), reps_t))


def repeat(
    a: ArrayLike,
    repeats: ArrayLike,
    axis: int | None = None,
    *,
    total_repeat_length: int | None = None,
) -> Array:
    """Repeat each element ``repeats`` times along an axis (the flattened array when None).

    Args:
      a: an array-like.
      repeats: a static int, or an integer array (then ``total_repeat_length``
        must give the static output length when tracing).
      axis: the axis.
      total_repeat_length: the output length along ``axis``.

    Returns:
      The array with repeated elements.

    Raises:
      TypeError: an integer ``repeats`` is negative (JAX's class).

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: repeat(x, 3, axis=1), ShapeDtypeStruct((2, 3), "f4")).shape
    (2, 9)
    """
    check_arraylike("repeat", a)
    if axis is None:
        a = ravel(a)
        axis = 0
    shape = shape_of(a)
    ax = canonicalize_axis(axis, len(shape))
    if not isinstance(repeats, int | np.integer):
        check_arraylike("repeat", repeats)  # not a list, as JAX's
        if not isinstance(repeats, ArrayOps):
            repeats = np.asarray(repeats)
        rep_dtype = aval_of(repeats).dtype
        if not (dtype_is(rep_dtype, np.integer) or rep_dtype == np.bool_):
            raise TypeError(f"repeat: repeats must be integers, got dtype {rep_dtype}")
        if isinstance(repeats, np.ndarray) and repeats.size == 1:
            repeats = repeats.reshape(())[()]  # one count for every element, as JAX's
        else:
            repeats = ravel(repeats)  # JAX takes the counts flattened
    if isinstance(repeats, int | np.integer):
        r = int(repeats)
        if r < 0:
            # JAX's class (its broadcast_in_dim refuses the negative size).
            raise TypeError(
                f"repeat: repeats={r} is negative; each element can be repeated 0 or more "
                "times, so pass repeats >= 0"
            )
        b = lax.broadcast_in_dim(
            a,
            (*shape[: ax + 1], r, *shape[ax + 1 :]),
            tuple(range(ax + 1)) + tuple(range(ax + 2, len(shape) + 1)),
        )
        return unchanged(reshape(b, (*shape[:ax], shape[ax] * r, *shape[ax + 1 :])))
    if total_repeat_length is None:
        rep = np.asarray(repeats)
        total_repeat_length = int(np.broadcast_to(rep, (shape[ax],)).sum())
    # Gather along ``axis``: output position j takes element searchsorted(cumsum, j).
    reps = convert(repeats, np.dtype(np.int32))
    if shape_of(reps) == (1,) and shape[ax] != 1:  # a traced single count
        reps = lax.reshape(reps, ())
    reps = lax.broadcast_in_dim(reps, (shape[ax],), ()) if not shape_of(reps) else reps
    ends = lax.cumsum(reps, axis=0, reverse=False)
    pos = lax.iota(np.dtype(np.int32), total_repeat_length)
    src = lax.reduce_sum(
        convert(
            lax.le(
                lax.broadcast_in_dim(ends, (total_repeat_length, shape[ax]), (1,)),
                lax.broadcast_in_dim(pos, (total_repeat_length, shape[ax]), (0,)),
            ),
            np.dtype(np.int32),
        ),
        (1,),
    )
    moved = moveaxis(a, ax, 0)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(1, len(shape))), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    got = lax.gather(
        moved,
        lax.broadcast_in_dim(src, (total_repeat_length, 1), (0,)),
        dnums,
        (1, *tuple(d for i, d in enumerate(shape) if i != ax)),
        mode=lax.GatherScatterMode.CLIP,
    )
    return unchanged(moveaxis(got, 0, ax))
