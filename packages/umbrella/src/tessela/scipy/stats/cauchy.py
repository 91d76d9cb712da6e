"""``tessela.scipy.stats.cauchy``: the Cauchy distribution's ``cdf``, ``isf``, ``logcdf``, ``logpdf``, ``logsf``, ``pdf``, ``ppf``, ``sf``."""

from tessela._scipy_stats import cauchy_cdf as cdf
from tessela._scipy_stats import cauchy_isf as isf
from tessela._scipy_stats import cauchy_logcdf as logcdf
from tessela._scipy_stats import cauchy_logpdf as logpdf
from tessela._scipy_stats import cauchy_logsf as logsf
from tessela._scipy_stats import cauchy_pdf as pdf
from tessela._scipy_stats import cauchy_ppf as ppf
from tessela._scipy_stats import cauchy_sf as sf

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
