"""Fast Fourier transforms: ``fft_p``, its :class:`FftType` and ``lax.fft``.

``fft_p`` transforms the trailing ``len(fft_lengths)`` axes of its operand.
Its parameters are JAX 0.10.2's: ``fft_type``, one of

- ``FFT``: complex to complex, forward;
- ``IFFT``: complex to complex, inverse (scaled by ``1 / prod(fft_lengths)``);
- ``RFFT``: real to complex, forward, keeping ``fft_lengths[-1] // 2 + 1``
  entries of the last axis (the rest follow by Hermitian symmetry);
- ``IRFFT``: complex to real, the inverse of ``RFFT``, reading
  ``fft_lengths[-1] // 2 + 1`` entries of the last axis and returning
  ``fft_lengths[-1]``;

and ``fft_lengths``, the lengths of the transformed axes (a tuple of ints).
The ``lax.fft`` wrapper converts the operand to the dtype the transform needs
and stages its work as a ``jit`` named ``fft``, as JAX does.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._jit import jit
from tessela_tracer._lax import convert_element_type
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["FftType", "fft", "fft_p"]


class FftType(enum.IntEnum):
    """Which transform ``fft`` computes (printed in jaxprs as its number)."""

    FFT = 0
    """Forward complex-to-complex transform."""

    IFFT = 1
    """Inverse complex-to-complex transform."""

    RFFT = 2
    """Forward real-to-complex transform."""

    IRFFT = 3
    """Inverse complex-to-real transform."""


_NAMES = {
    "fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT, "irfft": FftType.IRFFT,
}  # fmt: skip


def _fft_type(fft_type: Any) -> FftType:
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        name = fft_type.lower()
        if name in _NAMES and fft_type in (name, name.upper()):
            return _NAMES[name]
        raise ValueError(f"Unknown FFT type '{fft_type}'")
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


def _complex_of(dt: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.complex128) if dt.itemsize == 8 else np.dtype(np.complex64)


def _fft_rule(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> ShapedArray:
    k = len(fft_lengths)
    if k > x.ndim:
        raise ValueError(
            f"FFT input shape {x.shape} must have at least as many input dimensions as "
            f"fft_lengths {fft_lengths}."
        )
    lead, minor = x.shape[: x.ndim - k], x.shape[x.ndim - k :]
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != fft_lengths:
            raise ValueError(
                f"RFFT input shape {x.shape} minor dimensions must be equal to fft_lengths "
                f"{fft_lengths}"
            )
        shape = (*lead, *fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, _complex_of(x.dtype), x.weak_type)
    if not _dtypes.issubdtype(x.dtype, np.complexfloating):
        what = "IRFFT" if fft_type == FftType.IRFFT else "FFT"
        raise ValueError(f"{what} input must be complex64 or complex128, got {x.dtype}")
    if fft_type == FftType.IRFFT:
        if minor[:-1] != fft_lengths[:-1]:
            raise ValueError(
                f"IRFFT input shape {x.shape} minor dimensions must be equal to all except "
                f"the last fft_length, got fft_lengths={fft_lengths}"
            )
        real = np.dtype(np.float64) if x.dtype == np.complex128 else np.dtype(np.float32)
        return ShapedArray((*lead, *fft_lengths), real, x.weak_type)
    if minor != fft_lengths:
        raise ValueError(
            f"FFT input shape {x.shape} minor dimensions must be equal to fft_lengths {fft_lengths}"
        )
    return x


fft_p = Primitive("fft")
register_abstract_eval(fft_p, _fft_rule)


def _inexact_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    if _dtypes.issubdtype(dt, np.inexact):
        return dt
    return _dtypes.canonicalize_dtype(np.float64)


def _complex_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    inexact = _inexact_dtype(dt)
    wide = inexact in (np.dtype(np.float64), np.dtype(np.complex128))
    return _dtypes.canonicalize_dtype(np.complex128 if wide else np.complex64)


def _fft(operand: ArrayLike, fft_type: FftType, fft_lengths: tuple[int, ...]) -> Array:
    dt = _aval(operand).dtype
    if fft_type == FftType.RFFT:
        if _dtypes.issubdtype(dt, np.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(operand, _inexact_dtype(dt))
    else:
        x = convert_element_type(operand, _complex_dtype(dt))
    if not fft_lengths:
        return x
    out: Array = fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)
    return out


_fft.__name__ = _fft.__qualname__ = "fft"
_fft_jit = jit(_fft, static_argnums=(1, 2))


def fft(x: ArrayLike, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Array:
    """The discrete Fourier transform of the trailing ``len(fft_lengths)`` axes.

    Args:
      x: the operand. ``RFFT`` takes real values (integers are converted to
        the default float type); the other types convert ``x`` to complex.
      fft_type: an :class:`FftType` or its name (``"fft"``, ``"IFFT"``, ...).
      fft_lengths: the lengths of the transformed axes: the trailing axes of
        ``x`` (for ``IRFFT``: the logical lengths, the last one's input
        holding ``fft_lengths[-1] // 2 + 1`` entries). Empty: ``x`` converted.

    Returns:
      The transform: complex for ``FFT``, ``IFFT`` and ``RFFT``, real for ``IRFFT``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.fft(x, "rfft", (8,)))(np.ones(8, np.float32)))
        { lambda ; a:f32[8]. let
            b:c64[5] = jit[
              name=fft
              jaxpr={ lambda ; a:f32[8]. let
                  b:c64[5] = fft[fft_lengths=(8,) fft_type=2] a
                in (b,) }
            ] a
          in (b,) }
    """
    typ = _fft_type(fft_type)
    lengths = tuple(operator.index(n) for n in fft_lengths)
    out: Array = _fft_jit(x, typ, lengths)
    return out
