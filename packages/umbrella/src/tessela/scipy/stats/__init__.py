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
    cauchy,
    expon,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)

__all__ = [
    "bernoulli",
    "beta",
    "cauchy",
    "expon",
    "gamma",
    "laplace",
    "logistic",
    "multivariate_normal",
    "norm",
    "poisson",
    "t",
    "uniform",
]
