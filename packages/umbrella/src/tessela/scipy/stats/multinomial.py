"""``tessela.scipy.stats.multinomial``: the multinomial distribution: ``logpmf``, ``pmf``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.stats import multinomial
    >>> print(round(float(multinomial.pmf(tnp.array([1, 1]), 2, tnp.array([0.5, 0.5]))), 6))
    0.5
"""

from tessela._scipy_stats_more import multinomial_logpmf as logpmf
from tessela._scipy_stats_more import multinomial_pmf as pmf

__all__ = ["logpmf", "pmf"]
