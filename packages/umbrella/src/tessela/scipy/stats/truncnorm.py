"""``tessela.scipy.stats.truncnorm``: the truncated normal distribution."""

from tessela._scipy_stats_cdfs import truncnorm_cdf as cdf
from tessela._scipy_stats_cdfs import truncnorm_logcdf as logcdf
from tessela._scipy_stats_cdfs import truncnorm_logpdf as logpdf
from tessela._scipy_stats_cdfs import truncnorm_logsf as logsf
from tessela._scipy_stats_cdfs import truncnorm_pdf as pdf
from tessela._scipy_stats_cdfs import truncnorm_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
