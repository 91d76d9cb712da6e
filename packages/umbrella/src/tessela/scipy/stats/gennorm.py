"""``tessela.scipy.stats.gennorm``: the generalized normal distribution's ``logpdf``, ``pdf``, ``cdf``."""

from tessela._scipy_stats_cdfs import gennorm_cdf as cdf
from tessela._scipy_stats_cdfs import gennorm_logpdf as logpdf
from tessela._scipy_stats_cdfs import gennorm_pdf as pdf

__all__ = ["cdf", "logpdf", "pdf"]
