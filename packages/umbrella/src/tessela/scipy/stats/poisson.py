"""``tessela.scipy.stats.poisson``: the Poisson distribution's ``logpmf``, ``pmf``, ``cdf``, ``entropy``."""

from tessela._scipy_stats import poisson_logpmf as logpmf
from tessela._scipy_stats import poisson_pmf as pmf
from tessela._scipy_stats_cdfs import poisson_cdf as cdf
from tessela._scipy_stats_cdfs import poisson_entropy as entropy

__all__ = ["cdf", "entropy", "logpmf", "pmf"]
