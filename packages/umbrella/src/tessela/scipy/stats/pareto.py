"""``tessela.scipy.stats.pareto``: the Pareto distribution: ``cdf``, ``logcdf``, ``logpdf``, ``logsf``, ``pdf``, ``ppf``, ``sf``.

Example:
    >>> from tessela.scipy.stats import pareto
    >>> print(round(float(pareto.cdf(2.0, 1.0)), 6))
    0.5
"""

from tessela._scipy_stats_more import pareto_cdf as cdf
from tessela._scipy_stats_more import pareto_logcdf as logcdf
from tessela._scipy_stats_more import pareto_logpdf as logpdf
from tessela._scipy_stats_more import pareto_logsf as logsf
from tessela._scipy_stats_more import pareto_pdf as pdf
from tessela._scipy_stats_more import pareto_ppf as ppf
from tessela._scipy_stats_more import pareto_sf as sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
