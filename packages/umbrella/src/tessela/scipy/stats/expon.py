"""``tessela.scipy.stats.expon``: the exponential distribution's ``cdf``, ``logcdf``, ``logpdf``, ``logsf``, ``pdf``, ``ppf``, ``sf``.

Example:
    >>> from tessela.scipy.stats import expon
    >>> print(expon.pdf(0.0))
    1.0
"""

from tessela._scipy_stats import expon_cdf as cdf
from tessela._scipy_stats import expon_logcdf as logcdf
from tessela._scipy_stats import expon_logpdf as logpdf
from tessela._scipy_stats import expon_logsf as logsf
from tessela._scipy_stats import expon_pdf as pdf
from tessela._scipy_stats import expon_ppf as ppf
from tessela._scipy_stats import expon_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
