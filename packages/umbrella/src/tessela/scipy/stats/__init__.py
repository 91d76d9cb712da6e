"""``tessela.scipy.stats``: the ``jax.scipy.stats`` distributions composable from ``lax``.

Each distribution is a module of functions with SciPy's ``loc``/``scale`` arguments;
``sem``, ``mode`` (with ``ModeResult``) and ``rankdata`` summarize data; ``gaussian_kde``
estimates a density.

Example:
    >>> from tessela.scipy import stats
    >>> print(round(float(stats.norm.logpdf(0.0)), 6))
    -0.918939
"""

from tessela._scipy_kde import gaussian_kde
from tessela._scipy_stats_cdfs import ModeResult, mode, rankdata, sem

from . import (
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)

__all__ = [
    "ModeResult",
    "bernoulli",
    "beta",
    "betabinom",
    "binom",
    "cauchy",
    "chi2",
    "dirichlet",
    "expon",
    "gamma",
    "gaussian_kde",
    "gennorm",
    "geom",
    "gumbel_l",
    "gumbel_r",
    "laplace",
    "logistic",
    "mode",
    "multinomial",
    "multivariate_normal",
    "nbinom",
    "norm",
    "pareto",
    "poisson",
    "rankdata",
    "sem",
    "t",
    "truncnorm",
    "uniform",
    "vonmises",
    "wrapcauchy",
]
