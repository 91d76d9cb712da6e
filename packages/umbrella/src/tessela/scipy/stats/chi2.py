"""``tessela.scipy.stats.chi2``: the chi-squared distribution's ``logpdf``, ``pdf``, ``cdf``, ``sf``, ...

Example:
    >>> from tessela.scipy.stats import chi2
    >>> print(round(float(chi2.pdf(2.0, 2.0)), 6))
    0.18394
"""

from tessela._scipy_stats_cdfs import chi2_cdf as cdf
from tessela._scipy_stats_cdfs import chi2_logcdf as logcdf
from tessela._scipy_stats_cdfs import chi2_logsf as logsf
from tessela._scipy_stats_cdfs import chi2_sf as sf
from tessela._scipy_stats_more import chi2_logpdf as logpdf
from tessela._scipy_stats_more import chi2_pdf as pdf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
