"""JVP and transpose rules of ``fft``.

``fft`` is linear in its operand, so its tangent is the same transform of
the input tangent. Transposes follow JAX's convention for complex linear maps
(the plain transpose, no conjugation):

- ``FFT`` and ``IFFT``: the DFT matrix is symmetric, so each transposes to
  itself, the same transform of the cotangent.
- ``RFFT``: its output keeps ``m = n // 2 + 1`` entries of the last axis; the
  others are conjugates of kept ones and count twice. The transpose divides
  the conjugated cotangent by a mask (1 at the zero frequency and, for even
  ``n``, at the Nyquist entry; 2 elsewhere), takes its ``IRFFT`` and scales by
  ``prod(fft_lengths)``.
- ``IRFFT``: the ``RFFT`` of the cotangent, times the same mask (the kept
  entries stand for their conjugate partners too) and ``1 / prod(fft_lengths)``,
  conjugated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.lax import FftType

from tessela_autodiff._rule_helpers import deflinear2

__all__: list[str] = []


def _half_spectrum_mask(m: int, n: int, shape: Sequence[int], dtype: Any) -> Any:
    """The multiplicity of each kept entry of a length-``n`` real transform, broadcast."""
    mask = np.full(m, 2.0, dtype)
    mask[0] = 1.0
    if n % 2 == 0:
        mask[m - 1] = 1.0
    return lax.broadcast_in_dim(mask, tuple(shape), (len(shape) - 1,))


def _rfft_transpose(ct: Any, fft_lengths: tuple[int, ...]) -> Any:
    ct_aval = get_aval_of(ct)
    mask = _half_spectrum_mask(ct_aval.shape[-1], fft_lengths[-1], ct_aval.shape, ct_aval.dtype)
    out = lax.fft(lax.div(lax.conj(ct), mask), FftType.IRFFT, fft_lengths)
    return lax.mul(out, np.array(math.prod(fft_lengths), get_aval_of(out).dtype))


def _irfft_transpose(ct: Any, fft_lengths: tuple[int, ...]) -> Any:
    x = lax.fft(ct, FftType.RFFT, fft_lengths)
    x_aval = get_aval_of(x)
    mask = _half_spectrum_mask(x_aval.shape[-1], fft_lengths[-1], x_aval.shape, x_aval.dtype)
    scale = np.array(1 / math.prod(fft_lengths), x_aval.dtype)
    return lax.conj(lax.mul(lax.mul(mask, x), scale))


def _fft_transpose(
    ct: Any, operand: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> list[Any]:
    del operand
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [lax.fft(ct, fft_type, fft_lengths)]


deflinear2(P.fft_p, _fft_transpose)
