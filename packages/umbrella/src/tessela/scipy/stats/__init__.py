"""``tessela.scipy.stats``: the ``jax.scipy.stats`` distributions composable from ``lax``.

Each distribution is a module of functions with SciPy's ``loc``/``scale`` arguments.

Example:
    >>> from tessela.scipy import stats
    >>> print(round(float(stats.norm.logpdf(0.0)), 6))
    -0.918939
"""

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
    uniform,
    wrapcauchy,
)

__all__ = [
    "bernoulli",
    "beta",
    "betabinom",
    "binom",
    "cauchy",
    "chi2",
    "dirichlet",
    "expon",
    "gamma",
    "geom",
    "gumbel_l",
    "gumbel_r",
    "laplace",
    "logistic",
    "multinomial",
    "multivariate_normal",
    "nbinom",
    "norm",
    "pareto",
    "poisson",
    "t",
    "uniform",
    "wrapcauchy",
]
