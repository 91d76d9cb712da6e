"""``jax.scipy.stats``: distribution functions built on the incomplete gamma and beta functions.

``gamma``, ``chi2`` and ``beta`` ``cdf``/``sf`` (and their logs),
``poisson.cdf`` and ``poisson.entropy``, ``truncnorm``, ``vonmises``,
``gennorm``, and the summaries ``sem``, ``mode`` and ``rankdata``, with JAX
0.10.2's formulas.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, cast

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_tracer import dtypes as _dtypes
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_ndtr import log_ndtr, ndtr
from ._scipy_promote import _arr, _c, promote_inexact
from ._scipy_special import entr, logsumexp
from ._scipy_special_gamma import betainc, gammainc, gammaincc
from ._scipy_stats import norm_logpdf, poisson_pmf

__all__ = [
    "ModeResult", "beta_cdf", "beta_logcdf", "beta_logsf", "beta_sf", "chi2_cdf", "chi2_logcdf",
    "chi2_logsf", "chi2_sf", "gamma_cdf", "gamma_logcdf", "gamma_logsf", "gamma_sf",
    "gennorm_cdf", "gennorm_logpdf", "gennorm_pdf", "mode", "poisson_cdf", "poisson_entropy",
    "rankdata", "sem", "truncnorm_cdf", "truncnorm_logcdf", "truncnorm_logpdf",
    "truncnorm_logsf", "truncnorm_pdf", "truncnorm_sf", "vonmises_logpdf", "vonmises_pdf",
]  # fmt: skip


def _args(name: str, *args: ArrayLike) -> list[Array]:
    return [_arr(a) for a in promote_inexact(name, *args)]


def gamma_cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The gamma distribution's CDF, ``gammainc(a, (x - loc) / scale)`` (0 below ``loc``).

    Args:
        x: the points.
        a: the shape.
        loc: the location.
        scale: the scale.

    Returns:
        The CDF values.

    Example:
        >>> print(gamma_cdf(1.0, 1.0))
        0.6321202
    """
    x, a, loc, scale = _args("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(_c(x, 0), (x - loc) / scale, _c(x, np.inf)))


def gamma_logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(gamma_cdf(x, a, loc, scale))``."""
    return tnp.log(gamma_cdf(x, a, loc, scale))


def gamma_sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The gamma distribution's survival function ``gammaincc(a, (x - loc) / scale)``.

    Args:
        x: the points.
        a: the shape.
        loc: the location.
        scale: the scale.

    Returns:
        ``1 - cdf``, 1 below ``loc``.

    Example:
        >>> print(gamma_sf(1.0, 1.0))
        0.36787927
    """
    x, a, loc, scale = _args("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return tnp.where(y < 0, _c(y, 1), gammaincc(a, y))


def gamma_logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(gamma_sf(x, a, loc, scale))``."""
    return tnp.log(gamma_sf(x, a, loc, scale))


def chi2_cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The chi-squared distribution's CDF, ``gammainc(df / 2, (x - loc) / (2 scale))``.

    Args:
        x: the points.
        df: the degrees of freedom.
        loc: the location.
        scale: the scale.

    Returns:
        The CDF values.

    Example:
        >>> print(chi2_cdf(2.0, 2.0))
        0.6321202
    """
    x, df, loc, scale = _args("chi2.cdf", x, df, loc, scale)
    return gammainc(df / 2, lax.clamp(_c(x, 0), (x - loc) / (scale * 2), _c(x, np.inf)))


def chi2_logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(chi2_cdf(x, df, loc, scale))``."""
    return tnp.log(chi2_cdf(x, df, loc, scale))


def chi2_sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The chi-squared distribution's survival function.

    Args:
        x: the points.
        df: the degrees of freedom.
        loc: the location.
        scale: the scale.

    Returns:
        ``1 - cdf``.

    Example:
        >>> print(chi2_sf(2.0, 2.0))
        0.36787927
    """
    x, df, loc, scale = _args("chi2.sf", x, df, loc, scale)
    return gammaincc(df / 2, lax.clamp(_c(x, 0), (x - loc) / (scale * 2), _c(x, np.inf)))


def chi2_logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``log(chi2_sf(x, df, loc, scale))``."""
    return tnp.log(chi2_sf(x, df, loc, scale))


def beta_cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
             loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """The beta distribution's CDF, ``betainc(a, b, clip((x - loc) / scale, 0, 1))``.

    Args:
        x: the points.
        a: the first shape.
        b: the second shape.
        loc: the location.
        scale: the scale.

    Returns:
        The CDF values.

    Example:
        >>> print(beta_cdf(0.5, 2.0, 3.0))
        0.6874998
    """
    x, a, b, loc, scale = _args("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, lax.clamp(_c(x, 0), (x - loc) / scale, _c(x, 1)))


def beta_logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """``log(beta_cdf(x, a, b, loc, scale))``."""
    return tnp.log(beta_cdf(x, a, b, loc, scale))


def beta_sf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
            loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """The beta distribution's survival function, ``betainc(b, a, 1 - clip(...))``.

    Args:
        x: the points.
        a: the first shape.
        b: the second shape.
        loc: the location.
        scale: the scale.

    Returns:
        ``1 - cdf``.

    Example:
        >>> print(beta_sf(0.5, 2.0, 3.0))
        0.31250018
    """
    x, a, b, loc, scale = _args("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - lax.clamp(_c(x, 0), (x - loc) / scale, _c(x, 1)))


def beta_logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
               loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """``log(beta_sf(x, a, b, loc, scale))``."""
    return tnp.log(beta_sf(x, a, b, loc, scale))


def poisson_cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The Poisson distribution's CDF, ``gammaincc(floor(k - loc) + 1, mu)`` (0 below ``loc``).

    Args:
        k: the counts.
        mu: the rate.
        loc: the location.

    Returns:
        The CDF values.

    Example:
        >>> print(poisson_cdf(0.0, 1.0))
        0.36787927
    """
    k, mu, loc = _args("poisson.cdf", k, mu, loc)
    x = k - loc
    return tnp.where(x < 0, _c(k, 0), gammaincc(tnp.floor(1 + x), mu))


def _entropy_sum(mu: Any, max_k: int, bound: Any) -> Any:
    k = tnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = poisson_pmf(k, mu, 0)
    mask = k < tnp.ceil(bound).astype(k.dtype)[None, :]
    return tnp.sum(entr(tnp.where(mask, probs, 0.0)), axis=0)


def poisson_entropy(mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The Poisson distribution's entropy (``loc`` does not change it).

    Sums ``-p log p`` over the support for ``mu < 100`` and uses the
    asymptotic expansion above, as JAX does.

    Args:
        mu: the rate.
        loc: the location.

    Returns:
        The entropy, of the broadcast shape of ``mu`` and ``loc``.

    Example:
        >>> print(poisson_entropy(0.0))
        0.0
    """
    mu, loc = _args("poisson.entropy", mu, loc)
    shape = tnp.broadcast_shapes(mu.shape, loc.shape)
    flat = tnp.ravel(mu)
    small = _entropy_sum(flat, 35, flat + 20)
    medium = _entropy_sum(flat, 250, flat + 10 * tnp.sqrt(flat) + 20)
    large = 0.5 * tnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    out = tnp.where(
        flat == 0, tnp.zeros_like(flat),
        tnp.where(flat < 10, small, tnp.where(flat < 100, medium, large)),
    )  # fmt: skip
    return tnp.broadcast_to(tnp.reshape(out, mu.shape), shape)


# ----------------------------------------------------------------- truncnorm


def _log_diff(x: Any, y: Any) -> Any:
    return logsumexp(tnp.stack([x, y]), b=tnp.stack([tnp.ones_like(x), -tnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a: Any, b: Any) -> Any:
    a, b = tnp.broadcast_arrays(tnp.asarray(a), tnp.asarray(b))
    left, right = b <= 0, a > 0
    central = ~(left | right)
    a_tail = tnp.where(right, -b, a)
    b_tail = tnp.where(right, -a, b)
    tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
    return tnp.where(central, tnp.log1p(-ndtr(a) - ndtr(-b)), tail)


def truncnorm_logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                     loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """The log density of the normal distribution truncated to ``[a, b]`` (in standard units).

    Args:
        x: the points.
        a: the lower bound, in standard deviations from ``loc``.
        b: the upper bound.
        loc: the mean.
        scale: the standard deviation.

    Returns:
        The log density; ``-inf`` outside the bounds, NaN where ``a >= b``.

    Example:
        >>> print(truncnorm_logpdf(0.0, -1.0, 1.0))
        -0.53722334
    """
    x, a, b, loc, scale = _args("truncnorm.logpdf", x, a, b, loc, scale)
    val = norm_logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    y = (x - loc) / scale
    val = tnp.where((y < a) | (y > b), -np.inf, val)
    return tnp.where(a >= b, np.nan, val)


def truncnorm_pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                  loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """``exp(truncnorm_logpdf(x, a, b, loc, scale))``."""
    return tnp.exp(truncnorm_logpdf(x, a, b, loc, scale))


def truncnorm_logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                     loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """The truncated normal's log CDF.

    Args:
        x: the points.
        a: the lower bound, in standard deviations from ``loc``.
        b: the upper bound.
        loc: the mean.
        scale: the standard deviation.

    Returns:
        The log CDF; 0 above ``b``, ``-inf`` below ``a``, NaN where ``a >= b``.

    Example:
        >>> print(truncnorm_logcdf(0.0, -1.0, 1.0))
        -0.6931473
    """
    x, a, b, loc, scale = _args("truncnorm.logcdf", x, a, b, loc, scale)
    xb, lo, hi = tnp.broadcast_arrays(x, a, b)
    z = (xb - loc) / scale
    mass = _log_gauss_mass(lo, hi)
    logcdf = _log_gauss_mass(lo, z) - mass
    logsf = _log_gauss_mass(z, hi) - mass
    logcdf = tnp.select(
        [z >= hi, z <= lo, logcdf > -0.1, z > lo],
        [tnp.zeros_like(z), tnp.full_like(z, -np.inf), tnp.log1p(-tnp.exp(logsf)), logcdf],
    )
    return tnp.where(lo >= hi, np.nan, logcdf)


def truncnorm_cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                  loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """``exp(truncnorm_logcdf(x, a, b, loc, scale))``."""
    return tnp.exp(truncnorm_logcdf(x, a, b, loc, scale))


def truncnorm_logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                    loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """The truncated normal's log survival function, by symmetry of its log CDF."""
    x, a, b, loc, scale = _args("truncnorm.logsf", x, a, b, loc, scale)
    return truncnorm_logcdf(-x, -b, -a, -loc, scale)


def truncnorm_sf(x: ArrayLike, a: ArrayLike, b: ArrayLike,
                 loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:  # fmt: skip
    """``exp(truncnorm_logsf(x, a, b, loc, scale))``."""
    return tnp.exp(truncnorm_logsf(x, a, b, loc, scale))


# ------------------------------------------------------- von Mises, generalized normal


def vonmises_logpdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """The von Mises log density ``kappa (cos x - 1) - log(2 pi i0e(kappa))``.

    Args:
        x: the angles.
        kappa: the concentration (positive; NaN otherwise).

    Returns:
        The log density.

    Example:
        >>> print(vonmises_logpdf(0.0, 1.0))
        -1.0737915
    """
    x, kappa = _args("vonmises.logpdf", x, kappa)
    value = kappa * (tnp.cos(x) - 1) - tnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return tnp.where(kappa > 0, value, np.nan)


def vonmises_pdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """``exp(vonmises_logpdf(x, kappa))``."""
    return tnp.exp(vonmises_logpdf(x, kappa))


def gennorm_logpdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The generalized normal log density ``log(beta / 2) - lgamma(1 / beta) - |x|**beta``.

    Args:
        x: the points.
        beta: the shape.

    Returns:
        The log density.

    Example:
        >>> print(gennorm_logpdf(0.0, 2.0))
        -0.5723648
    """
    x, beta = _args("gennorm.logpdf", x, beta)
    return tnp.log(0.5 * beta) - lax.lgamma(1 / beta) - tnp.abs(x) ** beta


def gennorm_pdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """``exp(gennorm_logpdf(x, beta))``."""
    return tnp.exp(gennorm_logpdf(x, beta))


def gennorm_cdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The generalized normal CDF ``(1 + sign(x) igamma(1 / beta, |x|**beta)) / 2``.

    Args:
        x: the points.
        beta: the shape.

    Returns:
        The CDF values.

    Example:
        >>> print(gennorm_cdf(0.0, 2.0))
        0.5
    """
    x, beta = _args("gennorm.cdf", x, beta)
    return 0.5 * (1 + tnp.sign(x) * lax.igamma(1 / beta, tnp.abs(x) ** beta))


# ----------------------------------------------------------------- summaries


class ModeResult(NamedTuple):
    """The result of :func:`mode`: the modal values and their counts."""

    mode: Array
    count: Array  # type: ignore[assignment]  # the field shadows tuple.count, as SciPy's does


def sem(
    a: ArrayLike, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
    keepdims: bool = False,
) -> Array:  # fmt: skip
    """The standard error of the mean, ``std(a, ddof) / sqrt(n)``.

    Args:
        a: the data.
        axis: the axis (all axes when None).
        ddof: the delta degrees of freedom.
        nan_policy: ``"propagate"`` or ``"omit"`` (NaNs left out of the count).
        keepdims: keep the reduced axis.

    Returns:
        The standard error.

    Raises:
        ValueError: another ``nan_policy``.

    Example:
        >>> print(sem(tnp.array([1.0, 2.0, 3.0, 4.0])))
        0.6454972
    """
    (b,) = _args("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / tnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~tnp.isnan(b)).sum(axis, keepdims=keepdims)
        return tnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / tnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")


def _check_nan_policy(name: str, nan_policy: str) -> None:
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(
            f"Illegal nan_policy value {nan_policy!r}; expected one of "
            "{'propagate', 'omit', 'raise'}"
        )
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{name}` function."
        )


def mode(
    a: ArrayLike, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> ModeResult:
    """The most common value along ``axis`` (the smallest on ties) and its count.

    Args:
        a: the data.
        axis: the axis (the flattened array when None).
        nan_policy: ``"propagate"`` only (the others raise NotImplementedError, as in JAX).
        keepdims: keep the reduced axis.

    Returns:
        ``ModeResult(mode, count)``.

    Raises:
        ValueError: an unknown ``nan_policy``.

    Example:
        >>> print(mode(tnp.array([1, 2, 2, 3])).mode)
        2
    """
    _check_nan_policy("mode", nan_policy)
    x = tnp.atleast_1d(tnp.asarray(a))
    if axis is not None:
        axis = axis % x.ndim
    shape = x.shape
    if keepdims:
        out_shape = tuple(1 if axis is None or i == axis else s for i, s in enumerate(shape))
    elif axis is None:
        out_shape = ()
    else:
        out_shape = tuple(s for i, s in enumerate(shape) if i != axis)
    if axis is None:
        axis, x = 0, x.ravel()

    def helper(v: Array) -> tuple[Array, Array]:
        if v.size == 0:
            nan = tnp.array(np.nan, dtype=_dtypes.default_float_dtype())
            return nan, tnp.array(0, dtype=_dtypes.default_float_dtype())
        vals, counts = tnp.unique(v, return_counts=True, size=v.size)
        return vals[tnp.argmax(counts)], counts.max()

    x = tnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    vals, counts = vmap(helper, in_axes=1)(x)
    return ModeResult(vals.reshape(out_shape), counts.reshape(out_shape))


def _rank_1d(a: Any, method: str) -> Any:
    out_dtype = _dtypes.default_float_dtype()
    arr, sorter = lax.sort_key_val(a, tnp.arange(a.size))
    inv = tnp.empty_like(sorter).at[sorter].set(tnp.arange(sorter.size, dtype=sorter.dtype))
    if method == "ordinal":
        return (inv + 1).astype(out_dtype)
    obs = tnp.concatenate([tnp.array([True]), arr[1:] != arr[:-1]])
    dense = obs.cumsum()[inv]
    if method == "dense":
        return dense.astype(out_dtype)
    count = tnp.nonzero(obs, size=arr.size + 1, fill_value=obs.size)[0].astype(out_dtype)
    if method == "max":
        return count[dense]
    if method == "min":
        return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)


def rankdata(
    a: ArrayLike, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"
) -> Array:
    """Ranks of the data, from 1, ties resolved by ``method``.

    Args:
        a: the data.
        method: ``"average"``, ``"min"``, ``"max"``, ``"dense"`` or ``"ordinal"``.
        axis: rank along this axis (the flattened array when None).
        nan_policy: ``"propagate"`` only (all NaN ranks when the data hold a NaN).

    Returns:
        Float ranks, of ``a``'s shape (flattened when ``axis`` is None).

    Raises:
        ValueError: an unknown ``method`` or ``nan_policy``.

    Example:
        >>> print(rankdata(tnp.array([3, 1, 3, 2])))
        [3.5 1.  3.5 2. ]
    """
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        x = tnp.moveaxis(tnp.asarray(a), axis, -1)
        flat = x.reshape(-1, x.shape[-1])
        ranks = vmap(lambda row: rankdata(row, method))(flat)
        return tnp.moveaxis(ranks.reshape(x.shape), -1, axis)
    a = tnp.ravel(tnp.asarray(a))
    out_dtype = _dtypes.default_float_dtype()
    return cast(
        Array,
        lax.cond(
            tnp.any(tnp.isnan(a)),
            lambda v: tnp.full_like(v, np.nan, out_dtype),
            lambda v: _rank_1d(v, method),
            a,
        ),
    )
