"""``tessela.scipy.stats.multivariate_normal``: the multivariate normal distribution's ``logpdf``, ``pdf``."""

from tessela._scipy_stats import _mvn_logpdf as logpdf
from tessela._scipy_stats import _mvn_pdf as pdf

__all__ = ["logpdf", "pdf"]
