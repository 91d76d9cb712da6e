"""``tessela.scipy.stats.gamma``: the gamma distribution's ``logpdf``, ``pdf``."""

from tessela._scipy_stats import gamma_logpdf as logpdf
from tessela._scipy_stats import gamma_pdf as pdf

__all__ = ["logpdf", "pdf"]
