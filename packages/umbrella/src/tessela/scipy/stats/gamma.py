"""``tessela.scipy.stats.gamma``: the gamma distribution's ``logpdf``, ``pdf``, ``cdf``, ``sf``, ..."""

from tessela._scipy_stats import gamma_logpdf as logpdf
from tessela._scipy_stats import gamma_pdf as pdf
from tessela._scipy_stats_cdfs import gamma_cdf as cdf
from tessela._scipy_stats_cdfs import gamma_logcdf as logcdf
from tessela._scipy_stats_cdfs import gamma_logsf as logsf
from tessela._scipy_stats_cdfs import gamma_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
