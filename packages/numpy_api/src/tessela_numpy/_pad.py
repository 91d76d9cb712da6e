"""``pad``: every mode of ``jax.numpy.pad``, and callable modes.

Each mode pads axis by axis, as NumPy and JAX, so that later axes see (and
pad) the padding of earlier ones: corners take the last axis' values. The
static modes run as one compiled program per shape and widths.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, shape_of, to_inexact_dtype
from ._creation import asarray
from ._shape_ops import moveaxis, reshape, stack
from ._where import broadcast_to

__all__ = ["pad"]


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


Widths = tuple[tuple[int, int], ...]


def _check_no_empty_axis(shape: tuple[int, ...], widths: Widths, mode: str) -> None:
    # JAX's class: an empty axis has no value to copy into its padding.
    for ax, (n, (before, after)) in enumerate(zip(shape, widths, strict=True)):
        if n == 0 and (before or after):
            raise ValueError(
                f"pad: cannot apply {mode!r} padding to axis {ax}, which is empty; "
                "pad it with mode='constant' or give it a width of 0"
            )


def _concat(pieces: list[Any], ax: int) -> Any:
    return lax.concatenate(pieces, ax) if len(pieces) > 1 else pieces[0]


def _grow(x: Any, ax: int, size: int) -> Any:
    # A size-1 axis ``ax`` of ``x`` repeated ``size`` times.
    shape = list(shape_of(x))
    shape[ax] = size
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(len(shape))))


# ---------------------------------------------------------------- constant


def _pad_constant(array: Any, widths: Widths, constant_values: Any) -> Any:
    nd = len(shape_of(array))
    values = convert(constant_values, aval_of(array).dtype)
    v_shape = shape_of(values)
    if len(v_shape) == 1 and v_shape[0] == 1:
        values = lax.reshape(values, ())
    elif len(v_shape) == 1 and v_shape[0] != 2:  # JAX's class and rule
        raise ValueError(
            f"pad: constant_values of shape {v_shape} does not fit; give a scalar, a "
            f"(before, after) pair or {nd} such pairs (a 1-D or 2-D value's last axis "
            "has size 1 or 2)"
        )
    if not shape_of(values):
        return lax.pad(array, values, tuple((b, e, 0) for b, e in widths))
    if len(v_shape) > 2:
        raise ValueError(
            f"pad: constant_values of shape {v_shape} has more than 2 axes; give a scalar, "
            f"a (before, after) pair or {nd} such pairs"
        )
    # (2,), (1, 2), (nd, 1), (nd, 2): one (before, after) pair per axis.
    pairs = broadcast_to(values, (nd, 2))
    out = array
    for ax, (before, after) in enumerate(widths):
        for side, width in ((0, before), (1, after)):
            if width:
                fill = lax.reshape(lax.slice(pairs, (ax, side), (ax + 1, side + 1)), ())
                cfg = [(0, 0, 0)] * nd
                cfg[ax] = (width, 0, 0) if side == 0 else (0, width, 0)
                out = lax.pad(out, fill, tuple(cfg))
    return out


_pad_constant_jit = jit(_pad_constant, static_argnums=1)


def _constant_values(value: Any) -> Any:
    # JAX takes nested tuples and lists of numbers (or arrays) as constants.
    if isinstance(value, list | tuple):
        try:
            return asarray(value)
        except ValueError as e:  # ragged nesting; JAX's class
            raise TypeError(
                f"pad: constant_values entries must have one shape, got {value!r}"
            ) from e
    if value is None:  # JAX's class
        raise ValueError("pad: constant_values=None is not a value; give a number or pairs")
    check_arraylike("pad", value)
    return value


# ---------------------------------------------------------------- copies of the array


def _pad_edge(array: Any, widths: Widths) -> Any:
    out = array
    for ax, (before, after) in enumerate(widths):
        n = shape_of(out)[ax]
        if n == 0:
            continue
        pieces = [out]
        if before:
            pieces.insert(0, _grow(lax.slice_in_dim(out, 0, 1, axis=ax), ax, before))
        if after:
            pieces.append(_grow(lax.slice_in_dim(out, n - 1, n, axis=ax), ax, after))
        out = _concat(pieces, ax)
    return out


def _pad_wrap(array: Any, widths: Widths) -> Any:
    out = array
    for ax, (before, after) in enumerate(widths):
        n = shape_of(out)[ax]
        if n == 0:
            continue
        copies_b, rest_b = divmod(before, n)
        copies_a, rest_a = divmod(after, n)
        pieces = [out] * (copies_b + 1 + copies_a)
        if rest_b:
            pieces.insert(0, lax.slice_in_dim(out, n - rest_b, n, axis=ax))
        if rest_a:
            pieces.append(lax.slice_in_dim(out, 0, rest_a, axis=ax))
        out = _concat(pieces, ax)
    return out


def _mirror_side(x: Any, ax: int, n: int, count: int, before: bool, mode: str, odd: bool) -> Any:
    # Mirror ``count`` values onto one side of axis ``ax`` (of original size
    # ``n``), in chunks of at most the values one mirror can show: each chunk
    # mirrors the array as it stands, padding included, as NumPy and JAX.
    skip = 1 if mode == "reflect" and n > 1 else 0  # reflect leaves out the edge
    size = shape_of(x)[ax]
    edge = (
        lax.slice_in_dim(x, 0, 1, axis=ax)
        if before
        else lax.slice_in_dim(x, size - 1, size, axis=ax)
    )
    dt = aval_of(x).dtype
    while count > 0:
        k = min(count, n - skip)
        count -= k
        size = shape_of(x)[ax]
        lo = skip if before else size - k - skip
        part = lax.rev(lax.slice_in_dim(x, lo, lo + k, axis=ax), (ax,))
        if odd:  # the point reflection through the edge value: 2 * edge - x
            part = lax.sub(lax.mul(convert(2, dt), _grow(edge, ax, k)), part)
            if n > 1:
                edge = (
                    lax.slice_in_dim(part, 0, 1, axis=ax)
                    if before
                    else lax.slice_in_dim(part, k - 1, k, axis=ax)
                )
        x = lax.concatenate([part, x] if before else [x, part], ax)
    return x


def _pad_mirror(array: Any, widths: Widths, mode: str, odd: bool) -> Any:
    out = array
    for ax, (before, after) in enumerate(widths):
        n = shape_of(out)[ax]
        if n == 0:
            continue
        out = _mirror_side(out, ax, n, before, True, mode, odd)
        out = _mirror_side(out, ax, n, after, False, mode, odd)
    return out


_pad_edge_jit = jit(_pad_edge, static_argnums=1)
_pad_wrap_jit = jit(_pad_wrap, static_argnums=1)
_pad_mirror_jit = jit(_pad_mirror, static_argnums=(1, 2, 3))


# ---------------------------------------------------------------- statistics and ramps


def _stat_lengths(stat_length: Any, shape: tuple[int, ...]) -> Widths:
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


def _pad_stat(array: Any, widths: Widths, mode: str, lengths: Any) -> Any:
    out = array
    for ax, ((before, after), (lb, la)) in enumerate(zip(widths, lengths, strict=True)):
        n = shape_of(out)[ax]
        pieces = [out]
        if before:
            pieces.insert(0, _grow(_edge_stat(out, ax, 0, lb, mode), ax, before))
        if after:
            pieces.append(_grow(_edge_stat(out, ax, n - la, n, mode), ax, after))
        out = _concat(pieces, ax)
    return out


_pad_stat_jit = jit(_pad_stat, static_argnums=(1, 2, 3))


def _ramp(edge: Any, end: Any, ax: int, count: int, reverse: bool) -> Any:
    # ``count`` values from ``end`` toward ``edge`` (excluded), along ``ax``:
    # ``linspace``'s samples ``end * (1 - t) + edge * t``, to JAX's last bit.
    dt = aval_of(edge).dtype
    comp = to_inexact_dtype(dt)
    real = _dt.canonicalize_dtype(_dt.finfo(comp).dtype)
    e = convert(edge, comp)
    shape = list(shape_of(e))
    shape[ax] = count
    start = convert(end, comp)
    t = convert(lax.div(lax.iota(real, count), convert(count, real)), comp)  # 0, 1/count, ...
    if reverse:
        t = lax.rev(t, (0,))
    t = lax.broadcast_in_dim(t, tuple(shape), (ax,))
    one = convert(1, comp)
    vals = lax.add(lax.mul(start, lax.sub(one, t)), lax.mul(_grow(e, ax, count), t))
    if count == 1:  # linspace's single sample is the start itself
        vals = lax.broadcast_in_dim(start, tuple(shape), ())
    if dt.kind in "iu":
        vals = lax.floor(vals)
    return convert(vals, dt)


def _pad_ramp(array: Any, widths: Widths, ends: Any) -> Any:
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
        out = _concat(pieces, ax)
    return out


_pad_ramp_jit = jit(_pad_ramp, static_argnums=(1, 2))


# ---------------------------------------------------------------- callable modes


def _apply_to_rows(func: Callable[..., Any], x: Any, ax: int, width: Any, kwargs: Any) -> Any:
    # ``func`` on every 1-D slice of ``x`` along ``ax``, one call per slice
    # (NumPy's way; JAX maps it with vmap). Its results replace the slices.
    moved = moveaxis(x, ax, -1)
    rest = shape_of(moved)[:-1]
    length = shape_of(moved)[-1]
    count = int(np.prod(rest, dtype=np.int64))
    rows = reshape(moved, (count, length))
    probe = [lax.index_in_dim(rows, i, 0, keepdims=False) for i in range(count)]
    if not probe:  # no slice to pass: learn the result's length from a zero row
        probe = [lax.full((length,), 0, aval_of(x).dtype)]
    outs = []
    for row in probe:
        got = func(row, width, ax, kwargs)
        if got is None:  # JAX's class (it cannot map a function that returns nothing)
            raise TypeError(
                "pad: the padding function returned None; arrays are immutable, so "
                "return the padded vector (e.g. vector.at[:before].set(value))"
            )
        got = asarray(got)
        if len(shape_of(got)) != 1:  # JAX's class
            raise ValueError(
                f"pad: the padding function returned shape {shape_of(got)}; it must "
                "return a 1-D vector (the padded slice)"
            )
        outs.append(got)
    out = stack(outs) if count else broadcast_to(outs[0], (0, shape_of(outs[0])[0]))
    return moveaxis(reshape(out, (*rest, shape_of(out)[-1])), -1, ax)


def _pad_callable(array: Any, widths: Widths, func: Callable[..., Any], kwargs: Any) -> Any:
    if not shape_of(array):  # JAX's class: a scalar has no axis to pad
        raise ValueError("pad: a callable mode needs an array of rank >= 1, got a scalar")
    out = _pad_constant(asarray(array), widths, 0)
    for ax, (before, after) in enumerate(widths):
        # The pair as JAX passes it: NumPy integers.
        out = _apply_to_rows(func, out, ax, (np.int64(before), np.int64(after)), kwargs)
    return out


# ---------------------------------------------------------------- pad


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
    mode: str | Callable[..., Any] = "constant",
    **kwargs: Any,
) -> Array:
    """Pad an array.

    Args:
      array: an array-like.
      pad_width: an int, a ``(before, after)`` pair, or one pair per axis.
      mode: ``"constant"``, ``"edge"``, ``"reflect"``, ``"symmetric"``,
        ``"wrap"``, ``"linear_ramp"``, ``"maximum"``, ``"minimum"``,
        ``"mean"``, ``"median"``, ``"empty"`` (zeros), or a function
        ``mode(vector, iaxis_pad_width, iaxis, kwargs)`` that returns the
        padded 1-D ``vector`` (given with zeros in its padding), called for
        each 1-D slice of each axis in turn, with the other keyword arguments
        as ``kwargs``.
      **kwargs: ``constant_values`` (a scalar, a ``(before, after)`` pair or
        one pair per axis, for ``"constant"``), ``end_values`` (the same
        forms, for ``"linear_ramp"``), ``stat_length`` (the same forms, for
        the statistic modes; None takes the whole axis), ``reflect_type``
        (``"even"``, or ``"odd"``: the mirror image reflected through the edge
        value, ``2 * edge - mirror``).

    Returns:
      The padded array.

    Raises:
      ValueError: a width is negative or of a shape that fits no axis, an
        empty axis is to be padded by copying its values, or a keyword
        argument does not fit its mode.
      NotImplementedError: an unknown mode name.

    Values (with ``tessela_lowering`` imported): ``pad([1, 2, 4], (2, 3),
    mode="reflect", reflect_type="odd")`` is ``[-2, 0, 1, 2, 4, 6, 7, 8]``, and
    ``pad(ones((1, 2)), 1, constant_values=((7, 8), (5, 6)))`` is
    ``[[5, 7, 7, 6], [5, 1, 1, 6], [5, 8, 8, 6]]``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: pad(x, (2, 3), "reflect", reflect_type="odd"), S((3,), "i4")).shape
    (8,)
    >>> eval_shape(lambda x: pad(x, 1, lambda v, w, i, kw: v * 2), S((1, 2), "f4")).shape
    (3, 4)
    """
    check_arraylike("pad", array)
    shape = shape_of(array)
    widths = tuple(_pad_widths(pad_width, len(shape)))
    if callable(mode):
        return unchanged(_pad_callable(array, widths, mode, kwargs))
    if not isinstance(mode, str) or mode not in _PAD_KEYWORDS:  # JAX's class
        raise NotImplementedError(f"pad: unimplemented padding mode {mode!r}")
    unsupported = set(kwargs) - _PAD_KEYWORDS[mode]
    if unsupported:  # JAX's class
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {unsupported}")
    if mode in ("constant", "empty"):  # "empty" pads with zeros
        values = _constant_values(kwargs.get("constant_values", 0))
        return unchanged(_pad_constant_jit(array, widths, values))
    if mode == "linear_ramp":
        ends = _pad_widths(kwargs.get("end_values", 0), len(shape), "end_values", signed=True)
        return unchanged(_pad_ramp_jit(array, widths, tuple(ends)))
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = _stat_lengths(kwargs.get("stat_length"), shape)
        return unchanged(_pad_stat_jit(array, widths, mode, lengths))
    _check_no_empty_axis(shape, widths, mode)
    if mode == "edge":
        return unchanged(_pad_edge_jit(array, widths))
    if mode == "wrap":
        return unchanged(_pad_wrap_jit(array, widths))
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    odd = reflect_type == "odd"
    if odd and aval_of(array).dtype == np.bool_:  # JAX's class
        raise TypeError(
            "pad: reflect_type='odd' computes 2 * edge - value, which booleans do not "
            "have; convert the array to a number dtype first"
        )
    return unchanged(_pad_mirror_jit(array, widths, mode, odd))
