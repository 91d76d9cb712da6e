"""``tessela.scipy.stats.t``: the Student's t distribution's ``logpdf``, ``pdf``."""

from tessela._scipy_stats import t_logpdf as logpdf
from tessela._scipy_stats import t_pdf as pdf

__all__ = ["logpdf", "pdf"]
