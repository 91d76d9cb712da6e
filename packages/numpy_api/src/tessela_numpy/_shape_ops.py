"""Shape manipulation: reshape, transpose, joining, splitting, padding, tiling."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import jit, lax

from ._arrays import aval_of, check_arraylike, convert, promote_dtypes, shape_of
from ._shapes import (
    canonicalize_axis,
    canonicalize_shape,
    move_axis_permutation,
    normalize_reduction_axes,
)

__all__ = [
    "concatenate", "expand_dims", "flip", "hstack", "moveaxis", "pad", "ravel", "repeat",
    "reshape", "roll", "split", "squeeze", "stack", "swapaxes", "tile", "transpose",
    "vstack",
]  # fmt: skip


def _resolve_shape(newshape: Any, size: int, old: tuple[int, ...]) -> tuple[int, ...]:
    entries = list(newshape) if isinstance(newshape, Sequence) else [newshape]
    dims = [operator.index(d) for d in entries]
    if dims.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension (-1) in reshape")
    known = math.prod(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or size % known:
            raise TypeError(
                f"cannot reshape array of shape {old} (size {size}) into shape {tuple(dims)}"
            )
        dims[dims.index(-1)] = size // known
    out = canonicalize_shape(tuple(dims))
    if math.prod(out) != size:
        raise TypeError(
            f"cannot reshape array of shape {old} (size {size}) into shape {out} "
            f"(size {math.prod(out)})"
        )
    return out


def reshape(a: Any, /, shape: Any, *, order: str = "C") -> Any:
    """Give an array a new shape with the same number of elements.

    Args:
      a: an array-like (not a list).
      shape: the new shape; one entry may be ``-1``.
      order: ``"C"`` (row-major) or ``"F"`` (column-major) element order.

    Returns:
      The reshaped array (``a`` itself when the shape is unchanged).

    Raises:
      TypeError: the sizes differ.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: reshape(x, (-1, 2)), ShapeDtypeStruct((2, 6), "float32")).shape
    (6, 2)
    """
    check_arraylike("reshape", a)
    old = shape_of(a)
    new = _resolve_shape(shape, math.prod(old), old)
    if order == "F":
        t = lax.transpose(a, tuple(reversed(range(len(old))))) if len(old) > 1 else a
        out = lax.reshape(t, tuple(reversed(new)))
        return lax.transpose(out, tuple(reversed(range(len(new))))) if len(new) > 1 else out
    if order != "C":
        raise ValueError(f"reshape: order must be 'C' or 'F', got order={order!r}")
    return a if new == old else lax.reshape(a, new)


def ravel(a: Any, /, order: str = "C") -> Any:
    """Flatten to one dimension.

    Args:
      a: an array-like.
      order: ``"C"`` or ``"F"``.

    Returns:
      The 1-D array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(ravel, ShapeDtypeStruct((2, 3), "float32")).shape
    (6,)
    """
    check_arraylike("ravel", a)
    return reshape(a, (math.prod(shape_of(a)),), order=order)


def transpose(a: Any, /, axes: Sequence[int] | None = None) -> Any:
    """Permute the axes (reverse them when ``axes`` is ``None``).

    Args:
      a: an array-like.
      axes: a permutation of the axes, negative entries allowed.

    Returns:
      The transposed array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: transpose(x, (1, 0, 2)), ShapeDtypeStruct((2, 3, 4), "f4")).shape
    (3, 2, 4)
    """
    check_arraylike("transpose", a)
    nd = len(shape_of(a))
    perm = (
        tuple(reversed(range(nd)))
        if axes is None
        else tuple(canonicalize_axis(i, nd) for i in axes)
    )
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"transpose: axes {axes} is not a permutation of {tuple(range(nd))}")
    return lax.transpose(a, perm)


def swapaxes(a: Any, /, axis1: int, axis2: int) -> Any:
    """Exchange two axes.

    Args:
      a: an array-like.
      axis1: the first axis.
      axis2: the second axis.

    Returns:
      The array with the two axes swapped.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: swapaxes(x, 0, 2), ShapeDtypeStruct((2, 3, 4), "f4")).shape
    (4, 3, 2)
    """
    check_arraylike("swapaxes", a)
    nd = len(shape_of(a))
    perm = list(range(nd))
    i, j = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, tuple(perm))


def moveaxis(a: Any, /, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
    """Move axes to new positions, keeping the order of the others.

    Args:
      a: an array-like.
      source: the axes to move.
      destination: where they go.

    Returns:
      The array with the axes moved.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: moveaxis(x, 0, -1), ShapeDtypeStruct((2, 3, 4), "f4")).shape
    (3, 4, 2)
    """
    check_arraylike("moveaxis", a)
    nd = len(shape_of(a))
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    perm = move_axis_permutation(
        nd,
        tuple(canonicalize_axis(s, nd) for s in src),
        tuple(canonicalize_axis(d, nd) for d in dst),
    )
    return a if perm == tuple(range(nd)) else lax.transpose(a, perm)


def squeeze(a: Any, /, axis: int | Sequence[int] | None = None) -> Any:
    """Remove size-1 axes (all of them, or those in ``axis``).

    Args:
      a: an array-like.
      axis: axes to remove; each must have size 1.

    Returns:
      The squeezed array.

    Raises:
      ValueError: a named axis does not have size 1.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(squeeze, ShapeDtypeStruct((1, 3, 1), "float32")).shape
    (3,)
    """
    check_arraylike("squeeze", a)
    shape = shape_of(a)
    if axis is None:
        dims = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        dims = normalize_reduction_axes(axis, len(shape))
        for d in dims:
            if shape[d] != 1:
                raise ValueError(
                    "cannot select an axis to squeeze out which has size not equal to one, "
                    f"got shape={shape} and dimensions={dims}"
                )
    return lax.squeeze(a, dims) if dims else a


def expand_dims(a: Any, /, axis: int | Sequence[int]) -> Any:
    """Insert size-1 axes at the positions ``axis`` of the result.

    Args:
      a: an array-like.
      axis: positions in the result.

    Returns:
      The expanded array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: expand_dims(x, (0, -1)), ShapeDtypeStruct((2, 3), "f4")).shape
    (1, 2, 3, 1)
    """
    check_arraylike("expand_dims", a)
    shape = shape_of(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = len(shape) + len(axes)
    new = normalize_reduction_axes(axes, nd)
    it = iter(shape)
    out_shape = tuple(1 if i in new else next(it) for i in range(nd))
    kept = tuple(i for i in range(nd) if i not in new)
    return lax.broadcast_in_dim(a, out_shape, kept)


def _check_sequence(name: str, arrays: Any) -> list[Any]:
    if not isinstance(arrays, Sequence) or isinstance(arrays, str):
        if hasattr(arrays, "shape") and shape_of(arrays):
            return [arrays[i] for i in range(shape_of(arrays)[0])]
        raise TypeError(f"{name} requires a sequence of arrays, got {type(arrays)}")
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike(name, *arrays)
    return list(arrays)


def concatenate(arrays: Sequence[Any], /, axis: int | None = 0, dtype: Any = None) -> Any:
    """Join arrays along an existing axis (the flattened arrays when axis is None).

    Args:
      arrays: a sequence of array-likes.
      axis: the joining axis.
      dtype: dtype of the result.

    Returns:
      The joined array, of the promoted dtype.

    Raises:
      TypeError: the shapes differ off the joining axis.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: concatenate([x, y]), s((2, 3), "f4"), s((4, 3), "f4")).shape
    (6, 3)
    """
    arrs = _check_sequence("concatenate", arrays)
    if axis is None:
        arrs = [ravel(a) for a in arrs]
        axis = 0
    arrs = promote_dtypes(*arrs)
    if dtype is not None:
        arrs = [convert(a, np.dtype(dtype)) for a in arrs]
    nd = len(shape_of(arrs[0]))
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = canonicalize_axis(axis, nd)
    if len(arrs) == 1:
        return arrs[0]
    return lax.concatenate(arrs, ax)


def stack(arrays: Sequence[Any], /, axis: int = 0, dtype: Any = None) -> Any:
    """Join arrays of one shape along a new axis.

    Args:
      arrays: a sequence of array-likes of the same shape.
      axis: the position of the new axis in the result.
      dtype: dtype of the result.

    Returns:
      The stacked array.

    Raises:
      ValueError: the shapes differ.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: stack([x, y], -1), s((2, 3), "f4"), s((2, 3), "f4")).shape
    (2, 3, 2)
    """
    arrs = _check_sequence("stack", arrays)
    shape = shape_of(arrs[0])
    if any(shape_of(a) != shape for a in arrs):
        raise ValueError("All input arrays must have the same shape.")
    ax = canonicalize_axis(axis, len(shape) + 1)
    return concatenate([expand_dims(a, ax) for a in arrs], axis=ax, dtype=dtype)


def _atleast(a: Any, nd: int) -> Any:
    shape = shape_of(a)
    if len(shape) >= nd:
        return a
    if nd == 1:
        return reshape(a, (1,))
    return reshape(a, (1,) * (nd - len(shape)) + shape) if len(shape) < 2 else a


def hstack(tup: Sequence[Any], /, dtype: Any = None) -> Any:
    """Join arrays column-wise (along axis 1, or axis 0 for 1-D arrays).

    Args:
      tup: a sequence of array-likes.
      dtype: dtype of the result.

    Returns:
      The joined array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: hstack([x, y]), s((3,), "f4"), s((2,), "f4")).shape
    (5,)
    """
    arrs = [_atleast(a, 1) for a in _check_sequence("hstack", tup)]
    return concatenate(arrs, axis=0 if len(shape_of(arrs[0])) == 1 else 1, dtype=dtype)


def vstack(tup: Sequence[Any], /, dtype: Any = None) -> Any:
    """Join arrays row-wise (1-D arrays become rows).

    Args:
      tup: a sequence of array-likes.
      dtype: dtype of the result.

    Returns:
      The joined array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lambda x, y: vstack([x, y]), s((3,), "f4"), s((2, 3), "f4")).shape
    (3, 3)
    """
    arrs = [_atleast(a, 2) for a in _check_sequence("vstack", tup)]
    return concatenate(arrs, axis=0, dtype=dtype)


def split(ary: Any, indices_or_sections: Any, /, axis: int = 0) -> list[Any]:
    """Split into equal sections, or at the given indices, along an axis.

    Args:
      ary: an array-like.
      indices_or_sections: a number of equal sections, or a sequence of indices.
      axis: the axis to split.

    Returns:
      The list of pieces.

    Raises:
      ValueError: the axis does not divide into equal sections.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> [p.shape for p in eval_shape(lambda x: split(x, [1, 3], axis=1), ShapeDtypeStruct((2, 5), "f4"))]
    [(2, 1), (2, 2), (2, 2)]
    """
    check_arraylike("split", ary)
    shape = shape_of(ary)
    ax = canonicalize_axis(axis, len(shape))
    size = shape[ax]
    if isinstance(indices_or_sections, int | np.integer):
        n = int(indices_or_sections)
        if n <= 0 or size % n:
            raise ValueError(
                f"array split does not result in an equal division: rest is {size % n if n else size}"
            )
        bounds = [i * (size // n) for i in range(n + 1)]
    else:
        idx = [min(max(int(i) + (size if int(i) < 0 else 0), 0), size) for i in indices_or_sections]
        bounds = [0, *idx, size]
    pieces = []
    for start, stop in itertools.pairwise(bounds):
        stop = max(start, stop)
        lo = [0] * len(shape)
        hi = list(shape)
        lo[ax], hi[ax] = start, stop
        pieces.append(lax.slice(ary, tuple(lo), tuple(hi)))
    return pieces


def flip(m: Any, /, axis: int | Sequence[int] | None = None) -> Any:
    """Reverse the order of elements along the given axes (all when None).

    Args:
      m: an array-like.
      axis: axes to reverse.

    Returns:
      The flipped array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: flip(x, 1), ShapeDtypeStruct((2, 3), "float32")).shape
    (2, 3)
    """
    check_arraylike("flip", m)
    dims = normalize_reduction_axes(axis, len(shape_of(m)))
    return _flip_jit(m, dims)


def _flip(m: Any, dims: tuple[int, ...]) -> Any:
    return lax.rev(m, dims) if dims else m


_flip_jit = jit(_flip, static_argnums=1)


def roll(a: Any, /, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Any:
    """Shift elements cyclically along axes (of the flattened array when axis is None).

    Args:
      a: an array-like.
      shift: static shift amounts.
      axis: the axes, one per shift.

    Returns:
      The rolled array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: roll(x, -1, axis=1), ShapeDtypeStruct((2, 3), "f4")).shape
    (2, 3)
    """
    check_arraylike("roll", a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), shape_of(a))
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    return _roll_jit(a, shifts, axes)


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


def _pad_widths(pad_width: Any, nd: int) -> list[tuple[int, int]]:
    pw = np.asarray(pad_width)
    if not np.issubdtype(pw.dtype, np.integer):
        raise TypeError(f"pad: pad_width must hold integers, got {pad_width!r}")
    try:
        pw = np.broadcast_to(pw, (nd, 2))
    except ValueError:
        raise ValueError(
            f"pad: pad_width {pad_width} does not fit an array of rank {nd}; "
            "give one (before, after) pair per axis"
        ) from None
    return [(b, e) for b, e in pw]


def pad(array: Any, /, pad_width: Any, mode: str = "constant", *, constant_values: Any = 0) -> Any:
    """Pad an array (modes ``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap``).

    Args:
      array: an array-like.
      pad_width: an int, a ``(before, after)`` pair, or one pair per axis.
      mode: the padding mode.
      constant_values: the fill value for ``mode="constant"``.

    Returns:
      The padded array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: pad(x, ((1, 0), (0, 2))), ShapeDtypeStruct((2, 3), "f4")).shape
    (3, 5)
    """
    check_arraylike("pad", array)
    shape = shape_of(array)
    widths = tuple(_pad_widths(pad_width, len(shape)))
    if mode == "constant":
        check_arraylike("pad", constant_values)
        return _pad_constant_jit(array, widths, constant_values)
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NotImplementedError(
            f"pad: mode={mode!r} is not supported; use 'constant', "
            "'edge', 'reflect', 'symmetric' or 'wrap'"
        )
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
    return out


def _pad(array: Any, widths: tuple[tuple[Any, Any], ...], constant_values: Any) -> Any:
    value = convert(constant_values, aval_of(array).dtype)
    return lax.pad(array, value, tuple((b, e, 0) for b, e in widths))


_pad.__name__ = _pad.__qualname__ = "_pad"
_pad_constant_jit = jit(_pad, static_argnums=1)


def _take_one(x: Any, i: int, axis: int) -> Any:
    shape = shape_of(x)
    lo = [0] * len(shape)
    hi = list(shape)
    lo[axis], hi[axis] = i, i + 1
    return lax.slice(x, tuple(lo), tuple(hi))


def tile(A: Any, reps: int | Sequence[int], /) -> Any:
    """Repeat a whole array ``reps`` times along each axis.

    Args:
      A: an array-like.
      reps: repetitions per axis (an int repeats the last axis).

    Returns:
      The tiled array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: tile(x, (2, 3)), ShapeDtypeStruct((2, 3), "f4")).shape
    (4, 9)
    """
    check_arraylike("tile", A)
    reps_t = (
        (operator.index(reps),)
        if not isinstance(reps, Sequence)
        else tuple(operator.index(r) for r in reps)
    )
    shape = shape_of(A)
    nd = max(len(shape), len(reps_t))
    shape = (1,) * (nd - len(shape)) + shape
    reps_t = (1,) * (nd - len(reps_t)) + reps_t
    a = reshape(A, shape)
    big = tuple(x for r, d in zip(reps_t, shape, strict=True) for x in (r, d))
    b = lax.broadcast_in_dim(a, big, tuple(range(1, 2 * nd, 2)))
    return reshape(b, tuple(r * d for r, d in zip(reps_t, shape, strict=True)))


def repeat(
    a: Any, /, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None
) -> Any:
    """Repeat each element ``repeats`` times along an axis (the flattened array when None).

    Args:
      a: an array-like.
      repeats: a static int, or an integer array (then ``total_repeat_length``
        must give the static output length when tracing).
      axis: the axis.
      total_repeat_length: the output length along ``axis``.

    Returns:
      The array with repeated elements.

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
    if isinstance(repeats, int | np.integer):
        r = int(repeats)
        b = lax.broadcast_in_dim(
            a,
            (*shape[: ax + 1], r, *shape[ax + 1 :]),
            tuple(range(ax + 1)) + tuple(range(ax + 2, len(shape) + 1)),
        )
        return reshape(b, (*shape[:ax], shape[ax] * r, *shape[ax + 1 :]))
    if total_repeat_length is None:
        rep = np.asarray(repeats)
        total_repeat_length = int(np.broadcast_to(rep, (shape[ax],)).sum())
    # Gather along ``axis``: output position j takes element searchsorted(cumsum, j).
    reps = convert(repeats, np.dtype(np.int32))
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
    return moveaxis(got, 0, ax)
