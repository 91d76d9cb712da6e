"""``tessela.scipy.stats.norm``: the normal distribution's ``cdf``, ``isf``, ``logcdf``, ``logpdf``, ``logsf``, ``pdf``, ``ppf``, ``sf``.

Example:
    >>> from tessela.scipy.stats import norm
    >>> print(norm.cdf(0.0, loc=0.0, scale=2.0))
    0.5
"""

from tessela._scipy_stats import norm_cdf as cdf
from tessela._scipy_stats import norm_isf as isf
from tessela._scipy_stats import norm_logcdf as logcdf
from tessela._scipy_stats import norm_logpdf as logpdf
from tessela._scipy_stats import norm_logsf as logsf
from tessela._scipy_stats import norm_pdf as pdf
from tessela._scipy_stats import norm_ppf as ppf
from tessela._scipy_stats import norm_sf as sf

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
