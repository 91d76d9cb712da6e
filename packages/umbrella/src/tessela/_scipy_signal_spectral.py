"""``jax.scipy.signal``'s spectral analysis: ``stft``, ``istft``, ``csd`` and ``welch``.

As JAX 0.10.2 computes them: the signal (moved so that time is the last axis,
extended at the boundaries and zero-padded when asked) is cut into
overlapping segments, each detrended, windowed and transformed with
``rfft`` (real one-sided) or ``fft`` (two-sided). ``stft`` scales by the
window's sum; ``csd`` multiplies one spectrum by the other's conjugate,
scales to a density or a spectrum, doubles the one-sided interior bins and
averages the segments (mean, or median corrected by its bias); ``welch`` is
the real part of ``csd(x, None)``. ``istft`` inverts ``stft`` by overlap-add
normalized by the summed squared window. The ``"hann"`` window is built here;
other named windows come from SciPy's ``get_window`` when SciPy is installed,
as in JAX.
"""

from __future__ import annotations

import functools
import importlib
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_numpy import fft as tnp_fft
from tessela_tracer import dtypes as _dtypes
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _inexact
from ._scipy_signal import detrend

__all__ = ["csd", "istft", "stft", "welch"]

_where: Callable[..., Any] = tnp.where  # the three-argument form: one array


def _complex_dtype(dtype: Any) -> np.dtype[Any]:
    return np.result_type(dtype, np.complex64)


def _axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % max(ndim, 1)


def _hann(n: int, dtype: Any) -> Any:
    if n == 1:
        return tnp.ones(1, dtype)
    return (tnp.sin(tnp.linspace(0, np.pi, n, endpoint=False)) ** 2).astype(dtype)


def _named_window(window: Any, n: int, dtype: Any) -> Any:
    if isinstance(window, str) and window == "hann":
        return _hann(n, dtype)
    try:
        scipy_signal = importlib.import_module("scipy.signal")
    except ImportError as err:
        raise ImportError(f"scipy must be available to use {window=}") from err
    return tnp.array(scipy_signal.get_window(window, n), dtype=dtype)


def _window_and_length(
    window: Any, nperseg: int | None, length: int, dtype: Any
) -> tuple[Any, int]:
    # SciPy's _triage_segments: a named window takes nperseg (default: the whole
    # signal, never more); an array window sets it.
    if isinstance(window, (str, tuple)):
        n = length if nperseg is None else int(nperseg)
        if n > length:
            warnings.warn(f"nperseg={n} is greater than input_length={length}, using "
                          f"nperseg={length}", stacklevel=4)  # fmt: skip
            n = length
        return _named_window(window, n, dtype), n
    win = tnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _odd_ext(x: Any, n: int) -> Any:
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(
            f"The extension length n ({n}) is too big. It must not exceed x.shape[axis]-1, "
            f"which is {x.shape[-1] - 1}."
        )
    first, last = x[..., :1], x[..., -1:]
    left = 2 * first - tnp.flip(x[..., 1 : n + 1], axis=-1)
    right = 2 * last - tnp.flip(x[..., -(n + 1) : -1], axis=-1)
    return tnp.concatenate((left, x, right), axis=-1)


def _extend(x: Any, boundary: str, n: int) -> Any:
    if boundary == "odd":
        return _odd_ext(x, n)
    widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    mode = {"even": "reflect", "constant": "edge", "zeros": "constant"}[boundary]
    return tnp.pad(x, widths, mode)


def _segments_fft(x: Any, win: Any, detrend_fn: Callable[[Any], Any], nperseg: int,
                  noverlap: int, nfft: int, twosided: bool) -> Any:  # fmt: skip
    if x.dtype.kind == "i":
        x = x.astype(win.dtype)
    if nperseg == 1 and noverlap == 0:
        segments = x[..., None]
    else:
        starts = tnp.arange(0, x.shape[-1] - nperseg + 1, nperseg - noverlap)
        cut = functools.partial(lax.dynamic_slice_in_dim, x, slice_size=nperseg, axis=-1)
        segments = vmap(cut, out_axes=-2)(starts)
    segments = detrend_fn(segments)
    if tnp.iscomplexobj(win):
        segments = segments.astype(_complex_dtype(segments.dtype))
    segments = win.reshape((1,) * (x.ndim - 1) + (1, nperseg)) * segments
    if twosided:
        return tnp_fft.fft(segments, n=nfft)
    return tnp_fft.rfft(segments.real, n=nfft)


def _detrend_fn(detrend_type: Any, axis: int) -> Callable[[Any], Any]:
    if isinstance(detrend_type, str):
        return functools.partial(detrend, type=detrend_type, axis=-1)
    if callable(detrend_type):
        if axis == -1:
            return detrend_type  # type: ignore[no-any-return]

        def moved(d: Array) -> Array:
            return tnp.moveaxis(detrend_type(tnp.moveaxis(d, axis, -1)), -1, axis)

        return moved
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _pad_end(x: Any, n: int) -> Any:
    return tnp.concatenate((x, tnp.zeros((*x.shape[:-1], n), x.dtype)), axis=-1)


def _spectral(x: Any, y: Any, fs: Any, window: Any, nperseg: int | None,
              noverlap: int | None, nfft: int | None, detrend_type: Any,
              return_onesided: bool, scaling: str, axis: int, mode: str,
              boundary: str | None = None, padded: bool = False) -> tuple[Any, Any, Any]:  # fmt: skip
    # SciPy's _spectral_helper as JAX 0.10.2 runs it (y None: auto-spectrum).
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in ("even", "odd", "constant", "zeros", None):
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         "['even', 'odd', 'constant', 'zeros', None]")  # fmt: skip
    if y is None:
        (x,) = _inexact(x)
        axis = _axis(axis, x.ndim)
        outer = x.shape[:axis] + x.shape[axis + 1 :]
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        x, y = _inexact(x, y)
        if x.ndim != y.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        axis = _axis(axis, x.ndim)
        try:
            outer = tnp.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1 :],
                                         y.shape[:axis] + y.shape[axis + 1 :])  # fmt: skip
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = _complex_dtype(x.dtype)
    freq_dtype = _dtypes.finfo(result_dtype).dtype
    if nperseg is not None:
        nperseg = operator.index(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _window_and_length(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    nfft = nperseg if nfft is None else operator.index(nfft)
    if x.size == 0 or (y is not None and y.size == 0):
        n = x.shape[axis] if y is None else min(x.shape[axis], y.shape[axis])
        shape = x.shape if y is None else (*outer[:axis], n, *outer[axis:])
        return (tnp.zeros(shape, freq_dtype), tnp.zeros(shape, freq_dtype),
                tnp.zeros(shape, result_dtype))  # fmt: skip
    x = tnp.moveaxis(x, axis, -1)
    if y is not None:
        if y.ndim > 1:
            y = tnp.moveaxis(y, axis, -1)
        if x.shape[-1] < y.shape[-1]:
            x = _pad_end(x, y.shape[-1] - x.shape[-1])
        elif y.shape[-1] < x.shape[-1]:
            y = _pad_end(y, x.shape[-1] - y.shape[-1])
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    signals = [x] if y is None else [x, y]
    if boundary is not None:
        signals = [_extend(s, boundary, nperseg // 2) for s in signals]
    if padded:
        extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
        signals = [_pad_end(s, extra) for s in signals]
    detrend_fn = _detrend_fn(detrend_type, axis)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = tnp.sqrt(scale)
    scale = tnp.asarray(scale).astype(_complex_dtype(tnp.asarray(scale).dtype))
    twosided = not return_onesided
    if return_onesided and any(tnp.iscomplexobj(s) for s in signals):
        twosided = True
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    freqs = (tnp_fft.fftfreq if twosided else tnp_fft.rfftfreq)(nfft, 1 / fs, dtype=freq_dtype)
    spectra = [_segments_fft(s, win, detrend_fn, nperseg, noverlap, nfft, twosided)
               for s in signals]  # fmt: skip
    if y is not None:
        result = tnp.conjugate(spectra[0]) * spectra[1]
    elif mode == "psd":
        result = tnp.conjugate(spectra[0]) * spectra[0]
    else:
        result = spectra[0]
    result = result * scale
    if not twosided and mode == "psd":
        result = result.at[..., 1 : None if nfft % 2 else -1].mul(2)
    length = signals[0].shape[-1]
    time = tnp.arange(nperseg / 2, length - nperseg / 2 + 1, step, dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, tnp.moveaxis(result, -1, axis)


def stft(
    x: ArrayLike,
    fs: ArrayLike = 1.0,
    window: str | tuple[Any, ...] | ArrayLike = "hann",
    nperseg: int = 256,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: str | bool | Callable[..., Any] = False,
    return_onesided: bool = True,
    boundary: str | None = "zeros",
    padded: bool = True,
    axis: int = -1,
) -> tuple[Array, Array, Array]:
    """The short-time Fourier transform (``scipy.signal.stft``).

    Args:
        x: the signal.
        fs: the sampling frequency.
        window: ``"hann"``, another SciPy window name or tuple, or a 1-D array.
        nperseg: the segment length (at most the signal's).
        noverlap: the overlap between segments (default ``nperseg // 2``).
        nfft: the FFT length (default ``nperseg``).
        detrend: False, ``"constant"``, ``"linear"`` or a function of a segment.
        return_onesided: a one-sided spectrum for real signals.
        boundary: extend the signal by ``"zeros"``, ``"even"``, ``"odd"``,
            ``"constant"`` or not (None).
        padded: zero-pad the end to a whole number of segments.
        axis: the time axis.

    Returns:
        ``(f, t, Zxx)``: frequencies, segment times and the transform (frequency
        on ``axis``, segments last).

    Example:
        >>> import tessela.numpy as tnp
        >>> f, t, z = stft(tnp.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0]), nperseg=4)
        >>> z.shape, z.dtype
        ((3, 5), dtype('complex64'))
    """
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     "spectrum", axis, "stft", boundary, padded)  # fmt: skip


def csd(
    x: ArrayLike,
    y: ArrayLike | None,
    fs: ArrayLike = 1.0,
    window: str | tuple[Any, ...] | ArrayLike = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: str | bool | Callable[..., Any] = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Array, Array]:
    """The cross power spectral density by Welch's method (``scipy.signal.csd``).

    Args:
        x: the first signal.
        y: the second signal (None: the power spectral density of ``x``).
        fs: the sampling frequency.
        window: ``"hann"``, another SciPy window name or tuple, or a 1-D array.
        nperseg: the segment length (default: the whole signal).
        noverlap: the overlap between segments (default ``nperseg // 2``).
        nfft: the FFT length (default ``nperseg``).
        detrend: ``"constant"``, ``"linear"``, False or a function of a segment.
        return_onesided: a one-sided spectrum for real signals.
        scaling: ``"density"`` (per Hz) or ``"spectrum"``.
        axis: the time axis.
        average: ``"mean"`` or ``"median"`` over the segments.

    Returns:
        ``(f, Pxy)``.

    Raises:
        ValueError: an unknown ``average``, ``scaling`` or bad segment sizes.

    Example:
        >>> import tessela.numpy as tnp
        >>> f, p = csd(tnp.arange(8.0), tnp.ones(8), nperseg=4)
        >>> f.shape, p.dtype
        ((3,), dtype('complex64'))
    """
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")  # fmt: skip
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                evens = tnp.arange(2.0, pxy.shape[-1], 2)
                bias = 1 + tnp.sum(1.0 / (evens + 1) - 1.0 / evens)
                if tnp.iscomplexobj(pxy):
                    pxy = (tnp.median(pxy.real, axis=-1)
                           + 1j * tnp.median(pxy.imag, axis=-1))  # fmt: skip
                else:
                    pxy = tnp.median(pxy, axis=-1)
                pxy = pxy / bias.astype(pxy.dtype)
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = pxy.reshape(pxy.shape[:-1])
    return freqs, pxy


def welch(
    x: ArrayLike,
    fs: ArrayLike = 1.0,
    window: str | tuple[Any, ...] | ArrayLike = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: str | bool | Callable[..., Any] = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Array, Array]:
    """The power spectral density by Welch's method (``scipy.signal.welch``).

    Args:
        x: the signal.
        fs: the sampling frequency.
        window: ``"hann"``, another SciPy window name or tuple, or a 1-D array.
        nperseg: the segment length (default: the whole signal).
        noverlap: the overlap between segments (default ``nperseg // 2``).
        nfft: the FFT length (default ``nperseg``).
        detrend: ``"constant"``, ``"linear"``, False or a function of a segment.
        return_onesided: a one-sided spectrum for real signals.
        scaling: ``"density"`` (per Hz) or ``"spectrum"``.
        axis: the time axis.
        average: ``"mean"`` or ``"median"`` over the segments.

    Returns:
        ``(f, Pxx)``, ``Pxx`` real.

    Example:
        >>> import tessela.numpy as tnp
        >>> f, p = welch(tnp.array([1.0, -1.0] * 8), nperseg=8)
        >>> print(f)
        [0.    0.125 0.25  0.375 0.5  ]
        >>> int(tnp.argmax(p))
        4
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)  # fmt: skip
    return freqs, pxx.real


def _overlap_add(x: Any, step: int) -> Any:
    # (..., frames, frame_length) -> (..., step * (frames - 1) + frame_length), as
    # tf.signal.overlap_and_add: split each frame into ``chunks`` pieces of
    # ``step`` samples, lay the pieces of piece-row j out with a stride one row
    # shorter than theirs (so frame i's piece j lands at output row i + j), sum.
    *batch, frames, length = x.shape
    flat = int(np.prod(batch))
    chunks = 1 + (length - 1) // step
    x = x.reshape((flat, frames, length))
    x = tnp.pad(x, ((0, 0), (0, 0), (0, chunks * step - length)))
    x = x.reshape((flat, frames, chunks, step)).transpose((0, 2, 1, 3))
    x = tnp.pad(x, ((0, 0), (0, 0), (0, frames), (0, 0)))
    rows = 2 * frames - 1
    x = x.reshape((flat, -1))[:, : chunks * rows * step].reshape((flat, chunks, rows * step))
    x = x.sum(axis=1)[:, : step * (frames - 1) + length]
    return x.reshape((*batch, -1))


def istft(
    Zxx: ArrayLike,
    fs: ArrayLike = 1.0,
    window: str | tuple[Any, ...] | ArrayLike = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    input_onesided: bool = True,
    boundary: bool = True,
    time_axis: int = -1,
    freq_axis: int = -2,
) -> tuple[Array, Array]:
    """The inverse short-time Fourier transform (``scipy.signal.istft``).

    Args:
        Zxx: the STFT (at least 2-D).
        fs: the sampling frequency.
        window: ``"hann"``, another SciPy window name or tuple, or a 1-D array.
        nperseg: the segment length (default: from ``Zxx``'s frequency axis).
        noverlap: the overlap between segments (default ``nperseg // 2``).
        nfft: the FFT length (default: from ``Zxx``).
        input_onesided: ``Zxx`` holds a one-sided spectrum.
        boundary: the signal was extended at both ends by ``stft``.
        time_axis: the segment axis of ``Zxx``.
        freq_axis: the frequency axis of ``Zxx``.

    Returns:
        ``(t, x)``: the sample times and the reconstructed signal.

    Raises:
        ValueError: ``Zxx`` below 2-D, equal axes, or inconsistent sizes.

    Example:
        >>> import tessela.numpy as tnp
        >>> x = tnp.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
        >>> print(tnp.round(istft(stft(x, nperseg=4)[2])[1], 5))
        [1. 2. 3. 2. 1. 0. 1. 2.]
    """
    Zxx = tnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = _axis(freq_axis, Zxx.ndim)
    time_axis = _axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = Zxx.astype(_complex_dtype(Zxx.dtype))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg = operator.index(nperseg or n_default)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    nfft = operator.index(nfft)
    if nfft < nperseg:
        raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
    noverlap = operator.index(noverlap or nperseg // 2)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in (time_axis, freq_axis))
        Zxx = tnp.transpose(Zxx, (*outer, freq_axis, time_axis))
    inverse = tnp_fft.irfft if input_onesided else tnp_fft.ifft
    frames = inverse(Zxx, axis=-2, n=nfft)[..., :nperseg, :]
    if isinstance(window, (str, tuple)):
        win = _named_window(window, nperseg, frames.dtype)
    else:
        win = tnp.asarray(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    frames = frames * win.sum()
    win = lax.expand_dims(win, (*range(frames.ndim - 2), frames.ndim - 1))
    x = _overlap_add(tnp.swapaxes(frames * win, -2, -1), nperseg - noverlap)
    norm = _overlap_add(tnp.swapaxes(tnp.repeat(win * win, frames.shape[-1], axis=-1), -2, -1),
                        nperseg - noverlap)  # fmt: skip
    if boundary:
        x = x[..., nperseg // 2 : -(nperseg // 2)]
        norm = norm[..., nperseg // 2 : -(nperseg // 2)]
    x = x / _where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = tnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    time = tnp.arange(x.shape[0], dtype=_dtypes.finfo(x.dtype).dtype) / fs
    return time, x
