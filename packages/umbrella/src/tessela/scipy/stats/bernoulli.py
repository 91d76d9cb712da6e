"""``tessela.scipy.stats.bernoulli``: the Bernoulli distribution's ``cdf``, ``logpmf``, ``pmf``, ``ppf``.

Example:
    >>> from tessela.scipy.stats import bernoulli
    >>> print(bernoulli.pmf(1, 0.25))
    0.25
"""

from tessela._scipy_stats import bernoulli_cdf as cdf
from tessela._scipy_stats import bernoulli_logpmf as logpmf
from tessela._scipy_stats import bernoulli_pmf as pmf
from tessela._scipy_stats import bernoulli_ppf as ppf

__all__ = ["cdf", "logpmf", "pmf", "ppf"]
