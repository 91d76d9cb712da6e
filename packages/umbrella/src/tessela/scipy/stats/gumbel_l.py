"""``tessela.scipy.stats.gumbel_l``: the left-skewed Gumbel distribution: ``cdf``, ``logcdf``, ``logpdf``, ``logsf``, ``pdf``, ``ppf``, ``sf``.

Example:
    >>> from tessela.scipy.stats import gumbel_l
    >>> print(round(float(gumbel_l.cdf(0.0)), 6))
    0.632121
"""

from tessela._scipy_stats_more import gumbel_l_cdf as cdf
from tessela._scipy_stats_more import gumbel_l_logcdf as logcdf
from tessela._scipy_stats_more import gumbel_l_logpdf as logpdf
from tessela._scipy_stats_more import gumbel_l_logsf as logsf
from tessela._scipy_stats_more import gumbel_l_pdf as pdf
from tessela._scipy_stats_more import gumbel_l_ppf as ppf
from tessela._scipy_stats_more import gumbel_l_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
