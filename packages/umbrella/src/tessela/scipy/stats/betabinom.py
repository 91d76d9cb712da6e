"""``tessela.scipy.stats.betabinom``: the beta-binomial distribution: ``logpmf``, ``pmf``.

Example:
    >>> from tessela.scipy.stats import betabinom
    >>> print(round(float(betabinom.pmf(1.0, 2.0, 1.0, 1.0)), 6))
    0.333333
"""

from tessela._scipy_stats_more import betabinom_logpmf as logpmf
from tessela._scipy_stats_more import betabinom_pmf as pmf

__all__ = ["logpmf", "pmf"]
