"""Padding, rolling, tiling and repeating."""

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

__all__ = ["pad", "repeat", "roll", "tile"]


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


def _pad_widths(
    pad_width: Any, nd: int, name: str = "pad_width", *, signed: bool = False
) -> list[tuple[int, int]]:
    pw = np.asarray(pad_width)
    if not np.issubdtype(pw.dtype, np.integer) and not (signed and pw.dtype.kind in "fb"):
        raise TypeError(f"pad: {name} must hold integers, got {pad_width!r}")
    # JAX's shapes: NumPy would also broadcast (nd, 1), JAX refuses it.
    if pw.shape not in ((nd, 2), (1, 2), (2,), (1,), ()):
        raise ValueError(
            f"pad: {name} {pad_width!r} has shape {pw.shape}, which does not fit an array "
            f"of rank {nd}; give an int, a (before, after) pair or {nd} such pairs "
            f"(shapes (), (1,), (2,), (1, 2) or ({nd}, 2))"
        )
    if not signed and (pw < 0).any():
        raise ValueError(
            f"pad: {name} {pad_width!r} holds a negative width; widths must be >= 0 "
            "(slice the array to crop it)"
        )
    pw = np.broadcast_to(pw, (nd, 2))
    if signed:
        return [(b.item(), e.item()) for b, e in pw]
    return [(int(b), int(e)) for b, e in pw]


def _stat_lengths(stat_length: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    if stat_length is None:
        return tuple((n, n) for n in shape)
    lengths = _pad_widths(stat_length, len(shape), "stat_length")
    if any(0 in pair for pair in lengths):  # JAX's class
        raise ValueError("pad: stat_length of 0 yields no value for padding")
    return tuple((min(b, n), min(e, n)) for (b, e), n in zip(lengths, shape, strict=True))


def _round_to(x: Any, dt: np.dtype[Any]) -> Any:
    # A statistic back in the array's dtype: integers round half to even, as JAX's.
    if dt.kind in "biu":
        x = lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    return convert(x, dt)


def _edge_stat(x: Any, ax: int, lo: int, hi: int, mode: str) -> Any:
    # The statistic of ``x[lo:hi]`` along ``ax``, keeping the axis (size 1).
    part = lax.slice_in_dim(x, lo, hi, axis=ax)
    dt = aval_of(x).dtype
    n = hi - lo
    if mode == "maximum":
        out = lax.reduce_max(part, (ax,))
    elif mode == "minimum":
        out = lax.reduce_min(part, (ax,))
    else:
        comp = dt if dt.kind in "fc" else np.dtype(np.float32)
        part = convert(part, comp)
        if mode == "mean":
            out = lax.div(lax.reduce_sum(part, (ax,)), convert(n, comp))
        else:
            srt = lax.sort(part, dimension=ax)
            mid = lax.slice_in_dim(srt, (n - 1) // 2, n // 2 + 1, axis=ax)
            out = lax.div(lax.reduce_sum(mid, (ax,)), convert(mid.shape[ax], comp))
        out = _round_to(out, dt)
    return lax.expand_dims(out, (ax,))


def _grow(x: Any, ax: int, size: int) -> Any:
    shape = list(shape_of(x))
    shape[ax] = size
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(len(shape))))


def _pad_stat(array: Any, widths: tuple[tuple[int, int], ...], mode: str, lengths: Any) -> Any:
    # Axis by axis, as NumPy and JAX: later axes see the padding of earlier ones.
    out = array
    for ax, ((before, after), (lb, la)) in enumerate(zip(widths, lengths, strict=True)):
        n = shape_of(out)[ax]
        pieces = [out]
        if before:
            pieces.insert(0, _grow(_edge_stat(out, ax, 0, lb, mode), ax, before))
        if after:
            pieces.append(_grow(_edge_stat(out, ax, n - la, n, mode), ax, after))
        out = lax.concatenate(pieces, ax) if len(pieces) > 1 else out
    return out


_pad_stat_jit = jit(_pad_stat, static_argnums=(1, 2, 3))


def _ramp(edge: Any, end: Any, ax: int, count: int, reverse: bool) -> Any:
    # ``count`` values from ``end`` toward ``edge`` (excluded), along ``ax``.
    dt = aval_of(edge).dtype
    comp = dt if dt.kind in "fc" else np.dtype(np.float32)
    e = convert(edge, comp)
    shape = list(shape_of(e))
    shape[ax] = count
    t = lax.div(lax.iota(comp, count), convert(count, comp))  # 0, 1/count, ...
    if reverse:
        t = lax.rev(t, (0,))
    t = lax.broadcast_in_dim(t, tuple(shape), (ax,))
    start = convert(end, comp)
    vals = lax.add(start, lax.mul(t, lax.sub(_grow(e, ax, count), start)))
    if dt.kind in "iu":
        vals = lax.floor(vals)
    return convert(vals, dt)


def _pad_ramp(array: Any, widths: tuple[tuple[int, int], ...], ends: Any) -> Any:
    out = array
    for ax, ((before, after), (end_b, end_a)) in enumerate(zip(widths, ends, strict=True)):
        n = shape_of(out)[ax]
        pieces = [out]
        if before:
            edge = lax.slice_in_dim(out, 0, 1, axis=ax)
            pieces.insert(0, _ramp(edge, end_b, ax, before, reverse=False))
        if after:
            edge = lax.slice_in_dim(out, n - 1, n, axis=ax)
            pieces.append(_ramp(edge, end_a, ax, after, reverse=True))
        out = lax.concatenate(pieces, ax) if len(pieces) > 1 else out
    return out


_pad_ramp_jit = jit(_pad_ramp, static_argnums=(1, 2))


# The keyword arguments each mode takes, as JAX's.
_PAD_KEYWORDS = {
    "constant": {"constant_values"},
    "edge": set(),
    "wrap": set(),
    "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
    "linear_ramp": {"end_values"},
    "maximum": {"stat_length"},
    "minimum": {"stat_length"},
    "mean": {"stat_length"},
    "median": {"stat_length"},
    "empty": set(),
}


def pad(
    array: ArrayLike,
    pad_width: ArrayLike | Sequence[ArrayLike | Sequence[ArrayLike]],
    mode: str = "constant",
    **kwargs: Any,
) -> Array:
    """Pad an array (modes ``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap``,
    ``linear_ramp``, ``maximum``, ``minimum``, ``mean``, ``median``, ``empty``).

    Args:
      array: an array-like.
      pad_width: an int, a ``(before, after)`` pair, or one pair per axis.
      mode: the padding mode.
      **kwargs: ``constant_values`` (a scalar fill for ``"constant"``),
        ``end_values`` (an int, a pair or one pair per axis, for
        ``"linear_ramp"``), ``stat_length`` (the same forms, for the statistic
        modes; None takes the whole axis), ``reflect_type`` (``"even"``).

    Returns:
      The padded array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: pad(x, ((1, 0), (0, 2))), ShapeDtypeStruct((2, 3), "f4")).shape
    (3, 5)
    """
    check_arraylike("pad", array)
    shape = shape_of(array)
    widths = tuple(_pad_widths(pad_width, len(shape)))
    if not isinstance(mode, str):
        raise NotImplementedError(f"pad: mode={mode!r} is not supported; pass a mode name")
    if mode not in _PAD_KEYWORDS:  # JAX's class
        raise NotImplementedError(f"pad: unimplemented padding mode {mode!r}")
    unsupported = set(kwargs) - _PAD_KEYWORDS[mode]
    if unsupported:  # JAX's class
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {unsupported}")
    if mode in ("constant", "empty"):  # "empty" pads with zeros
        constant_values = kwargs.get("constant_values", 0)
        check_arraylike("pad", constant_values)
        return unchanged(_pad_constant_jit(array, widths, constant_values))
    if mode == "linear_ramp":
        ends = _pad_widths(kwargs.get("end_values", 0), len(shape), "end_values", signed=True)
        return unchanged(_pad_ramp_jit(array, widths, tuple(ends)))
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = _stat_lengths(kwargs.get("stat_length"), shape)
        return unchanged(_pad_stat_jit(array, widths, mode, lengths))
    if kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("pad: reflect_type='odd' is not implemented; use 'even'")
    out = array
    for ax, (before, after) in enumerate(widths):
        n = shape[ax]
        idx = np.arange(-before, n + after)
        if mode == "edge":
            src = np.clip(idx, 0, n - 1)
        elif mode == "wrap":
            src = idx % n
        elif mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            m = idx % period
            src = np.where(m < n, m, period - m) if n > 1 else np.zeros_like(idx)
        else:
            period = 2 * n
            m = idx % period
            src = np.where(m < n, m, period - 1 - m)
        pieces = [_take_one(out, int(i), ax) for i in src]
        out = lax.concatenate(pieces, ax) if pieces else out
    return unchanged(out)


def _pad(array: Any, widths: tuple[tuple[Any, Any], ...], constant_values: Any) -> Any:
    value = convert(constant_values, aval_of(array).dtype)
    return lax.pad(array, value, tuple((b, e, 0) for b, e in widths))


_pad_constant_jit = jit(_pad, static_argnums=1)


def _take_one(x: Any, i: int, axis: int) -> Any:
    shape = shape_of(x)
    lo = [0] * len(shape)
    hi = list(shape)
    lo[axis], hi[axis] = i, i + 1
    return lax.slice(x, tuple(lo), tuple(hi))


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
