"""Bit packing, float spacing, phase unwrapping and N-D histograms.

``packbits``, ``unpackbits``, ``spacing``, ``unwrap``, ``sort_complex``,
``apply_over_axes``, ``histogram2d``, ``histogramdd`` and ``einsum_path``,
with the semantics of ``jax.numpy`` 0.10.2.

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(packbits, S((10,), "bool")).shape
(2,)
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import check_arraylike, promote_dtypes, promote_dtypes_inexact
from ._creation import asarray
from ._histograms import Bins, histogram_bin_edges
from ._numpy_more import ravel_multi_index
from ._numpy_poly import ix_
from ._pad import pad
from ._ranges import arange
from ._reductions import cumsum
from ._reductions import sum as _sum
from ._sequences import diff
from ._setops import bincount
from ._shape_ops import atleast_1d, concatenate, expand_dims, ravel, reshape, swapaxes, transpose
from ._shapes import canonicalize_axis
from ._sorting import searchsorted
from ._ufuncs import abs as _abs
from ._ufuncs import copysign, mod, nextafter
from ._where import where

__all__ = [
    "apply_over_axes", "einsum_path", "histogram2d", "histogramdd", "packbits",
    "sort_complex", "spacing", "unpackbits", "unwrap",
]  # fmt: skip


def _packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    check_arraylike("packbits", a)
    arr = asarray(a)
    if not (_dt.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = (arr != 0).astype(np.uint8)
    shifts = arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1]
    if axis is None:
        bits, axis = ravel(bits), 0
    bits = swapaxes(bits, axis, -1)
    rem = bits.shape[-1] % 8
    if rem:
        bits = pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, 8 - rem)])
    bits = reshape(bits, (*bits.shape[:-1], bits.shape[-1] // 8, 8))
    packed = _sum(bits << shifts, axis=-1).astype(np.uint8)
    return swapaxes(packed, axis, -1)


_packbits_jit = jit(_packbits, static_argnums=(1, 2))


def packbits(a: ArrayLike, axis: int | None = None, bitorder: str = "big") -> Array:
    """Pack the truth of each entry into the bits of ``uint8`` values.

    Args:
      a: an integer or boolean array (nonzero entries give 1 bits).
      axis: the axis to pack along (default: the flattened array).
      bitorder: ``"big"`` or ``"little"``.

    Returns:
      The ``uint8`` array, the packed axis shortened eightfold (rounded up).

    Raises:
      TypeError: ``a`` is not integer or boolean.
      ValueError: ``bitorder`` is neither ``"big"`` nor ``"little"``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: packbits(x, axis=0), S((9, 2), "int32")).shape
    (2, 2)
    """
    return unchanged(_packbits_jit(a, axis, bitorder))


def _unpackbits(
    a: Any, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Any:
    check_arraylike("unpackbits", a)
    arr = asarray(a)
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = asarray(np.uint8(1)) << arange(8, dtype=np.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    mask = expand_dims(bits, tuple(range(arr.ndim)))
    out = ((arr[..., None] & mask) > 0).astype(np.uint8)
    out = reshape(out, (*out.shape[:-2], -1))
    if count is not None:
        if count > out.shape[-1]:
            out = pad(out, [(0, 0)] * (out.ndim - 1) + [(0, count - out.shape[-1])])
        else:
            out = out[..., :count]
    return swapaxes(out, axis, -1)


_unpackbits_jit = jit(_unpackbits, static_argnums=(1, 2, 3))


def unpackbits(
    a: ArrayLike, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Array:
    """Unpack the bits of ``uint8`` values into an array of 0s and 1s.

    Args:
      a: a ``uint8`` array.
      axis: the axis to unpack along (default: the flattened array).
      count: the number of bits to keep along the axis (padded with zeros
        when larger).
      bitorder: ``"big"`` or ``"little"``.

    Returns:
      The ``uint8`` bits.

    Raises:
      TypeError: ``a`` is not ``uint8``.
      ValueError: ``bitorder`` is neither ``"big"`` nor ``"little"``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: unpackbits(x, count=5), S((2,), "uint8")).shape
    (5,)
    """
    return unchanged(_unpackbits_jit(a, axis, count, bitorder))


def _spacing(x: Any, /) -> Any:
    check_arraylike("spacing", x)
    (arr,) = promote_dtypes_inexact(x)
    arr = asarray(arr)
    if _dt.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = np.asarray(np.inf, arr.dtype)
    if arr.dtype == np.float16:
        return nextafter(arr, inf) - arr
    out = nextafter(arr, copysign(inf, arr)) - arr
    tiny = np.asarray(_dt.finfo(arr.dtype).smallest_subnormal, arr.dtype)
    return where(out == 0, copysign(tiny, arr), out)


_spacing_jit = jit(_spacing)


def spacing(x: ArrayLike, /) -> Array:
    """The distance from ``x`` to the next float away from zero.

    Args:
      x: a real array (integers compute in the default float type).

    Returns:
      The spacing, signed like ``x``.

    Raises:
      ValueError: ``x`` is complex.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(spacing, S((3,), "int32")).dtype
    dtype('float32')
    """
    return unchanged(_spacing_jit(x))


def _unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
    check_arraylike("unwrap", p)
    promoted: list[Any] = promote_dtypes(asarray(p), period)
    arr, per = promoted
    arr = asarray(arr)
    if _dt.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    axis = canonicalize_axis(axis, arr.ndim)
    if arr.shape[axis] == 0:
        return arr
    if discont is None:
        discont = per / 2
    interval = per // 2 if _dt.issubdtype(arr.dtype, np.integer) else per / 2
    dd = diff(arr, axis=axis)
    ddmod = mod(dd + interval, per) - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = where(_abs(dd) < discont, 0, ddmod - dd)
    first = lax.slice_in_dim(arr, 0, 1, axis=axis)
    rest = lax.slice_in_dim(arr, 1, None, axis=axis) + cumsum(correction, axis=axis)
    return concatenate([first, rest], axis=axis)


_unwrap_jit = jit(_unwrap, static_argnums=(2,))


def unwrap(
    p: ArrayLike, discont: ArrayLike | None = None, axis: int = -1, period: ArrayLike = 2 * np.pi
) -> Array:
    """Unwrap a phase signal: replace jumps above ``discont`` by their ``period`` complement.

    Args:
      p: the signal.
      discont: the largest jump kept (default ``period / 2``).
      axis: the axis along which to unwrap.
      period: the period of the signal.

    Returns:
      The unwrapped signal.

    Raises:
      ValueError: ``p`` is complex.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(unwrap, S((4, 3), "float32")).shape
    (4, 3)
    """
    return unchanged(_unwrap_jit(p, discont, axis, period))


def _sort_complex(a: Any) -> Any:
    check_arraylike("sort_complex", a)
    arr = lax.sort(asarray(a))
    kind = arr.dtype
    if _dt.issubdtype(kind, np.complexfloating):
        return arr
    ftype = kind if _dt.issubdtype(kind, np.inexact) else _dt.canonicalize_dtype(np.float64)
    target = np.complex128 if ftype == np.float64 else np.complex64
    return lax.convert_element_type(arr, np.dtype(target))


_sort_complex_jit = jit(_sort_complex)


def sort_complex(a: ArrayLike) -> Array:
    """Sort ``a`` along its last axis (real part first, then imaginary) as complex values.

    Args:
      a: an array.

    Returns:
      The sorted values, with a complex dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(sort_complex, S((3,), "float32")).dtype
    dtype('complex64')
    """
    return unchanged(_sort_complex_jit(a))


def apply_over_axes(
    func: Callable[[Array, int], Array], a: ArrayLike, axes: Sequence[int]
) -> Array:
    """Apply ``func(a, axis)`` for each axis in turn, keeping the rank.

    Args:
      func: a function of an array and an axis (such as ``sum``).
      a: an array.
      axes: the axes, in order.

    Returns:
      The result, with the same rank as ``a``.

    Raises:
      ValueError: ``func`` returned a result of another rank.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> from tessela_numpy import sum
    >>> eval_shape(lambda x: apply_over_axes(sum, x, [0, 2]), S((2, 3, 4), "f4")).shape
    (1, 3, 1)
    """
    check_arraylike("apply_over_axes", a)
    arr = asarray(a)
    for axis in axes:
        b = asarray(func(arr, axis))
        if b.ndim == arr.ndim:
            arr = b
        elif b.ndim == arr.ndim - 1:
            arr = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return arr


def histogramdd(
    sample: ArrayLike,
    bins: Bins | Sequence[Bins] = 10,
    range: Sequence[Sequence[ArrayLike] | None] | None = None,
    weights: ArrayLike | None = None,
    density: bool | None = None,
) -> tuple[Array, list[Array]]:
    """The histogram of ``N`` points in ``D`` dimensions.

    Args:
      sample: an ``(N, D)`` array.
      bins: a bin count or edges, for all dimensions or one per dimension.
      range: one ``(low, high)`` pair (or None) per dimension.
      weights: one weight per point.
      density: normalise to a probability density.

    Returns:
      ``(hist, edges)``: the D-dimensional counts and the list of bin edges.

    Raises:
      ValueError: ``range``, ``bins`` or ``weights`` do not fit the sample.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda s: histogramdd(s, bins=3)[0], S((10, 2), "f4")).shape
    (3, 3)
    """
    if weights is None:
        check_arraylike("histogramdd", sample)
        (data,) = promote_dtypes_inexact(sample)
    else:
        check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        data, weights = promote_dtypes_inexact(sample, weights)
    data = asarray(data)
    n, d = data.shape
    if range is not None and (
        len(range) != d or any(r is not None and np.shape(cast(Any, r))[0] != 2 for r in range)
    ):
        raise ValueError(
            f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or Nones; "
            f"got range={range}"
        )
    try:
        per_dim = list(cast(Sequence[Bins], bins))  # a scalar raises TypeError
    except TypeError:
        per_dim = d * [cast(Bins, bins)]
    else:
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    idx_by_dim: list[Any] = []
    edges_by_dim: list[Any] = []
    for i in builtins.range(d):
        rng = None if range is None else range[i]
        edges = histogram_bin_edges(data[:, i], per_dim[i], rng, weights)
        idx = searchsorted(edges, data[:, i], side="right")
        idx_by_dim.append(where(data[:, i] == edges[-1], idx - 1, idx))
        edges_by_dim.append(edges)
    nbins = tuple(e.shape[0] + 1 for e in edges_by_dim)
    flat = ravel_multi_index(tuple(idx_by_dim), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = hist.astype(data.dtype)
        hist = hist / _sum(hist)
        for norm in ix_(*(diff(e) for e in edges_by_dim)):
            hist = hist / norm
    return hist, edges_by_dim


def histogram2d(
    x: ArrayLike,
    y: ArrayLike,
    bins: Bins | Sequence[Bins] = 10,
    range: Sequence[Sequence[ArrayLike] | None] | None = None,
    weights: ArrayLike | None = None,
    density: bool | None = None,
) -> tuple[Array, Array, Array]:
    """The 2-D histogram of points ``(x[i], y[i])``.

    Args:
      x: the first coordinates.
      y: the second coordinates.
      bins: a count or edges for both axes, or a pair of them.
      range: ``[(xmin, xmax), (ymin, ymax)]`` (or Nones).
      weights: one weight per point.
      density: normalise to a probability density.

    Returns:
      ``(hist, x_edges, y_edges)``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: histogram2d(a, b, bins=(2, 3))[0], S((5,), "f4"), S((5,), "f4")).shape
    (2, 3)
    """
    check_arraylike("histogram2d", x, y)
    try:
        count = len(cast(Sequence[Bins], bins))  # a scalar raises TypeError
    except TypeError:
        count = 1
    if count not in (1, 2):
        edges = asarray(bins)
        bins = [edges, edges]
    sample = transpose(
        asarray(concatenate([atleast_1d(asarray(x))[None], atleast_1d(asarray(y))[None]]))
    )
    hist, edges_list = histogramdd(sample, bins, range, weights, density)
    return hist, edges_list[0], edges_list[1]


def einsum_path(
    subscripts: str, /, *operands: ArrayLike, optimize: bool | str | list[tuple[int, ...]] = "auto"
) -> tuple[list[tuple[int, ...]], str]:
    """The pairwise contraction order for an ``einsum``, found by NumPy's path search.

    Args:
      subscripts: the ``einsum`` subscripts.
      *operands: the operands (only their shapes are read).
      optimize: ``"auto"``/``"optimal"``/``"greedy"``, True (optimal), False
        (left to right) or an explicit path.

    Returns:
      ``(path, description)``: the list of operand-index tuples and NumPy's
      text report of the contraction.

    >>> import numpy as np
    >>> einsum_path("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)))[0]
    [(0, 1), (0, 1)]
    """
    dummies = [np.broadcast_to(np.zeros((), np.float32), np.shape(op)) for op in operands]
    if optimize is False:
        n = len(operands)
        path: Any = ["einsum_path", *([(0, 1)] * (n - 1) if n > 1 else [(0,)])]
    elif optimize is True or optimize == "auto":
        path = "optimal" if len(operands) <= 4 else "greedy"
    elif isinstance(optimize, str):
        path = optimize
    else:
        path = ["einsum_path", *optimize]
    found, text = np.einsum_path(subscripts, *dummies, optimize=path)
    return [tuple(step) for step in found[1:]], text
