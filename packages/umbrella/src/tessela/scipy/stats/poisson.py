"""``tessela.scipy.stats.poisson``: the Poisson distribution's ``logpmf``, ``pmf``."""

from tessela._scipy_stats import poisson_logpmf as logpmf
from tessela._scipy_stats import poisson_pmf as pmf

__all__ = ["logpmf", "pmf"]
