"""More ``tessela.scipy.stats`` distributions, with JAX's formulas.

``gumbel_l``, ``gumbel_r`` and ``pareto`` (every method JAX has), ``chi2``
(``pdf``/``logpdf``: its CDF needs the incomplete gamma function), the
discrete ``geom``, ``nbinom``, ``binom``, ``betabinom`` (``pmf``/``logpmf``)
``wrapcauchy``, ``dirichlet`` (``pdf``/``logpdf``) and ``multinomial``
(``pmf``/``logpmf``). Arguments are promoted to their
common inexact dtype and broadcast, as in :mod:`tessela._scipy_stats`.

Example:
    >>> from tessela._scipy_stats_more import gumbel_r_cdf
    >>> print(round(float(gumbel_r_cdf(0.0)), 6))
    0.367879
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_special import betaln, gammaln, xlog1py, xlogy
from ._scipy_stats import _promote

__all__: list[str] = []


def _nan_unless(ok: ArrayLike, value: ArrayLike) -> Array:
    return tnp.where(ok, value, np.nan)


def _log1mexp(x: Any) -> Any:
    """``log(1 - exp(-x))`` for ``x > 0``, accurately on both sides of ``log 2``."""
    return tnp.where(x < math.log(2), tnp.log(-tnp.expm1(-x)), tnp.log1p(-tnp.exp(-x)))


# ----------------------------------------------------------------- gumbel_l
def gumbel_l_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_l.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return _nan_unless(scale > 0, xlogy(-1, scale) + (z - tnp.exp(z)))


def gumbel_l_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(gumbel_l_logpdf(x, loc, scale))


def gumbel_l_logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_l.logcdf", x, loc, scale)
    z = (x - loc) / scale
    return _nan_unless(scale > 0, tnp.log(-tnp.expm1(-tnp.exp(z))))


def gumbel_l_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(gumbel_l_logcdf(x, loc, scale))


def gumbel_l_logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_l.logsf", x, loc, scale)
    return _nan_unless(scale > 0, -tnp.exp((x - loc) / scale))


def gumbel_l_sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(gumbel_l_logsf(x, loc, scale))


def gumbel_l_ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    p, loc, scale = _promote("gumbel_l.ppf", p, loc, scale)
    quantile = loc + scale * tnp.log(xlog1py(-1, -p))
    return _nan_unless((p > 0) & (p < 1), quantile)


# ----------------------------------------------------------------- gumbel_r
def gumbel_r_logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_r.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return _nan_unless(scale > 0, xlogy(-1, scale) - (z + tnp.exp(-z)))


def gumbel_r_pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(gumbel_r_logpdf(x, loc, scale))


def gumbel_r_logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_r.logcdf", x, loc, scale)
    return _nan_unless(scale > 0, -tnp.exp(-(x - loc) / scale))


def gumbel_r_cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(gumbel_r_logcdf(x, loc, scale))


def gumbel_r_sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_r.sf", x, loc, scale)
    return _nan_unless(scale > 0, 1 - tnp.exp(-tnp.exp((loc - x) / scale)))


def gumbel_r_logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = _promote("gumbel_r.logsf", x, loc, scale)
    return _nan_unless(scale > 0, _log1mexp(tnp.exp((loc - x) / scale)))


def gumbel_r_ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    p, loc, scale = _promote("gumbel_r.ppf", p, loc, scale)
    quantile = loc - scale * tnp.log(xlogy(-1, p))
    return _nan_unless((p > 0) & (p < 1), quantile)


# ------------------------------------------------------------------- pareto
def pareto_logpdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, b, loc, scale = _promote("pareto.logpdf", x, b, loc, scale)
    scaled = (x - loc) / scale
    log_probs = -(tnp.log(scale / b) + (b + 1) * tnp.log(scaled))
    return tnp.where(x < loc + scale, -np.inf, log_probs)


def pareto_pdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(pareto_logpdf(x, b, loc, scale))


def pareto_cdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, b, loc, scale = _promote("pareto.cdf", x, b, loc, scale)
    cdf = 1 - ((x - loc) / scale) ** -b
    return tnp.where(x < loc + scale, tnp.zeros_like(cdf), cdf)


def pareto_logcdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, b, loc, scale = _promote("pareto.logcdf", x, b, loc, scale)
    value = tnp.log1p(-(((x - loc) / scale) ** -b))
    return tnp.where(x < loc + scale, -np.inf, value)


def pareto_logsf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, b, loc, scale = _promote("pareto.logsf", x, b, loc, scale)
    value = -(b * tnp.log((x - loc) / scale))
    return tnp.where(x < loc + scale, tnp.zeros_like(value), value)


def pareto_sf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(pareto_logsf(x, b, loc, scale))


def pareto_ppf(q: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, b, loc, scale = _promote("pareto.ppf", q, b, loc, scale)
    value = loc + scale * (1 - q) ** -(1 / b)
    return tnp.where(tnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)


# --------------------------------------------------------------------- chi2
def chi2_logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, df, loc, scale = _promote("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    half_df = df / 2
    kernel = (half_df - 1) * tnp.log(y) - y / 2
    normalizer = -(gammaln(half_df) + math.log(2) * df / 2)
    return tnp.where(x < loc, -np.inf, normalizer - tnp.log(scale) + kernel)


def chi2_pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return tnp.exp(chi2_logpdf(x, df, loc, scale))


# ----------------------------------------------------------- discrete ones
def geom_logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, p, loc = _promote("geom.logpmf", k, p, loc)
    x = k - loc
    return tnp.where(x <= 0, -np.inf, xlog1py(x - 1, -p) + tnp.log(p))


def geom_pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(geom_logpmf(k, p, loc))


def nbinom_logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, n, p, loc = _promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    comb = gammaln(y + n) - gammaln(n) - gammaln(y + 1)
    return tnp.where(k < loc, -np.inf, comb + xlogy(n, p) + xlogy(y, 1 - p))


def nbinom_pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(nbinom_logpmf(k, n, p, loc))


def binom_logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, n, p, loc = _promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb = gammaln(n + 1) - (gammaln(y + 1) + gammaln(n - y + 1))
    linear = xlogy(y, p) + xlog1py(n - y, -p)
    log_probs = tnp.where(((y == 0) & (n == 0)) | (linear == 0), 0.0, comb + linear)
    return tnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


def binom_pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return tnp.exp(binom_logpmf(k, n, p, loc))


def betabinom_logpmf(
    k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0
) -> Array:
    k, n, a, b, loc = _promote("betabinom.logpmf", k, n, a, b, loc)
    y = tnp.floor(k) - loc
    combiln = -(tnp.log1p(n) + betaln(n - y + 1, y + 1))
    log_probs = combiln + (betaln(y + a, n - y + b) - betaln(a, b))
    log_probs = tnp.where((y == 0) & (n == 0), 0.0, log_probs)
    log_probs = tnp.where((y < -loc) | (y > n) | (y + a <= 0), -np.inf, log_probs)
    return tnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


def betabinom_pmf(
    k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0
) -> Array:
    return tnp.exp(betabinom_logpmf(k, n, a, b, loc))


def wrapcauchy_logpdf(x: ArrayLike, c: ArrayLike) -> Array:
    x, c = _promote("wrapcauchy.logpdf", x, c)
    inside = tnp.log(1 - c * c) - math.log(2 * math.pi) - tnp.log(1 + c * c - 2 * c * tnp.cos(x))
    in_support = tnp.where((x >= 0) & (x <= 2 * math.pi), inside, -np.inf)
    return tnp.where((c > 0) & (c < 1), in_support, np.nan)


def wrapcauchy_pdf(x: ArrayLike, c: ArrayLike) -> Array:
    return tnp.exp(wrapcauchy_logpdf(x, c))


# ------------------------------------------------------- multivariate ones
def dirichlet_logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    x, alpha = _promote("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    if x.shape[0] != alpha.shape[0]:
        x = tnp.concatenate([x, 1 - x.sum(0, keepdims=True)], axis=0)
    normalize_term = tnp.sum(gammaln(alpha)) - gammaln(tnp.sum(alpha))
    if x.ndim > 1:
        alpha = tnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
    log_probs = tnp.sum(xlogy(alpha - 1, x), axis=0) - normalize_term
    is_simplex = tnp.all(x > 0, axis=0) & (abs(tnp.sum(x, axis=0) - 1) < 1e-6)
    return tnp.where(is_simplex, log_probs, -np.inf)


def dirichlet_pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    return tnp.exp(dirichlet_logpdf(x, alpha))


def multinomial_logpmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    (p,) = _promote("multinomial.logpmf", p)
    x_int, n_int = tnp.asarray(x), tnp.asarray(n)
    if not (
        dtypes.issubdtype(x_int.dtype, np.integer) and dtypes.issubdtype(n_int.dtype, np.integer)
    ):
        raise ValueError(
            f"x and n must be of integer type; got x.dtype={x_int.dtype}, n.dtype={n_int.dtype}"
        )
    xf, nf = x_int.astype(p.dtype), n_int.astype(p.dtype)
    log_probs = gammaln(nf + 1) + tnp.sum(xlogy(xf, p) - gammaln(xf + 1), axis=-1)
    return tnp.where(tnp.equal(tnp.sum(xf), nf), log_probs, -np.inf)


def multinomial_pmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    return tnp.exp(multinomial_logpmf(x, n, p))
