"""``tessela.scipy.stats.binom``: the binomial distribution: ``logpmf``, ``pmf``.

Example:
    >>> from tessela.scipy.stats import binom
    >>> print(round(float(binom.pmf(1.0, 2.0, 0.5)), 6))
    0.5
"""

from tessela._scipy_stats_more import binom_logpmf as logpmf
from tessela._scipy_stats_more import binom_pmf as pmf

__all__ = ["logpmf", "pmf"]
