"""``tessela.scipy.stats.laplace``: the Laplace distribution's ``cdf``, ``logpdf``, ``pdf``."""

from tessela._scipy_stats import laplace_cdf as cdf
from tessela._scipy_stats import laplace_logpdf as logpdf
from tessela._scipy_stats import laplace_pdf as pdf

__all__ = ["cdf", "logpdf", "pdf"]
