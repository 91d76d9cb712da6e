"""Samplers that transform uniform or normal draws elementwise."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import DTypeLike

from ._config import canonical_shape
from ._keys import KeyLike, check_key
from ._namespace import ArrayLike, Namespace, PrngArray, backend_ops, namespace_of
from ._sampling import (
    as_param,
    broadcast_shapes,
    check_shape,
    float_dtype,
    float_info,
    narrow_result,
    normal_data,
    quiet,
    rademacher_data,
    shape_of,
    uniform_data,
    xdtype,
)
from ._threefry import random_bits_data, split_data

__all__ = [
    "cauchy",
    "double_sided_maxwell",
    "exponential",
    "gumbel",
    "laplace",
    "logistic",
    "lognormal",
    "maxwell",
    "normal",
    "pareto",
    "rayleigh",
    "triangular",
    "truncated_normal",
    "uniform",
    "wald",
    "weibull_min",
]

Array: TypeAlias = PrngArray
Shape = Sequence[int]


def shape_or_params(name: str, shape: Shape | None, *params: ArrayLike) -> tuple[int, ...]:
    """``shape`` checked against the parameters' shapes, or their broadcast shape if None."""
    shapes = [shape_of(p) for p in params]
    if shape is None:
        return broadcast_shapes(name, *shapes) if shapes else ()
    shp = canonical_shape(name, shape)
    check_shape(name, shp, *shapes)
    return shp


def float_start(
    name: str, key: KeyLike, dtype: DTypeLike | None, *, allow_complex: bool = False
) -> tuple[Array, np.dtype[Any], Namespace]:
    """The key data, float dtype and namespace that the sampler ``name`` starts from."""
    data, _ = check_key(name, key)
    return data, float_dtype(name, dtype, allow_complex=allow_complex), namespace_of(data)


def _standard_start(
    name: str, key: KeyLike, shape: Shape, dtype: DTypeLike | None
) -> tuple[Array, tuple[int, ...], np.dtype[Any], Namespace]:
    """:func:`float_start` plus the canonical ``shape`` of a parameterless sampler."""
    data, dt, xp = float_start(name, key, dtype)
    return data, canonical_shape(name, shape), dt, xp


@quiet
def uniform(
    key: KeyLike,
    /,
    shape: Shape = (),
    dtype: DTypeLike | None = None,
    minval: ArrayLike = 0.0,
    maxval: ArrayLike = 1.0,
) -> Array:
    """Sample uniform floats in ``[minval, maxval)``.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32`` (``float64`` with x64).
        minval: lower bound, broadcastable to ``shape``.
        maxval: upper bound, broadcastable to ``shape``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, uniform
        >>> uniform(key(0), (3,)).shape
        (3,)
    """
    data, shp, dt, _ = _standard_start("uniform", key, shape, dtype)
    for arg, value in (("minval", minval), ("maxval", maxval)):
        pshape = shape_of(value)
        try:
            fits = tuple(np.broadcast_shapes(shp, pshape)) == shp
        except ValueError:
            fits = False
        if not fits:
            raise TypeError(
                f"uniform: {arg} of shape {pshape} does not broadcast to shape {shp}; "
                f"pass a scalar {arg} or one whose shape broadcasts to {shp}."
            )
    return uniform_data(data, shp, dt, minval, maxval)


@quiet
def normal(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample standard normal values (real or complex).

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float or complex dtype; default ``float32``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, normal
        >>> print(normal(key(43)))
        0.07520543
    """
    data, dt, _ = float_start("normal", key, dtype, allow_complex=True)
    return normal_data(data, canonical_shape("normal", shape), dt)


@narrow_result
@quiet
def truncated_normal(
    key: KeyLike,
    /,
    lower: ArrayLike,
    upper: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample a standard normal truncated to ``(lower, upper)``.

    Args:
        key: a single typed or raw key.
        lower: lower truncation point(s).
        upper: upper truncation point(s).
        shape: the result shape; default the broadcast shape of the bounds.
        dtype: a float dtype; default ``float32``.

    Returns:
        An array of ``shape`` and ``dtype``, strictly inside the bounds.

    Example:
        >>> from tessela_prng import key, truncated_normal
        >>> x = truncated_normal(key(0), -1.0, 1.0, (100,))
        >>> bool((x > -1).all() and (x < 1).all())
        True
    """
    data, dt, xp = float_start("truncated_normal", key, dtype)
    shp = shape_or_params("truncated_normal", shape, lower, upper)
    ops = backend_ops(data)
    sqrt2 = float(np.array(math.sqrt(2.0), dt))
    lo = as_param(xp, lower, dt)
    hi = as_param(xp, upper, dt)
    a = ops.erf(lo / sqrt2)
    b = ops.erf(hi / sqrt2)
    u = uniform_data(data, shp, dt, a, b)
    out = ops.erf_inv(u) * sqrt2
    fdt = xdtype(xp, dt)
    lo_in = xp.nextafter(lo, xp.asarray(math.inf, dtype=fdt))
    hi_in = xp.nextafter(hi, xp.asarray(-math.inf, dtype=fdt))
    out = xp.minimum(xp.maximum(out, lo_in), hi_in)
    return xp.reshape(xp.broadcast_to(out, shp), shp)


@narrow_result
@quiet
def exponential(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample the standard exponential distribution.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Non-negative samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, exponential
        >>> bool((exponential(key(0), (10,)) >= 0).all())
        True
    """
    data, shp, dt, _ = _standard_start("exponential", key, shape, dtype)
    return exponential_data(data, shp, dt)


def exponential_data(data: Array, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    xp = namespace_of(data)
    u = uniform_data(data, shape, dt)
    return -xp.log1p(-u)


@narrow_result
@quiet
def gumbel(
    key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None, mode: str | None = None
) -> Array:
    """Sample the standard Gumbel distribution.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32``.
        mode: ``"low"`` (default), ``"high"`` or ``"highest"``: how much of the
            dynamic range of the tails is sampled.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, gumbel
        >>> gumbel(key(0), (2, 2)).shape
        (2, 2)
    """
    data, shp, dt, _ = _standard_start("gumbel", key, shape, dtype)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}; use 'low' or 'high'.")
    return gumbel_data(data, shp, dt, mode)


def _safe_int_to_float(xp: Namespace, hi: Array, lo: Array) -> Array:
    """The 64-bit fraction ``(hi, lo) / 2**64`` truncated to a float32 mantissa.

    Computed in 32-bit integers only (traced programs without 64-bit types
    have no ``uint64``): the 24 bits from the leading one bit on, exactly
    converted, times an exact power of two.
    """
    u32, f32 = xp.uint32, xp.float32

    def c(v: int) -> Array:
        return xp.asarray(v, dtype=u32)

    in_hi = hi != c(0)
    word = xp.where(in_hi, hi, lo)
    top = xp.zeros(word.shape, dtype=u32)  # index of the word's leading one bit
    probe = word
    for step in (16, 8, 4, 2, 1):
        big = xp.bitwise_right_shift(probe, c(step)) != c(0)
        probe = xp.where(big, xp.bitwise_right_shift(probe, c(step)), probe)
        top = xp.where(big, top + c(step), top)
    # The 64-bit value shifts right by ``shift`` (0 to 40) to keep 24 bits;
    # every shift below is by 0 to 31.
    wide = top >= c(23)
    low_part = xp.where(wide, top - c(23), c(0))
    shift = xp.where(in_hi, top + c(9), low_part)
    from_hi = xp.where(
        wide,
        xp.bitwise_right_shift(hi, low_part),
        xp.bitwise_left_shift(hi, xp.where(wide, c(0), c(23) - top))
        | xp.bitwise_right_shift(lo, xp.where(wide, c(0), top + c(9))),
    )
    mant = xp.where(in_hi, from_hi, xp.bitwise_right_shift(lo, low_part))
    # 2**shift as two exact powers of two (shift may exceed 31).
    first = xp.where(shift > c(31), c(31), shift)
    pow_a = xp.astype(xp.bitwise_left_shift(c(1), first), f32)
    pow_b = xp.astype(xp.bitwise_left_shift(c(1), shift - first), f32)
    return xp.astype(mant, f32) * xp.asarray(2.0**-64, dtype=f32) * pow_a * pow_b


def gumbel_data(data: Array, shape: tuple[int, ...], dt: np.dtype[Any], mode: str) -> Array:
    xp = namespace_of(data)
    finfo = float_info(dt)
    if mode == "highest" and dt == np.float32:
        raw = random_bits_data(data, 32, (2, *shape))
        neg = xp.bitwise_invert(raw)
        u32 = xp.uint32
        lo_bits = neg[1, ...]
        carry = xp.astype(lo_bits == xp.asarray(0xFFFFFFFF, dtype=u32), u32)
        neg_hi = neg[0, ...] + carry
        neg_lo = neg[1, ...] + xp.asarray(1, dtype=u32)
        flip = raw[0, ...] < xp.asarray(1 << 31, dtype=u32)
        x = _safe_int_to_float(
            xp, xp.where(flip, raw[0, ...], neg_hi), xp.where(flip, raw[1, ...], neg_lo)
        )
        return xp.where(flip, -xp.log(-xp.log1p(-x)), -xp.log(-xp.log(x)))
    if mode in ("high", "highest"):
        both = uniform_data(data, (2, *shape), dt)
        high, low = both[0, ...], both[1, ...]
        x = xp.where(high >= 0.5, high, high + float(2.0**-finfo.nmant) * low + float(finfo.tiny))
        return -xp.log(-xp.log1p(-x))
    u = uniform_data(data, shape, dt, float(finfo.tiny), 1.0)
    return -xp.log(-xp.log(u))


@narrow_result
@quiet
def laplace(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample the standard Laplace distribution.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, laplace
        >>> laplace(key(0), (4,)).dtype
        dtype('float32')
    """
    data, shp, dt, xp = _standard_start("laplace", key, shape, dtype)
    u = uniform_data(data, shp, dt, float(np.array(-1.0, dt) + float_info(dt).epsneg), 1.0)
    return xp.sign(u) * xp.log1p(-xp.abs(u))


@narrow_result
@quiet
def logistic(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample the standard logistic distribution.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, logistic
        >>> logistic(key(0), (4,)).shape
        (4,)
    """
    data, shp, dt, xp = _standard_start("logistic", key, shape, dtype)
    x = uniform_data(data, shp, dt, float(float_info(dt).tiny), 1.0)
    return xp.log(x) - xp.log1p(-x)


@narrow_result
@quiet
def cauchy(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample the standard Cauchy distribution.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, cauchy
        >>> cauchy(key(0), (4,)).shape
        (4,)
    """
    data, shp, dt, xp = _standard_start("cauchy", key, shape, dtype)
    u = uniform_data(data, shp, dt, float(float_info(dt).eps), 1.0)
    fdt = xdtype(xp, dt)
    pi = xp.asarray(float(np.array(np.pi, dt)), dtype=fdt)
    return xp.tan(pi * (u - xp.asarray(0.5, dtype=fdt)))


@narrow_result
@quiet
def pareto(
    key: KeyLike, /, b: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the Pareto distribution with shape parameter ``b``.

    Args:
        key: a single typed or raw key.
        b: the shape parameter(s).
        shape: the result shape; default ``b``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Samples ``>= 1`` of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, pareto
        >>> bool((pareto(key(0), 3.0, (5,)) >= 1).all())
        True
    """
    data, dt, xp = float_start("pareto", key, dtype)
    shp = shape_or_params("pareto", shape, b)
    e = exponential_data(data, shp, dt)
    return xp.exp(e / as_param(xp, b, dt))


@narrow_result
@quiet
def rayleigh(
    key: KeyLike, /, scale: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the Rayleigh distribution.

    Args:
        key: a single typed or raw key.
        scale: the scale parameter(s).
        shape: the result shape; default ``scale``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Non-negative samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, rayleigh
        >>> rayleigh(key(0), 2.0, (3,)).shape
        (3,)
    """
    data, dt, xp = float_start("rayleigh", key, dtype)
    shp = shape_or_params("rayleigh", shape, scale)
    u = uniform_data(data, shp, dt)
    s = xp.broadcast_to(as_param(xp, scale, dt), shp)
    return s * xp.sqrt(xp.log(u) * -2.0)


@narrow_result
@quiet
def wald(
    key: KeyLike, /, mean: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the Wald (inverse Gaussian) distribution.

    Args:
        key: a single typed or raw key.
        mean: the mean parameter(s).
        shape: the result shape; default ``mean``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Positive samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, wald
        >>> bool((wald(key(0), 1.0, (5,)) > 0).all())
        True
    """
    data, dt, xp = float_start("wald", key, dtype)
    shp = shape_or_params("wald", shape, mean)
    keys = split_data(data, (2,))
    mu = xp.broadcast_to(as_param(xp, mean, dt), shp)
    v = normal_data(keys[0, ...], shp, dt)
    z = uniform_data(keys[1, ...], shp, dt)
    y = v * v
    y_sq = y * y
    mean_sq = mu * mu
    sqrt_term = xp.sqrt(4.0 * mu * y + mean_sq * y_sq)
    x = mu + mean_sq * y / 2.0 - mu / 2.0 * sqrt_term
    return xp.where(z <= mu / (mu + x), x, mean_sq / x)


@narrow_result
@quiet
def triangular(
    key: KeyLike,
    /,
    left: ArrayLike,
    mode: ArrayLike,
    right: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample the triangular distribution on ``[left, right]`` peaking at ``mode``.

    Args:
        key: a single typed or raw key.
        left: lower limit(s).
        mode: peak location(s).
        right: upper limit(s).
        shape: the result shape; default the parameters' broadcast shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, triangular
        >>> x = triangular(key(0), 0.0, 0.5, 1.0, (8,))
        >>> bool(((x >= 0) & (x <= 1)).all())
        True
    """
    data, dt, xp = float_start("triangular", key, dtype)
    shp = shape_or_params("triangular", shape, left, mode, right)
    lo = xp.broadcast_to(as_param(xp, left, dt), shp)
    hi = xp.broadcast_to(as_param(xp, right, dt), shp)
    md = xp.broadcast_to(as_param(xp, mode, dt), shp)
    fc = (md - lo) / (hi - lo)
    u = uniform_data(data, shp, dt)
    out1 = lo + xp.sqrt(u * (hi - lo) * (md - lo))
    out2 = hi - xp.sqrt((1.0 - u) * (hi - lo) * (hi - md))
    return xp.where(u < fc, out1, out2)


@narrow_result
@quiet
def lognormal(
    key: KeyLike,
    /,
    sigma: ArrayLike = 1.0,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample the log-normal distribution ``exp(sigma * N(0, 1))``.

    Args:
        key: a single typed or raw key.
        sigma: the standard deviation(s) of the underlying normal.
        shape: the result shape; default ``sigma``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Positive samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, lognormal
        >>> bool((lognormal(key(0), shape=(4,)) > 0).all())
        True
    """
    data, dt, xp = float_start("lognormal", key, dtype, allow_complex=True)
    shp = shape_or_params("lognormal", shape, sigma)
    return xp.exp(normal_data(data, shp, dt) * as_param(xp, sigma, dt))


@narrow_result
@quiet
def weibull_min(
    key: KeyLike,
    /,
    scale: ArrayLike,
    concentration: ArrayLike,
    shape: Shape = (),
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample the Weibull distribution.

    Args:
        key: a single typed or raw key.
        scale: the scale parameter(s).
        concentration: the concentration parameter(s).
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Non-negative samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, weibull_min
        >>> weibull_min(key(0), 1.0, 2.0, (3,)).shape
        (3,)
    """
    data, dt, xp = float_start("weibull_min", key, dtype)
    shp = canonical_shape("weibull_min", shape)
    u = uniform_data(data, shp, dt)
    if isinstance(concentration, (int, float)):
        inv = as_param(xp, 1.0 / concentration, dt)
    else:
        inv = 1.0 / as_param(xp, concentration, dt)
    return xp.pow(-xp.log1p(-u), inv) * as_param(xp, scale, dt)


@narrow_result
@quiet
def maxwell(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample the Maxwell distribution (norm of a 3-d standard normal).

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Non-negative samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, maxwell
        >>> maxwell(key(0), (2,)).shape
        (2,)
    """
    data, shp, dt, _ = _standard_start("maxwell", key, shape, dtype)
    return maxwell_data(data, shp, dt)


def maxwell_data(data: Array, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    xp = namespace_of(data)
    z = normal_data(data, (*shape, 3), dt)
    return xp.sqrt(xp.sum(z * z, axis=-1))


@narrow_result
@quiet
def double_sided_maxwell(
    key: KeyLike,
    /,
    loc: ArrayLike,
    scale: ArrayLike,
    shape: Shape = (),
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample the double-sided Maxwell distribution.

    As in JAX, the parameters' broadcast shape is appended to ``shape``.

    Args:
        key: a single typed or raw key.
        loc: location parameter(s).
        scale: scale parameter(s).
        shape: the leading result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        An array of shape ``shape + broadcast(loc, scale).shape``.

    Example:
        >>> from tessela_prng import key, double_sided_maxwell
        >>> double_sided_maxwell(key(0), 0.0, 1.0, (3,)).shape
        (3,)
    """
    data, shp, dt, xp = _standard_start("double_sided_maxwell", key, shape, dtype)
    pshape = broadcast_shapes("double_sided_maxwell", shape_of(loc), shape_of(scale))
    if not shp:
        shp = pshape
    shp = shp + pshape
    keys = split_data(data, (2,))
    rvs = maxwell_data(keys[0, ...], shp, dt)
    sign = rademacher_data(keys[1, ...], shp, dt)
    return sign * rvs * as_param(xp, scale, dt) + as_param(xp, loc, dt)
