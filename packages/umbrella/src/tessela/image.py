"""``tessela.image``: image resampling, as ``jax.image``.

``resize`` and ``scale_and_translate`` resample an array along some of its
dimensions with JAX's algorithms: each resampled dimension gets a weight
matrix (input size x output size) built from the method's kernel evaluated
at the distances between output sample centres and input pixel centres,
with the kernel widened by the downscaling factor when ``antialias`` is on
(as in a band-limited resampling), columns normalised to sum to one and
samples outside the input zeroed; the image is then contracted with every
matrix in one ``einsum``. ``nearest`` picks ``floor((i + 0.5) * in / out)``.
``cubic`` is Keys' kernel (a = -0.5), ``cubic-pytorch`` OpenCV's / PyTorch's
(a = -0.75, edges replicated when not antialiased), ``lanczos3``/``5`` the
windowed sinc, ``area`` the box overlap.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela import image
    >>> print(image.resize(tnp.array([0.0, 1.0]), (4,), "linear"))
    [0.   0.25 0.75 1.  ]
"""

from __future__ import annotations

import enum
import math
import string
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from tessela_lowering import jit
from tessela_tracer import dtypes
from tessela_tracer.lax import PrecisionLike
from tessela_tracer.typing import Array, ArrayLike

from . import lax
from . import numpy as tnp

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]

_EPS = 1000.0 * float(np.finfo(np.float32).eps)


class ResizeMethod(enum.Enum):
    """The resampling methods of ``resize`` and ``scale_and_translate``.

    Example:
      >>> from tessela.image import ResizeMethod
      >>> ResizeMethod.from_string("bilinear")
      <ResizeMethod.LINEAR: 1>
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a name stands for (JAX's names and aliases).

        Args:
          s: "nearest", "linear" ("bilinear", "trilinear", "triangle"),
            "lanczos3", "lanczos5", "cubic" ("bicubic", "tricubic"),
            "cubic-pytorch" ("bicubic-pytorch") or "area".

        Returns:
          The ``ResizeMethod``.

        Raises:
          ValueError: for any other name.
        """
        for method, names in _NAMES.items():
            if s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {
    ResizeMethod.NEAREST: ("nearest",),
    ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
    ResizeMethod.LANCZOS3: ("lanczos3",),
    ResizeMethod.LANCZOS5: ("lanczos5",),
    ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
    ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"),
    ResizeMethod.AREA: ("area",),
}


def _triangle(x: Array) -> Array:
    return tnp.maximum(0, 1 - tnp.abs(x))


def _cubic(a: float) -> Callable[[Array], Array]:
    """The cubic convolution kernel with parameter ``a`` (Keys: -0.5, OpenCV: -0.75)."""

    def kernel(x: Array) -> Array:
        near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
        return tnp.where(x >= 2.0, 0.0, tnp.where(x >= 1.0, far, near))

    return kernel


def _lanczos(radius: float) -> Callable[[Array], Array]:
    def kernel(x: Array) -> Array:
        y = radius * tnp.sin(np.pi * x) * tnp.sin(np.pi * x / radius)
        safe = tnp.where(x != 0, np.pi**2 * x**2, 1)
        out = tnp.where(x > 1e-3, y / safe, 1)
        return tnp.where(x > radius, 0.0, out)

    return kernel


_AREA = None  # the box-overlap weights are built directly, not from distances
_KERNELS: dict[ResizeMethod, tuple[int, Callable[[Array], Array] | None]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalise(weights: Any) -> Any:
    total = tnp.sum(weights, axis=0, keepdims=True)
    return tnp.where(tnp.abs(total) > _EPS, weights / tnp.where(total != 0, total, 1), 0)


def _weights(
    in_size: int,
    out_size: int,
    scale: Any,
    translation: Any,
    kernel: Callable[[Array], Array] | None,
    antialias: bool,
    edge_padding: bool,
    radius: int,
) -> Any:
    """The (in_size, out_size) resampling matrix of one dimension."""
    dtype = tnp.result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = tnp.maximum(inv_scale, 1.0) if antialias else 1.0
    centres = (tnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    pad = 0
    if edge_padding:
        pad = math.ceil(radius * max(1.0 / float(scale), 1.0)) if antialias else radius
    taps = tnp.arange(-pad, in_size + pad, dtype=dtype)
    if kernel is None:  # area: overlap of [i/s, (i+1)/s) with [j, j+1)
        left = tnp.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
        right = left + inv_scale
        lo = tnp.arange(in_size, dtype=dtype)
        w = tnp.minimum(right[None, :], lo[:, None] + 1.0) - tnp.maximum(left[None, :], lo[:, None])
        w = tnp.maximum(0.0, w)
    else:
        w = kernel(tnp.abs(centres[None, :] - taps[:, None]) / kernel_scale)
    if edge_padding:  # taps outside the image take the edge pixel's value
        rows = tnp.clip(taps.astype(np.int32), 0, in_size - 1)
        cols = tnp.broadcast_to(tnp.arange(out_size)[None, :], (taps.shape[0], out_size))
        w = tnp.zeros((in_size, out_size), dtype).at[rows[:, None], cols].add(w)
        return _normalise(w)
    w = _normalise(w)
    inside = tnp.logical_and(centres >= -0.5, centres <= in_size - 0.5)
    return tnp.where(inside[None, :], w, 0)


def _resample(
    x: Any,
    shape: tuple[int, ...],
    dims: Sequence[int],
    scale: Sequence[Any],
    translation: Sequence[Any],
    method: ResizeMethod,
    antialias: bool,
    precision: Any,
) -> Any:
    if not dims:
        return x
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    letters = string.ascii_letters
    ndim = x.ndim
    out = list(letters[:ndim])
    spec = [letters[:ndim]]
    mats = []
    for i, d in enumerate(dims):
        d = d % ndim
        w = _weights(
            x.shape[d], shape[d], scale[i], translation[i], kernel, antialias, edge_padding, radius
        )
        mats.append(w.astype(x.dtype))
        spec.append(letters[d] + letters[ndim + i])
        out[d] = letters[ndim + i]
    subscripts = ",".join(spec) + "->" + "".join(out)
    return tnp.einsum(subscripts, x, *mats, precision=precision)


def _method(method: str | ResizeMethod) -> ResizeMethod:
    return ResizeMethod.from_string(method) if isinstance(method, str) else ResizeMethod(method)


def _check_shape(shape: Sequence[int], image: Any) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if len(shape) != image.ndim:
        raise ValueError(
            "shape must have length equal to the number of dimensions of x; "
            f" {shape} vs {image.shape}"
        )
    return shape


def _inexact(x: ArrayLike) -> Array:
    x = tnp.asarray(x)
    return x if dtypes.issubdtype(x.dtype, np.inexact) else x.astype(tnp.result_type(x, 1.0))


def scale_and_translate(
    image: ArrayLike,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: ArrayLike,
    translation: ArrayLike,
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: PrecisionLike = lax.Precision.HIGHEST,
) -> Array:
    """Resamples ``image`` to ``shape`` with a scale and a translation per dimension.

    Output sample ``i`` along a resampled dimension sits at input coordinate
    ``(i + 0.5 - translation) / scale - 0.5``. ``scale`` and ``translation``
    may be traced.

    Args:
      image: the array.
      shape: the output shape (same rank as ``image``).
      spatial_dims: the dimensions to resample.
      scale: one scale per spatial dimension.
      translation: one translation per spatial dimension.
      method: a ``ResizeMethod`` or its name; not "nearest".
      antialias: widen the kernel when downsampling (default).
      precision: the ``einsum`` precision.

    Returns:
      The resampled array (floating point).

    Raises:
      ValueError: for a wrong-length ``shape`` or the nearest method.

    Example:
      >>> import tessela.numpy as tnp
      >>> from tessela.image import scale_and_translate
      >>> x = tnp.array([0.0, 1.0, 2.0, 3.0])
      >>> print(scale_and_translate(x, (4,), (0,), tnp.array([1.0]), tnp.array([1.0]), "linear"))
      [0. 0. 1. 2.]
    """
    shape = _check_shape(shape, image)
    m = _method(method)
    if m == ResizeMethod.NEAREST:
        raise ValueError(
            "Nearest neighbor resampling is not currently supported for scale_and_translate."
        )
    image = _inexact(image)
    scale = _inexact(scale)
    translation = _inexact(translation)
    common = tnp.result_type(scale, translation)
    scale, translation = scale.astype(common), translation.astype(common)
    dims = tuple(int(d) for d in spatial_dims)
    return cast(
        Array, _resample_jit(image, shape, dims, scale, translation, m, antialias, precision)
    )


def _resize_nearest(x: Any, shape: tuple[int, ...]) -> Any:
    for d in range(x.ndim):
        m, n = x.shape[d], shape[d]
        if m == n:
            continue
        offsets = (np.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n)
        index: list[Any] = [slice(None)] * x.ndim
        index[d] = np.floor(offsets.astype(np.float32)).astype(np.int32)
        x = x[tuple(index)]
    return x


def resize(
    image: ArrayLike,
    shape: Sequence[int],
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: PrecisionLike = lax.Precision.HIGHEST,
) -> Array:
    """Resizes ``image`` to ``shape``, resampling every dimension whose size changes.

    Args:
      image: the array (e.g. ``(height, width, channels)``; dimensions whose
        size stays the same are not touched).
      shape: the output shape (same rank).
      method: a ``ResizeMethod`` or its name ("nearest", "linear", "cubic",
        "lanczos3", "lanczos5", "cubic-pytorch", "area", and aliases).
      antialias: widen the kernel when downsampling (default; not used by
        "nearest").
      precision: the ``einsum`` precision.

    Returns:
      The resized array (floating point, except for "nearest", which keeps
      the dtype).

    Raises:
      ValueError: for a wrong-length ``shape`` or an unknown method.

    Example:
      >>> import tessela.numpy as tnp
      >>> from tessela.image import resize
      >>> print(resize(tnp.array([[1.0, 2.0], [3.0, 4.0]]), (2, 4), "nearest"))
      [[1. 1. 2. 2.]
       [3. 3. 4. 4.]]
    """
    image = tnp.asarray(image)
    return cast(
        Array, _resize(image, _check_shape(shape, image), _method(method), antialias, precision)
    )


def _resize_impl(
    image: Any, shape: tuple[int, ...], method: ResizeMethod, antialias: bool, precision: Any
) -> Any:
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image = _inexact(image)
    dims = [d for d in range(image.ndim) if image.shape[d] != shape[d]]
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _resample(image, shape, dims, scale, [0.0] * len(dims), method, antialias, precision)


_resize = jit(_resize_impl, static_argnums=(1, 2, 3, 4))
_resample_jit = jit(_resample, static_argnums=(1, 2, 5, 6, 7))
