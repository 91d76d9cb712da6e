"""``jax.scipy.signal``: convolutions, correlations and ``detrend``, with JAX 0.10.2's algorithms.

``convolve``/``convolve2d`` are one ``lax.conv_general_dilated`` (the smaller
operand flipped, padded for ``full``, ``same`` or ``valid``), ``fftconvolve``
multiplies spectra (``rfftn``/``irfftn``, or the complex transforms for complex
inputs), ``correlate``/``correlate2d`` convolve with the flipped conjugate, and
``detrend`` removes a mean or piecewise least-squares lines.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_numpy import fft as tnp_fft
from tessela_numpy import linalg as tnp_linalg
from tessela_tracer import lax
from tessela_tracer.lax import PrecisionLike
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _inexact

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "detrend", "fftconvolve"]

_MODES = ("full", "same", "valid")


def _fftconvolve_unbatched(in1: Any, in2: Any, mode: str) -> Any:
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if mode == "valid":
        no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
        swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
        if not (no_swap or swap):
            raise ValueError(
                "For 'valid' mode, One input must be at least as large as the other in every "
                "dimension."
            )
        if swap:
            in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True)):
        conv = in1 * in2
    elif tnp.iscomplexobj(in1):
        conv = tnp_fft.ifftn(
            tnp_fft.fftn(in1, full_shape) * tnp_fft.fftn(in2, full_shape), full_shape
        )
    else:
        spectrum = tnp_fft.rfftn(in1, full_shape) * tnp_fft.rfftn(in2, full_shape)
        conv = tnp_fft.irfftn(spectrum, full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    starts = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape, strict=True))
    return lax.dynamic_slice(conv, starts, out_shape)


def fftconvolve(
    in1: ArrayLike, in2: ArrayLike, mode: str = "full", axes: Sequence[int] | None = None
) -> Array:
    """Convolve two N-dimensional arrays with FFTs.

    Args:
        in1: the first array.
        in2: the second array, of the same rank.
        mode: ``"full"``, ``"same"`` (``in1``'s shape) or ``"valid"``.
        axes: the axes to convolve over (the others are mapped and must match).

    Returns:
        The convolution.

    Raises:
        ValueError: ranks that differ, an unknown mode, or mapped axes that differ.

    Example:
        >>> out = fftconvolve(tnp.array([1.0, 2.0, 3.0]), tnp.array([0.0, 1.0, 0.5]))
        >>> print(tnp.round(out, 4))
        [0.  1.  2.5 4.  1.5]
    """
    in1, in2 = _inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    conv = functools.partial(_fftconvolve_unbatched, mode=mode)
    if axes is None:
        return cast(Array, conv(in1, in2))
    axes_t = (axes,) if isinstance(axes, int) else tuple(axes)
    axes_t = tuple(operator.index(ax) % in1.ndim for ax in axes_t)
    mapped = set(range(in1.ndim)) - set(axes_t)
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(
            f"mapped axes must have same shape; got in1.shape={in1.shape} "
            f"in2.shape={in2.shape} axes={axes_t}"
        )
    fn: Any = conv
    for ax in sorted(mapped):
        fn = vmap(fn, in_axes=ax, out_axes=ax)
    return cast(Array, fn(in1, in2))


def _convolve_nd(in1: Any, in2: Any, mode: str, *, precision: Any) -> Any:
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    in1, in2 = tnp.asarray(in1), tnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(
            "zero-size arrays not supported in convolutions, got shapes "
            f"{in1.shape} and {in2.shape}."
        )
    in1, in2 = _inexact(in1, in2)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    in2 = tnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        padding = [
            (s - 1 - (s_o - 1) // 2, s - s_o + (s_o - 1) // 2)
            for s, s_o in zip(shape, shape_o, strict=True)
        ]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    strides = tuple(1 for _ in shape)
    out = lax.conv_general_dilated(
        in1[None, None], in2[None, None], strides, padding, precision=precision
    )
    return out[0, 0]


def convolve(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: str = "full",
    method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """Convolve two N-dimensional arrays.

    Args:
        in1: the first array.
        in2: the second array, of the same rank.
        mode: ``"full"``, ``"same"`` or ``"valid"``.
        method: ``"auto"`` or ``"direct"`` (a convolution), or ``"fft"``.
        precision: the convolution's precision.

    Returns:
        The convolution.

    Raises:
        ValueError: an unknown method or mode, or shapes that do not nest.

    Example:
        >>> print(convolve(tnp.array([1.0, 2.0, 3.0]), tnp.array([0.0, 1.0, 0.5])))
        [0.  1.  2.5 4.  1.5]
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return cast(Array, _convolve_nd(in1, in2, mode, precision=precision))
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def _check_2d(name: str, in1: Any, in2: Any, boundary: str, fillvalue: float) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(
    in1: ArrayLike, in2: ArrayLike, mode: str = "full", boundary: str = "fill", fillvalue: float = 0,
    precision: PrecisionLike = None,
) -> Array:  # fmt: skip
    """Convolve two 2-D arrays (zero fill at the boundary only, as in JAX).

    Args:
        in1: a matrix.
        in2: a matrix.
        mode: ``"full"``, ``"same"`` or ``"valid"``.
        boundary: ``"fill"`` only.
        fillvalue: 0 only.
        precision: the convolution's precision.

    Returns:
        The 2-D convolution.

    Raises:
        NotImplementedError: another boundary or fill value.
        ValueError: inputs that are not 2-D.

    Example:
        >>> print(convolve2d(tnp.ones((2, 2)), tnp.ones((2, 2))))
        [[1. 2. 1.]
         [2. 4. 2.]
         [1. 2. 1.]]
    """
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return cast(Array, _convolve_nd(in1, in2, mode, precision=precision))


def correlate(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: str = "full",
    method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """Cross-correlate two N-dimensional arrays: ``convolve(in1, flip(conj(in2)))``.

    Args:
        in1: the first array.
        in2: the second array, of the same rank.
        mode: ``"full"``, ``"same"`` or ``"valid"``.
        method: ``"auto"``, ``"direct"`` or ``"fft"``.
        precision: the convolution's precision.

    Returns:
        The cross-correlation.

    Example:
        >>> print(correlate(tnp.array([1.0, 2.0, 3.0]), tnp.array([0.0, 1.0, 0.5])))
        [0.5 2.  3.5 3.  0. ]
    """
    in2 = tnp.asarray(in2)
    return convolve(in1, tnp.flip(in2.conj()), mode, precision=precision, method=method)


def correlate2d(
    in1: ArrayLike, in2: ArrayLike, mode: str = "full", boundary: str = "fill", fillvalue: float = 0,
    precision: PrecisionLike = None,
) -> Array:  # fmt: skip
    """Cross-correlate two 2-D arrays (zero fill at the boundary only, as in JAX).

    Args:
        in1: a matrix.
        in2: a matrix.
        mode: ``"full"``, ``"same"`` or ``"valid"``.
        boundary: ``"fill"`` only.
        fillvalue: 0 only.
        precision: the convolution's precision.

    Returns:
        The 2-D cross-correlation.

    Raises:
        NotImplementedError: another boundary or fill value.
        ValueError: inputs that are not 2-D.

    Example:
        >>> print(correlate2d(tnp.eye(2), tnp.ones((1, 1))))
        [[1. 0.]
         [0. 1.]]
    """
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = tnp.asarray(in1), tnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    same_shape = all(s1 == s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    conv = functools.partial(_convolve_nd, mode=mode, precision=precision)
    if mode == "same":
        return tnp.flip(conv(tnp.flip(in1), in2.conj()))
    if mode == "valid":
        if swap and not same_shape:
            return cast(Array, conv(tnp.flip(in2), in1.conj()))
        return tnp.flip(conv(tnp.flip(in1), in2.conj()))
    if swap:
        return cast(Array, conv(tnp.flip(in2), in1.conj()).conj())
    return tnp.flip(conv(tnp.flip(in1), in2.conj()))


def detrend(
    data: ArrayLike,
    axis: int = -1,
    type: str = "linear",
    bp: ArrayLike = 0,
    overwrite_data: None = None,
) -> Array:
    """Remove the mean (``type="constant"``) or a least-squares line per segment (``"linear"``).

    Args:
        data: the signal.
        axis: the axis along which to detrend.
        type: ``"linear"`` or ``"constant"``.
        bp: breakpoints (indices) between the linear segments.
        overwrite_data: must be None.

    Returns:
        The detrended data.

    Raises:
        NotImplementedError: ``overwrite_data`` given.
        ValueError: an unknown ``type``, or breakpoints outside the data.

    Example:
        >>> print(detrend(tnp.array([1.0, 2.0, 3.0]), type="constant"))
        [-1.  0.  1.]
    """
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (arr,) = _inexact(data)
    if type == "constant":
        return arr - arr.mean(axis, keepdims=True)
    n = arr.shape[axis]
    bp_arr = np.sort(np.unique(np.r_[0, bp, n]))
    if bp_arr[0] < 0 or bp_arr[-1] > n:
        raise ValueError(
            "Breakpoints must be non-negative and less than length of data along given axis."
        )
    arr = tnp.moveaxis(arr, axis, 0)
    shape = arr.shape
    arr = arr.reshape(n, -1)
    pieces = []
    for m in range(len(bp_arr) - 1):
        npts = int(bp_arr[m + 1] - bp_arr[m])
        design = tnp.vstack([
            tnp.ones(npts, dtype=arr.dtype), tnp.arange(1, npts + 1, dtype=arr.dtype) / npts,
        ]).T  # fmt: skip
        segment = arr[int(bp_arr[m]) : int(bp_arr[m + 1])]
        coef = tnp_linalg.lstsq(design, segment)[0]
        pieces.append(segment - tnp.matmul(design, coef, precision=lax.Precision.HIGHEST))
    arr = tnp.concatenate(pieces, axis=0)
    return tnp.moveaxis(arr.reshape(shape), 0, axis)
