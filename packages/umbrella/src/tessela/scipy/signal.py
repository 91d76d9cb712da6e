"""``tessela.scipy.signal``: ``convolve``, ``correlate``, their 2-D forms, ``fftconvolve``, ``detrend``.

``stft``, ``istft``, ``csd`` and ``welch`` are not provided yet.

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

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "detrend", "fftconvolve"]
