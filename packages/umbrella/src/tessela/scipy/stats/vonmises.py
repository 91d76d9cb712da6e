"""``tessela.scipy.stats.vonmises``: the von Mises distribution's ``logpdf``, ``pdf``."""

from tessela._scipy_stats_cdfs import vonmises_logpdf as logpdf
from tessela._scipy_stats_cdfs import vonmises_pdf as pdf

__all__ = ["logpdf", "pdf"]
