"""``tessela.scipy.stats.uniform``: the uniform distribution's ``cdf``, ``logpdf``, ``pdf``, ``ppf``."""

from tessela._scipy_stats import uniform_cdf as cdf
from tessela._scipy_stats import uniform_logpdf as logpdf
from tessela._scipy_stats import uniform_pdf as pdf
from tessela._scipy_stats import uniform_ppf as ppf

__all__ = ["cdf", "logpdf", "pdf", "ppf"]
