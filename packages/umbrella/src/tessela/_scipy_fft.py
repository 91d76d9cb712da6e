"""``jax.scipy.fft``: the type-2 discrete cosine transform and its inverse, as JAX 0.10.2 computes them.

``dct`` reorders the input (even entries, then the odd ones reversed), takes
one FFT and rotates by :math:`e^{-i \\pi k / 2N}`; ``dctn`` pairs axes through
a two-dimensional FFT; ``idct`` undoes the rotation and the reordering.
``norm`` is ``None``/``"backward"`` or ``"ortho"``. Only type 2 exists, as in JAX.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_numpy import fft as tnp_fft
from tessela_tracer import dtypes, lax
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["dct", "dctn", "idct", "idctn"]


def _w4(n: int, k: Any) -> Any:
    dtype = np.complex128 if k.dtype == np.float64 else np.complex64
    return tnp.exp(-0.5j * np.pi * k.astype(dtype) / n)


def _interleave(x: Any, axis: int) -> Any:
    v0 = lax.slice_in_dim(x, None, None, 2, axis)
    v1 = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([v0, v1], axis)


def _deinterleave(x: Any, axis: int) -> Any:
    half = math.ceil(x.shape[axis] / 2)
    v0 = lax.slice_in_dim(x, 0, half, 1, axis)
    v1 = lax.rev(lax.slice_in_dim(x, half, None, 1, axis), (axis,))
    # Put v0 at the even positions and v1 at the odd ones.
    n = x.shape[axis]
    order = np.empty(n, dtype=np.int32)
    order[0::2] = np.arange(half)
    order[1::2] = half + np.arange(n - half)
    return tnp.take(lax.concatenate([v0, v1], axis), order, axis=axis)


def _ortho(out: Array, axis: int) -> Array:
    n = out.shape[axis]
    factor = np.full(n, 2.0, out.dtype)
    factor[0] = 4.0
    shape = [1] * out.ndim
    shape[axis] = n
    return out / tnp.sqrt(factor.reshape(shape) * n)


def _check(name: str, type: int, norm: str | None) -> None:
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")


def _inexact(x: ArrayLike) -> Array:
    x = tnp.asarray(x)
    if not dtypes.issubdtype(x.dtype, np.inexact):
        x = x.astype(tnp.result_type(x.dtype, np.float32))
    return x


def _pad_axis(x: Array, axis: int, n: int) -> Array:
    pads = [(0, n - x.shape[a] if a == axis else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, np.array(0, x.dtype), pads)


def _k(n: int, ndim: int, axis: int, dtype: Any) -> Any:
    shape = [1] * ndim
    shape[axis] = n
    return tnp.arange(n, dtype=dtype).reshape(shape)


def dct(
    x: ArrayLike, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None
) -> Array:
    """The type-2 discrete cosine transform along ``axis``.

    Args:
        x: the input (real or complex: the parts are transformed separately).
        type: 2 (the only type implemented, as in JAX).
        n: zero-pad (or truncate) ``axis`` to this length first.
        axis: the axis.
        norm: ``None``/``"backward"`` (unscaled) or ``"ortho"``.

    Returns:
        The transform.

    Raises:
        NotImplementedError: another ``type``.
        ValueError: another ``norm``.

    Example:
        >>> print(tnp.round(dct(tnp.array([1.0, 2.0, 3.0])), 4))
        [12.     -3.4641  0.    ]
    """
    _check("dct", type, norm)
    x = tnp.asarray(x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(dct(x.real, type, n, axis, norm), dct(x.imag, type, n, axis, norm))
    x = _inexact(x)
    axis = axis % x.ndim
    if n is not None:
        x = _pad_axis(x, axis, n)
    size = x.shape[axis]
    spectrum = tnp_fft.fft(_interleave(x, axis), axis=axis)
    out = 2 * (spectrum * _w4(size, _k(size, x.ndim, axis, spectrum.real.dtype))).real
    return _ortho(out, axis) if norm == "ortho" else out


def _dct2(x: Array, axes: Sequence[int], norm: str | None) -> Array:
    axis1, axis2 = (a % x.ndim for a in axes)
    n1, n2 = x.shape[axis1], x.shape[axis2]
    spectrum = tnp_fft.fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    real = spectrum.real.dtype
    k1, k2 = _k(n1, x.ndim, axis1, real), _k(n2, x.ndim, axis2, real)
    flipped = tnp.roll(tnp.flip(spectrum, axis=axis2), shift=1, axis=axis2)
    out = _w4(n1, k1) * (_w4(n2, k2) * spectrum + _w4(n2, -k2) * flipped)
    out = 2 * out.real
    if norm == "ortho":
        return _ortho(_ortho(out, axis1), axis2)
    return cast(Array, out)


def _axes_and_sizes(
    x: Array, s: int | Sequence[int] | None, axes: Sequence[int] | None
) -> tuple[tuple[int, ...], list[int] | None]:
    sizes: list[int] | None = None
    if s is not None:
        sizes = list(s) if isinstance(s, Sequence) else [operator.index(s)]
        if len(sizes) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(sizes)}")
    if axes is None:
        count = len(sizes) if sizes is not None else x.ndim
        return tuple(range(x.ndim - count, x.ndim)), sizes
    return tuple(a % x.ndim for a in axes), sizes


def _transform_n(
    name: str,
    one_axis: Callable[..., Array],
    many_axes: Callable[[Array, tuple[int, ...], str | None], Array],
    x: ArrayLike,
    type: int,
    s: Sequence[int] | None,
    axes: Sequence[int] | None,
    norm: str | None,
) -> Array:
    # What dctn and idctn share: the checks, a complex input as two real
    # transforms, one axis as the 1-D transform, and the zero padding to ``s``
    # before ``many_axes`` transforms the padded array along ``axes``.
    _check(name, type, norm)
    x = tnp.asarray(x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        real, imag = (
            _transform_n(name, one_axis, many_axes, part, type, s, axes, norm)
            for part in (x.real, x.imag)
        )
        return lax.complex(real, imag)
    x = _inexact(x)
    axes_t, sizes = _axes_and_sizes(x, s, axes)
    if len(axes_t) == 1:
        return one_axis(x, n=sizes[0] if sizes is not None else None, axis=axes_t[0], norm=norm)
    if sizes is not None:
        for a, size in zip(axes_t, sizes, strict=False):
            x = _pad_axis(x, a, size)
    return many_axes(x, axes_t, norm)


def dctn(
    x: ArrayLike, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:  # fmt: skip
    """The multidimensional type-2 discrete cosine transform.

    Args:
        x: the input.
        type: 2 only.
        s: zero-pad the transformed axes to these lengths first.
        axes: the axes (the last ``len(s)``, or all, by default).
        norm: ``None``/``"backward"`` or ``"ortho"``.

    Returns:
        The transform.

    Raises:
        NotImplementedError: another ``type``.
        ValueError: another ``norm``, or ``s`` longer than ``x.ndim``.

    Example:
        >>> print(dctn(tnp.ones((2, 2))))
        [[16.  0.]
         [ 0.  0.]]
    """
    return _transform_n("dctn", dct, _dctn_axes, x, type, s, axes, norm)


def _dctn_axes(x: Array, axes: tuple[int, ...], norm: str | None) -> Array:
    if len(axes) == 2:
        return _dct2(x, axes, norm)
    for i in range(0, len(axes), 2):
        x = dctn(x, axes=axes[i : i + 2], norm=norm)
    return x


def idct(
    x: ArrayLike, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None
) -> Array:
    """The inverse of :func:`dct` (a type-3 transform, suitably scaled).

    Args:
        x: the input.
        type: 2 only.
        n: zero-pad ``axis`` to this length first.
        axis: the axis.
        norm: ``None``/``"backward"`` or ``"ortho"``.

    Returns:
        The inverse transform.

    Raises:
        NotImplementedError: another ``type``.
        ValueError: another ``norm``.

    Example:
        >>> print(tnp.round(idct(dct(tnp.array([1.0, 2.0, 3.0]))), 5))
        [1. 2. 3.]
    """
    _check("idct", type, norm)
    x = tnp.asarray(x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(idct(x.real, type, n, axis, norm), idct(x.imag, type, n, axis, norm))
    x = _inexact(x)
    axis = axis % x.ndim
    if n is not None:
        x = _pad_axis(x, axis, n)
    size = x.shape[axis]
    if norm is None or norm == "backward":
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    w4 = _w4(size, _k(size, x.ndim, axis, x.dtype))
    x = x.astype(w4.dtype) / w4 * (2 * size)
    return cast(Array, _deinterleave(tnp_fft.ifft(x, axis=axis).real, axis))


def idctn(
    x: ArrayLike, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:  # fmt: skip
    """The inverse of :func:`dctn`: :func:`idct` along each axis.

    Args:
        x: the input.
        type: 2 only.
        s: zero-pad the transformed axes to these lengths first.
        axes: the axes.
        norm: ``None``/``"backward"`` or ``"ortho"``.

    Returns:
        The inverse transform.

    Raises:
        NotImplementedError: another ``type``.
        ValueError: another ``norm``, or ``s`` longer than ``x.ndim``.

    Example:
        >>> print(tnp.round(idctn(dctn(tnp.eye(2))), 5) + 0.0)
        [[1. 0.]
         [0. 1.]]
    """
    return _transform_n("idctn", idct, _idctn_axes, x, type, s, axes, norm)


def _idctn_axes(x: Array, axes: tuple[int, ...], norm: str | None) -> Array:
    for a in axes:
        x = idct(x, axis=a, norm=norm)
    return x
