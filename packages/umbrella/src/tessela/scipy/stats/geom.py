"""``tessela.scipy.stats.geom``: the geometric distribution: ``logpmf``, ``pmf``.

Example:
    >>> from tessela.scipy.stats import geom
    >>> print(round(float(geom.pmf(2.0, 0.5)), 6))
    0.25
"""

from tessela._scipy_stats_more import geom_logpmf as logpmf
from tessela._scipy_stats_more import geom_pmf as pmf

__all__ = ["logpmf", "pmf"]
