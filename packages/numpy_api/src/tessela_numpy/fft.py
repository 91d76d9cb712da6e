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
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.lax import FftType
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike
from ._creation import asarray
from ._pad import pad
from ._ranges import arange
from ._shape_ops import concatenate, moveaxis
from ._shapes import canonicalize_axis, documented
from ._tiling import roll
from ._ufuncs import conj, multiply, true_divide

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift",
    "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]  # fmt: skip

_F = TypeVar("_F", bound=Callable[..., Any])
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


_FFT_DOC = """{summary}

    Args:
      a: {a}
      {length}
      {axes}
      norm: ``None``/``"backward"``, ``"ortho"`` or ``"forward"``.

    Returns:
      {returns}
    """
# Each transform's input and result, and the lengths' and axes' descriptions.
_KINDS = {
    "fft": ("the input.", "The complex transform."),
    "ifft": ("the spectrum.", "The complex inverse transform."),
    "rfft": ("the real input.", "The complex half spectrum."),
    "irfft": ("the half spectrum.", "The real signal."),
    "hfft": ("the first half of a Hermitian-symmetric signal.", "The real spectrum."),
    "ihfft": ("the real spectrum.", "The complex half signal."),
}
_AXES = (
    "axes: the transformed axes.",
    "axis: the transformed axis.",
    "axes: the two transformed axes.",
)
_N = "n: the transform length (truncating or zero-padding the input)."
_N_OUT = "n: the output length; by default ``2 * (a.shape[axis] - 1)``."
_N_FFT = (
    "n: the transform length: the input is truncated or zero-padded to it;\n"
    "        by default its length along ``axis``."
)
_S = "s: the lengths along ``axes``."
_S_TRUNC = "s: the lengths along ``axes`` (truncating or zero-padding)."
_S_OUT = (
    "s: the output lengths along ``axes``; the last by default\n"
    "        ``2 * (a.shape[axes[-1]] - 1)``."
)
_S2 = "s: the two lengths."


def _doc(summary: str, kind: str, length: str, axes: int = 1, *, a: str = "") -> Callable[[_F], _F]:
    # The docstring of a transform of ``kind`` over one axis (``axes=1``), two
    # or any number (``axes=0``), its lengths described by ``length``.
    a_doc, returns = _KINDS[kind]
    return documented(
        _FFT_DOC, summary=summary, a=a or a_doc, length=length, axes=_AXES[axes], returns=returns
    )


def _one_axis(name: str, typ: FftType, a: Any, n: int | None, axis: int,
              norm: str | None) -> Any:  # fmt: skip
    return _fftn(name, typ, a, None if n is None else (n,), (axis,), norm)


@_doc(
    "The 1-D discrete Fourier transform along ``axis``.",
    "fft",
    _N_FFT,
    a="the input (converted to complex).",
)
def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    return unchanged(_one_axis("fft", FftType.FFT, a, n, axis, norm))


@_doc("The inverse of :func:`fft` along ``axis``.", "ifft", _N)
def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    return unchanged(_one_axis("ifft", FftType.IFFT, a, n, axis, norm))


@_doc(
    "The transform of real input along ``axis``: its ``n // 2 + 1`` non-negative frequencies.",
    "rfft",
    _N,
)
def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    return unchanged(_one_axis("rfft", FftType.RFFT, a, n, axis, norm))


@_doc("The inverse of :func:`rfft`: real output of length ``n`` along ``axis``.", "irfft", _N_OUT)
def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    return unchanged(_one_axis("irfft", FftType.IRFFT, a, n, axis, norm))


_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swapped(norm: str | None) -> str:
    _check_norm(norm)
    return _SWAP[norm]


@_doc(
    "The transform of a signal with Hermitian symmetry, given by its half: real output.",
    "hfft",
    _N_OUT,
)
def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    return irfft(conj(asarray(a)), n, axis, _swapped(norm))


@_doc("The inverse of :func:`hfft`: the half of a Hermitian-symmetric signal.", "ihfft", _N)
def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    return unchanged(conj(rfft(a, n, axis, _swapped(norm))))


@_doc(
    "The N-D discrete Fourier transform over ``axes`` (by default all, or the last ``len(s)``).",
    "fft",
    _S_TRUNC,
    0,
)
def fftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_fftn("fftn", FftType.FFT, a, s, axes, norm))


@_doc("The inverse of :func:`fftn`.", "ifft", _S, 0)
def ifftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_fftn("ifftn", FftType.IFFT, a, s, axes, norm))


@_doc(
    "The N-D transform of real input; the last axis keeps ``s[-1] // 2 + 1`` entries.",
    "rfft",
    _S,
    0,
)
def rfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_fftn("rfftn", FftType.RFFT, a, s, axes, norm))


@_doc("The inverse of :func:`rfftn`: real output of lengths ``s``.", "irfft", _S_OUT, 0)
def irfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_fftn("irfftn", FftType.IRFFT, a, s, axes, norm))


def _two_axes(name: str, typ: FftType, a: Any, s: Sequence[int] | None,
              axes: Sequence[int], norm: str | None) -> Any:  # fmt: skip
    if len(tuple(axes)) != 2:
        raise ValueError(f"{name} takes exactly 2 axes, got axes={tuple(axes)}; use the n-D form.")
    return _fftn(name, typ, a, s, axes, norm)


@_doc(":func:`fftn` over two axes (by default the last two).", "fft", _S2, 2)
def fft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_two_axes("fft2", FftType.FFT, a, s, axes, norm))


@_doc(":func:`ifftn` over two axes (by default the last two).", "ifft", _S2, 2)
def ifft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_two_axes("ifft2", FftType.IFFT, a, s, axes, norm))


@_doc(":func:`rfftn` over two axes (by default the last two).", "rfft", _S2, 2)
def rfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_two_axes("rfft2", FftType.RFFT, a, s, axes, norm))


@_doc(
    ":func:`irfftn` over two axes (by default the last two).",
    "irfft",
    "s: the two output lengths.",
    axes=2,
)
def irfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Array:  # fmt: skip
    return unchanged(_two_axes("irfft2", FftType.IRFFT, a, s, axes, norm))


_FREQ_DOC = """{summary}

    Args:
      n: the transform length.
      d: the sample spacing.
      dtype: the result dtype (by default the default float type).
      device: accepted for the array API; must be None.

    Returns:
      {returns}
{example}    """


def _freq_args(n: int, dtype: DTypeLike | None) -> tuple[int, np.dtype[Any]]:
    # The length as an int and the dtype (by default the default float type).
    dt: np.dtype[Any] = _dt.canonicalize_dtype(dtype if dtype is not None else np.float64)
    return operator.index(n), dt


@documented(
    _FREQ_DOC,
    summary="The sample frequencies of an ``n``-point transform with sample spacing ``d``.",
    returns="``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)``.",
    example="""
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: fftfreq(6)).shape
    (6,)
""",
)
def fftfreq(
    n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike | None = None, device: object = None
) -> Array:
    del device
    n, dt = _freq_args(n, dtype)
    ks = concatenate([arange((n - 1) // 2 + 1, dtype=dt), arange(-(n // 2), 0, dtype=dt)])
    return unchanged(true_divide(ks, multiply(np.asarray(n, dt), d)).astype(dt))


@documented(
    _FREQ_DOC,
    summary="The non-negative sample frequencies of :func:`rfft`: ``[0, ..., n // 2] / (n * d)``.",
    returns="The ``n // 2 + 1`` frequencies.",
    example="",
)
def rfftfreq(
    n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike | None = None, device: object = None
) -> Array:
    del device
    n, dt = _freq_args(n, dtype)
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
