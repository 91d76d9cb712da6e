"""``tessela.scipy.stats.logistic``: the logistic distribution's ``cdf``, ``isf``, ``logpdf``, ``pdf``, ``ppf``, ``sf``."""

from tessela._scipy_stats import logistic_cdf as cdf
from tessela._scipy_stats import logistic_isf as isf
from tessela._scipy_stats import logistic_logpdf as logpdf
from tessela._scipy_stats import logistic_pdf as pdf
from tessela._scipy_stats import logistic_ppf as ppf
from tessela._scipy_stats import logistic_sf as sf

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]
