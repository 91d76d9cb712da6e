"""``tessela_numpy.fft``: the discrete Fourier transforms of ``jax.numpy.fft``.

Every transform pads or truncates its input to the requested lengths, moves
the transformed axes last and binds one ``lax.fft`` (two when more than three
axes are transformed, which XLA's FFT does not do at once), then applies the
normalisation: ``"backward"`` (the default; inverse transforms scale by
``1/n``), ``"ortho"`` (both directions by ``1/sqrt(n)``) or ``"forward"``
(forward transforms scale by ``1/n``).

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(rfft, S((8,), "float32")).shape
(5,)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.lax import FftType
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike
from ._creation import arange, asarray
from ._shape_ops import concatenate, moveaxis
from ._shapes import canonicalize_axis
from ._tiling import pad, roll
from ._ufuncs import conj, multiply, true_divide

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift",
    "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]  # fmt: skip

_NORMS = (None, "backward", "ortho", "forward")
_INVERSE = (FftType.IFFT, FftType.IRFFT)


def _check_norm(norm: str | None) -> None:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _scale(out: Any, lengths: Sequence[int], norm: str | None, typ: FftType) -> Any:
    _check_norm(norm)
    n = math.prod(lengths)
    if norm in (None, "backward") or n == 0:
        return out
    inverse = typ in _INVERSE
    if norm == "ortho":
        factor = math.sqrt(n) if inverse else 1 / math.sqrt(n)
    else:  # "forward": the forward transform carries the 1/n, the inverse none
        factor = float(n) if inverse else 1 / n
    return multiply(out, np.asarray(factor, dtype=_dt.finfo(aval_of(out).dtype).dtype))


def _fit(a: Any, axes: Sequence[int], lengths: Sequence[int]) -> Any:
    """Truncate or zero-pad ``a`` along ``axes`` to ``lengths``."""
    shape = aval_of(a).shape
    for ax, n in zip(axes, lengths, strict=True):
        if shape[ax] > n:
            a = lax.slice_in_dim(a, 0, n, axis=ax)
        elif shape[ax] < n:
            widths = [(0, 0)] * len(shape)
            widths[ax] = (0, n - shape[ax])
            a = pad(a, widths)
        shape = aval_of(a).shape
    return a


def _transform(a: Any, typ: FftType, axes: Sequence[int], lengths: Sequence[int]) -> Any:
    """One ``lax.fft`` over ``axes`` (at most three), moved last and back."""
    k = len(axes)
    last = tuple(range(-k, 0))
    moved = moveaxis(a, tuple(axes), last)
    return moveaxis(lax.fft(moved, typ, tuple(lengths)), last, tuple(axes))


def _fftn(name: str, typ: FftType, a: Any, s: Sequence[int] | None,
          axes: Sequence[int] | None, norm: str | None) -> Any:  # fmt: skip
    check_arraylike(name, a)
    arr = asarray(a)
    ndim = aval_of(arr).ndim
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n < 1 for n in s):
            raise ValueError(f"Invalid number of FFT data points {s} specified.")
    if axes is None:
        axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
    axes = tuple(canonicalize_axis(ax, ndim) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name} does not support repeated axes. Got axes {axes}.")
    if not axes:
        return arr
    shape = aval_of(arr).shape
    if s is None:
        lengths = [shape[ax] for ax in axes]
        if typ == FftType.IRFFT:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    elif len(s) != len(axes):
        raise ValueError(
            f"Shape and axes have different lengths: s={s}, axes={axes}; pass one length per axis."
        )
    else:
        lengths = list(s)
    if typ == FftType.IRFFT and lengths[-1] < 1:
        raise ValueError(f"Invalid number of FFT data points {tuple(lengths)} specified.")
    stored = list(lengths)
    if typ == FftType.IRFFT:
        stored[-1] = lengths[-1] // 2 + 1
    arr = _fit(arr, axes, stored)
    # XLA transforms at most three axes at once: the rest go in a second call,
    # complex to complex, before an inverse real transform or after a forward one.
    head, tail = list(axes[:-3]), list(axes[-3:])
    head_n, tail_n = lengths[: len(head)], lengths[len(head) :]
    if head and typ == FftType.IRFFT:
        arr = _transform(arr, FftType.IFFT, head, head_n)
    out = _transform(arr, typ, tail, tail_n)
    if head and typ != FftType.IRFFT:
        out = _transform(out, FftType.IFFT if typ == FftType.IFFT else FftType.FFT, head, head_n)
    return _scale(out, lengths, norm, typ)


def _one_axis(name: str, typ: FftType, a: Any, n: int | None, axis: int,
              norm: str | None) -> Any:  # fmt: skip
    return _fftn(name, typ, a, None if n is None else (n,), (axis,), norm)


def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D discrete Fourier transform along ``axis``.

    Args:
      a: the input (converted to complex).
      n: the transform length: the input is truncated or zero-padded to it;
        by default its length along ``axis``.
      axis: the transformed axis.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex transform.
    """
    return unchanged(_one_axis("fft", FftType.FFT, a, n, axis, norm))


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of :func:`fft` along ``axis``.

    Args:
      a: the spectrum.
      n: the transform length (truncating or zero-padding the input).
      axis: the transformed axis.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex inverse transform.
    """
    return unchanged(_one_axis("ifft", FftType.IFFT, a, n, axis, norm))


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The transform of real input along ``axis``: its ``n // 2 + 1`` non-negative frequencies.

    Args:
      a: the real input.
      n: the transform length (truncating or zero-padding the input).
      axis: the transformed axis.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex half spectrum.
    """
    return unchanged(_one_axis("rfft", FftType.RFFT, a, n, axis, norm))


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of :func:`rfft`: real output of length ``n`` along ``axis``.

    Args:
      a: the half spectrum.
      n: the output length; by default ``2 * (a.shape[axis] - 1)``.
      axis: the transformed axis.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The real signal.
    """
    return unchanged(_one_axis("irfft", FftType.IRFFT, a, n, axis, norm))


_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swapped(norm: str | None) -> str:
    _check_norm(norm)
    return _SWAP[norm]


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The transform of a signal with Hermitian symmetry, given by its half: real output.

    Args:
      a: the first half of a Hermitian-symmetric signal.
      n: the output length; by default ``2 * (a.shape[axis] - 1)``.
      axis: the transformed axis.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The real spectrum.
    """
    return irfft(conj(asarray(a)), n, axis, _swapped(norm))


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of :func:`hfft`: the half of a Hermitian-symmetric signal.

    Args:
      a: the real spectrum.
      n: the transform length (truncating or zero-padding the input).
      axis: the transformed axis.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex half signal.
    """
    return unchanged(conj(rfft(a, n, axis, _swapped(norm))))


def fftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:  # fmt: skip
    """The N-D discrete Fourier transform over ``axes`` (by default all, or the last ``len(s)``).

    Args:
      a: the input.
      s: the lengths along ``axes`` (truncating or zero-padding).
      axes: the transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex transform.
    """
    return unchanged(_fftn("fftn", FftType.FFT, a, s, axes, norm))


def ifftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:  # fmt: skip
    """The inverse of :func:`fftn`.

    Args:
      a: the spectrum.
      s: the lengths along ``axes``.
      axes: the transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex inverse transform.
    """
    return unchanged(_fftn("ifftn", FftType.IFFT, a, s, axes, norm))


def rfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:  # fmt: skip
    """The N-D transform of real input; the last axis keeps ``s[-1] // 2 + 1`` entries.

    Args:
      a: the real input.
      s: the lengths along ``axes``.
      axes: the transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex half spectrum.
    """
    return unchanged(_fftn("rfftn", FftType.RFFT, a, s, axes, norm))


def irfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Array:  # fmt: skip
    """The inverse of :func:`rfftn`: real output of lengths ``s``.

    Args:
      a: the half spectrum.
      s: the output lengths along ``axes``; the last by default
        ``2 * (a.shape[axes[-1]] - 1)``.
      axes: the transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The real signal.
    """
    return unchanged(_fftn("irfftn", FftType.IRFFT, a, s, axes, norm))


def _two_axes(name: str, typ: FftType, a: Any, s: Sequence[int] | None,
              axes: Sequence[int], norm: str | None) -> Any:  # fmt: skip
    if len(tuple(axes)) != 2:
        raise ValueError(f"{name} takes exactly 2 axes, got axes={tuple(axes)}; use the n-D form.")
    return _fftn(name, typ, a, s, axes, norm)


def fft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Array:  # fmt: skip
    """:func:`fftn` over two axes (by default the last two).

    Args:
      a: the input.
      s: the two lengths.
      axes: the two transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex transform.
    """
    return unchanged(_two_axes("fft2", FftType.FFT, a, s, axes, norm))


def ifft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Array:  # fmt: skip
    """:func:`ifftn` over two axes (by default the last two).

    Args:
      a: the spectrum.
      s: the two lengths.
      axes: the two transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex inverse transform.
    """
    return unchanged(_two_axes("ifft2", FftType.IFFT, a, s, axes, norm))


def rfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Array:  # fmt: skip
    """:func:`rfftn` over two axes (by default the last two).

    Args:
      a: the real input.
      s: the two lengths.
      axes: the two transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The complex half spectrum.
    """
    return unchanged(_two_axes("rfft2", FftType.RFFT, a, s, axes, norm))


def irfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Array:  # fmt: skip
    """:func:`irfftn` over two axes (by default the last two).

    Args:
      a: the half spectrum.
      s: the two output lengths.
      axes: the two transformed axes.
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      The real signal.
    """
    return unchanged(_two_axes("irfft2", FftType.IRFFT, a, s, axes, norm))


def _freq_dtype(dtype: Any) -> Any:
    return _dt.canonicalize_dtype(dtype if dtype is not None else np.float64)


def fftfreq(
    n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike | None = None, device: object = None
) -> Array:
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``.

    Args:
      n: the transform length.
      d: the sample spacing.
      dtype: the result dtype (by default the default float type).
      device: accepted for the array API; must be None.

    Returns:
      ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)``.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: fftfreq(6)).shape
    (6,)
    """
    del device
    n = operator.index(n)
    dt = _freq_dtype(dtype)
    ks = concatenate([arange((n - 1) // 2 + 1, dtype=dt), arange(-(n // 2), 0, dtype=dt)])
    return unchanged(true_divide(ks, multiply(np.asarray(n, dt), d)).astype(dt))


def rfftfreq(
    n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike | None = None, device: object = None
) -> Array:
    """The non-negative sample frequencies of :func:`rfft`: ``[0, ..., n // 2] / (n * d)``.

    Args:
      n: the transform length.
      d: the sample spacing.
      dtype: the result dtype (by default the default float type).
      device: accepted for the array API; must be None.

    Returns:
      The ``n // 2 + 1`` frequencies.
    """
    del device
    n = operator.index(n)
    dt = _freq_dtype(dtype)
    return unchanged(
        true_divide(arange(n // 2 + 1, dtype=dt), multiply(np.asarray(n, dt), d)).astype(dt)
    )


def _shift(name: str, x: Any, axes: int | Sequence[int] | None, sign: int) -> Any:
    check_arraylike(name, x)
    x = asarray(x)
    shape = aval_of(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(canonicalize_axis(ax, len(shape)) for ax in axes)
    shifts = tuple(sign * (shape[ax] // 2) for ax in axes)
    return roll(x, shifts, axes) if axes else x


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero frequency to the centre: roll each axis by half its length.

    Args:
      x: the spectrum.
      axes: the axes shifted (by default all).

    Returns:
      The shifted array.
    """
    return unchanged(_shift("fftshift", x, axes, 1))


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of :func:`fftshift`.

    Args:
      x: the centred spectrum.
      axes: the axes shifted (by default all).

    Returns:
      The unshifted array.
    """
    return unchanged(_shift("ifftshift", x, axes, -1))
