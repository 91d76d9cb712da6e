"""``tessela.scipy.stats.gumbel_r``: the right-skewed Gumbel distribution: ``cdf``, ``logcdf``, ``logpdf``, ``logsf``, ``pdf``, ``ppf``, ``sf``.

Example:
    >>> from tessela.scipy.stats import gumbel_r
    >>> print(round(float(gumbel_r.cdf(0.0)), 6))
    0.367879
"""

from tessela._scipy_stats_more import gumbel_r_cdf as cdf
from tessela._scipy_stats_more import gumbel_r_logcdf as logcdf
from tessela._scipy_stats_more import gumbel_r_logpdf as logpdf
from tessela._scipy_stats_more import gumbel_r_logsf as logsf
from tessela._scipy_stats_more import gumbel_r_pdf as pdf
from tessela._scipy_stats_more import gumbel_r_ppf as ppf
from tessela._scipy_stats_more import gumbel_r_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
