"""``tessela.scipy.signal``: convolutions, correlations, ``detrend`` and spectral analysis.

``convolve``, ``correlate``, their 2-D forms, ``fftconvolve`` and ``detrend``;
``stft``, ``istft``, ``csd`` and ``welch`` (``tessela._scipy_signal_spectral``).

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy import signal
    >>> print(signal.convolve(tnp.array([1.0, 1.0]), tnp.array([1.0, 1.0])))
    [1. 2. 1.]
"""

from tessela._scipy_signal import (
    convolve,
    convolve2d,
    correlate,
    correlate2d,
    detrend,
    fftconvolve,
)
from tessela._scipy_signal_spectral import csd, istft, stft, welch

__all__ = [
    "convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve",
    "istft", "stft", "welch",
]  # fmt: skip
