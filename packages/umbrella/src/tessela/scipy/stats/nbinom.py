"""``tessela.scipy.stats.nbinom``: the negative binomial distribution: ``logpmf``, ``pmf``.

Example:
    >>> from tessela.scipy.stats import nbinom
    >>> print(round(float(nbinom.pmf(0.0, 2.0, 0.5)), 6))
    0.25
"""

from tessela._scipy_stats_more import nbinom_logpmf as logpmf
from tessela._scipy_stats_more import nbinom_pmf as pmf

__all__ = ["logpmf", "pmf"]
