"""``tessela.scipy.stats.beta``: the beta distribution's ``logpdf``, ``pdf``."""

from tessela._scipy_stats import beta_logpdf as logpdf
from tessela._scipy_stats import beta_pdf as pdf

__all__ = ["logpdf", "pdf"]
