"""``tessela.scipy.stats.beta``: the beta distribution's ``logpdf``, ``pdf``, ``cdf``, ``sf``, ..."""

from tessela._scipy_stats import beta_logpdf as logpdf
from tessela._scipy_stats import beta_pdf as pdf
from tessela._scipy_stats_cdfs import beta_cdf as cdf
from tessela._scipy_stats_cdfs import beta_logcdf as logcdf
from tessela._scipy_stats_cdfs import beta_logsf as logsf
from tessela._scipy_stats_cdfs import beta_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
