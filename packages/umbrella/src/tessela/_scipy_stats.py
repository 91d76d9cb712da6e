"""The distributions of ``tessela.scipy.stats``, as JAX writes them.

Each distribution is a namespace of functions (``norm.logpdf``, ...) taking
SciPy's ``loc``/``scale`` (and shape) arguments with their defaults; every
argument is promoted to the common inexact dtype and broadcast. Distributions
whose CDFs need the incomplete gamma or beta functions (``gamma.cdf``,
``beta.cdf``, ``poisson.cdf``, ``t.cdf``) provide their densities only.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_ndtr import log_ndtr, ndtr, ndtri
from ._scipy_promote import _arr, promote_inexact
from ._scipy_special import betaln, expit, gammaln, logit, xlog1py, xlogy

__all__: list[str] = []


def _promote(name: str, *args: ArrayLike) -> list[Array]:
    return [_arr(a) for a in promote_inexact(name, *args)]


def _neg_inf_where(cond: ArrayLike, value: ArrayLike) -> Array:
    return tnp.where(cond, -np.inf, value)


# ------------------------------------------------------------------- norm


def norm_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("norm.logpdf", x, loc, scale)
    scale_sq = scale * scale
    log_normalizer = tnp.log(2 * math.pi * scale_sq)
    quadratic = (x - loc) ** 2 / scale_sq
    return (log_normalizer + quadratic) / -2


def norm_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("norm.cdf", x, loc, scale)
    return ndtr((x - loc) / scale)


def norm_logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("norm.logcdf", x, loc, scale)
    return log_ndtr((x - loc) / scale)


def norm_sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("norm.sf", x, loc, scale)
    return norm_cdf(-x, -loc, scale)


def norm_logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("norm.logsf", x, loc, scale)
    return norm_logcdf(-x, -loc, scale)


def norm_ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = _promote("norm.ppf", q, loc, scale)
    return ndtri(q) * scale + loc


def norm_isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = _promote("norm.isf", q, loc, scale)
    return norm_ppf(1 - q, loc, scale)


# ---------------------------------------------------------------- uniform


def uniform_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("uniform.logpdf", x, loc, scale)
    log_probs = -tnp.log(scale)
    return _neg_inf_where((x > loc + scale) | (x < loc), log_probs)


def uniform_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(uniform_logpdf(x, loc, scale))


def uniform_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("uniform.cdf", x, loc, scale)
    frac = (x - loc) / scale
    return tnp.where(x < loc, 0, tnp.where(x > loc + scale, 1, frac)).astype(frac.dtype)


def uniform_ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = _promote("uniform.ppf", q, loc, scale)
    return tnp.where(tnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * q)


# ------------------------------------------------------------------ expon


def expon_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + tnp.log(scale))
    return _neg_inf_where(x < loc, log_probs)


def expon_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("expon.cdf", x, loc, scale)
    neg_scaled = (loc - x) / scale
    return tnp.where(x < loc, tnp.zeros_like(neg_scaled), -tnp.expm1(neg_scaled))


def expon_logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("expon.logsf", x, loc, scale)
    neg_scaled = (loc - x) / scale
    return tnp.where(x < loc, tnp.zeros_like(neg_scaled), neg_scaled)


def expon_sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(expon_logsf(x, loc, scale))


def expon_logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log1p(-expon_sf(x, loc, scale))


def expon_ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = _promote("expon.ppf", q, loc, scale)
    return tnp.where(tnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc - scale * tnp.log1p(-q))


# ---------------------------------------------------------------- laplace


def laplace_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("laplace.logpdf", x, loc, scale)
    return -(tnp.abs(x - loc) / scale + tnp.log(2 * scale))


def laplace_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(laplace_logpdf(x, loc, scale))


def laplace_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("laplace.cdf", x, loc, scale)
    diff = (x - loc) / scale
    return tnp.where(diff <= 0, 0.5 * tnp.exp(diff), 1 - 0.5 * tnp.exp(-diff))


# --------------------------------------------------------------- logistic


def logistic_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("logistic.logpdf", x, loc, scale)
    z = (x - loc) / scale
    half = z / 2
    return -2 * tnp.logaddexp(half, -half) - tnp.log(scale)


def logistic_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("logistic.cdf", x, loc, scale)
    return expit((x - loc) / scale)


def logistic_sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("logistic.sf", x, loc, scale)
    return expit(-(x - loc) / scale)


def logistic_ppf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("logistic.ppf", x, loc, scale)
    return cast(Array, logit(x) * scale + loc)


def logistic_isf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("logistic.isf", x, loc, scale)
    return cast(Array, -logit(x) * scale + loc)


# ----------------------------------------------------------------- cauchy


def cauchy_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("cauchy.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return -(tnp.log(math.pi * scale) + tnp.log1p(z * z))


def cauchy_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(cauchy_logpdf(x, loc, scale))


def cauchy_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("cauchy.cdf", x, loc, scale)
    return 0.5 + (1 / math.pi) * tnp.arctan((x - loc) / scale)


def cauchy_logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.log(cauchy_cdf(x, loc, scale))


def cauchy_sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("cauchy.sf", x, loc, scale)
    return cauchy_cdf(-x, -loc, scale)


def cauchy_logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("cauchy.logsf", x, loc, scale)
    return cauchy_logcdf(-x, -loc, scale)


def cauchy_ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = _promote("cauchy.ppf", q, loc, scale)
    return tnp.tan(math.pi * q - math.pi / 2) * scale + loc


def cauchy_isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = _promote("cauchy.isf", q, loc, scale)
    return tnp.tan(math.pi / 2 - math.pi * q) * scale + loc


# ---------------------------------------------------------------------- t


def t_logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, df, loc, scale = _promote("t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    half_df = df / 2
    half_df_plus_half = half_df + 0.5
    normalize = (lax.lgamma(half_df) + tnp.log(scale * scale * math.pi * df) / 2) - lax.lgamma(
        half_df_plus_half
    )
    return -(normalize + half_df_plus_half * tnp.log1p(z * z / df))


def t_pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(t_logpdf(x, df, loc, scale))


# ------------------------------------------------------------------ gamma


def gamma_logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, a, loc, scale = _promote("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    y = tnp.where(ok, (x - loc) / scale, 1)
    log_probs = (xlogy(a - 1, y) - y) - (gammaln(a) + tnp.log(scale))
    return tnp.where(ok, log_probs, -np.inf)


def gamma_pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(gamma_logpdf(x, a, loc, scale))


# ------------------------------------------------------------------- beta


def beta_logpdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    x, a, b, loc, scale = _promote("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    log_linear = xlogy(a - 1, y) + xlog1py(b - 1, -y)
    log_probs = (-betaln(a, b) + log_linear) - tnp.log(scale)
    result = tnp.where((x > loc + scale) | (x < loc), -np.inf, log_probs)
    return tnp.where((a <= 0) | (b <= 0) | (scale <= 0), np.nan, result)


def beta_pdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    return tnp.exp(beta_logpdf(x, a, b, loc, scale))


# -------------------------------------------------------------- bernoulli


def bernoulli_logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, p, loc = _promote("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(1 - x, -p)
    return tnp.where((x < 0) | (x > 1), -np.inf, log_probs)


def bernoulli_pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(bernoulli_logpmf(k, p, loc))


def bernoulli_cdf(k: ArrayLike, p: ArrayLike) -> Array:
    k, p = _promote("bernoulli.cdf", k, p)
    bad = tnp.isnan(k) | tnp.isnan(p) | (p < 0) | (p > 1)
    one = tnp.ones_like(k + p)
    inner = tnp.where(k < 0, 0 * one, tnp.where(k < 1, one - p, one))
    return tnp.where(bad, np.nan, inner)


def bernoulli_ppf(q: ArrayLike, p: ArrayLike) -> Array:
    q, p = _promote("bernoulli.ppf", q, p)
    bad = tnp.isnan(q) | tnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    zero = tnp.zeros_like(q + p)
    return tnp.where(bad, np.nan, tnp.where(q <= 1 - p, zero, zero + 1))


# ---------------------------------------------------------------- poisson


def poisson_logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return tnp.where((x < 0) | (tnp.round(k) != k), -np.inf, log_probs)


def poisson_pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(poisson_logpmf(k, mu, loc))


# ---------------------------------------------------- multivariate_normal


def _mvn_logpdf(
    x: ArrayLike, mean: ArrayLike, cov: ArrayLike, allow_singular: None = None
) -> Array:
    if allow_singular is not None:
        raise NotImplementedError(
            "allow_singular argument of multivariate_normal.logpdf; leave it as None."
        )
    x, mean, cov = _promote("multivariate_normal.logpdf", x, mean, cov)
    if not mean.shape:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (math.log(2 * math.pi) + tnp.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if not cov.shape:
        quad = tnp.einsum("...i,...i->...", y, y)
        return -0.5 * quad / cov - n / 2 * (math.log(2 * math.pi) + tnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError(
            "multivariate_normal.logpdf got incompatible shapes: mean has "
            f"{mean.shape[-1]} dimensions but cov has shape {cov.shape}; pass an "
            "(..., n, n) covariance for an (..., n) mean."
        )
    chol = lax.linalg.cholesky(cov)
    batch = np.broadcast_shapes(chol.shape[:-2], y.shape[:-1])
    chol_b = tnp.broadcast_to(chol, (*batch, n, n))
    y_b = tnp.broadcast_to(y, (*batch, n))
    # Solve L z = y as a right-sided solve with L^T: z^T L^T = y^T.
    z = lax.linalg.triangular_solve(chol_b, y_b[..., None, :], left_side=False, lower=True,
                                    transpose_a=True)[..., 0, :]  # fmt: skip
    log_det = tnp.sum(tnp.log(tnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * tnp.einsum("...i,...i->...", z, z) - n / 2 * math.log(2 * math.pi) - log_det


def _mvn_pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Array:
    return tnp.exp(_mvn_logpdf(x, mean, cov))


def _doc(fn: Any, text: str, example: str | None = None) -> None:
    fn.__doc__ = text + (f"\n\nExample:\n{example}" if example else "")


_DIST_ARGS = {
    "norm": "loc: the mean (0).\n    scale: the standard deviation (1).",
    "uniform": "loc: the lower bound (0).\n    scale: the width (1).",
    "expon": "loc: the shift (0).\n    scale: the mean ``1 / rate`` (1).",
    "laplace": "loc: the location (0).\n    scale: the diversity (1).",
    "logistic": "loc: the location (0).\n    scale: the scale (1).",
    "cauchy": "loc: the median (0).\n    scale: the half-width (1).",
    "t": "df: the degrees of freedom.\n    loc: the location (0).\n    scale: the scale (1).",
    "gamma": "a: the shape.\n    loc: the shift (0).\n    scale: the scale ``1 / rate`` (1).",
    "beta": "a: the first shape.\n    b: the second shape.\n    loc: the shift (0).\n"
    "    scale: the width (1).",
    "bernoulli": "p: the success probability.\n    loc: the shift (0).",
    "poisson": "mu: the rate.\n    loc: the shift (0).",
}
_WHAT = {
    "logpdf": "the log of the probability density",
    "pdf": "the probability density",
    "cdf": "the cumulative distribution function",
    "logcdf": "the log of the cumulative distribution function",
    "sf": "the survival function ``1 - cdf``",
    "logsf": "the log of the survival function",
    "ppf": "the percent point function (inverse of ``cdf``)",
    "isf": "the inverse survival function",
    "logpmf": "the log of the probability mass function",
    "pmf": "the probability mass function",
}


def _document() -> None:
    for name, fn in list(globals().items()):
        dist, _, method = name.partition("_")
        if dist not in _DIST_ARGS or method not in _WHAT or not callable(fn):
            continue
        first = "q: probabilities." if method in ("ppf", "isf") else "x: the points."
        if dist in ("bernoulli", "poisson") and method not in ("ppf",):
            first = "k: the outcomes."
        extra = _DIST_ARGS[dist]
        if dist == "bernoulli" and method in ("cdf", "ppf"):
            extra = "p: the success probability."
        fn.__doc__ = (
            f"{dist}.{method}: {_WHAT[method]}, elementwise after broadcasting.\n\n"
            f"Args:\n    {first}\n    {extra}\n\nReturns:\n    The values, in the "
            "promoted inexact dtype."
        )
        fn.__name__ = fn.__qualname__ = method


_document()
_mvn_logpdf.__doc__ = """multivariate_normal.logpdf: the log density of ``N(mean, cov)``.

Args:
    x: points with ``n`` as the last axis.
    mean: the mean: a scalar, or ``(..., n)``.
    cov: the covariance: a scalar (isotropic), or ``(..., n, n)`` positive definite.
    allow_singular: must be None.

Returns:
    The log densities over the batch axes.

Example:
    >>> import tessela.numpy as tnp
    >>> print(round(float(_mvn_logpdf(tnp.zeros(2), tnp.zeros(2), tnp.eye(2))), 5))
    -1.83788
"""
_mvn_logpdf.__name__ = _mvn_logpdf.__qualname__ = "logpdf"
_mvn_pdf.__doc__ = """multivariate_normal.pdf: the density of ``N(mean, cov)``.

Args:
    x: points with ``n`` as the last axis.
    mean: the mean: a scalar, or ``(..., n)``.
    cov: the covariance: a scalar, or ``(..., n, n)`` positive definite.

Returns:
    The densities over the batch axes.
"""
_mvn_pdf.__name__ = _mvn_pdf.__qualname__ = "pdf"
