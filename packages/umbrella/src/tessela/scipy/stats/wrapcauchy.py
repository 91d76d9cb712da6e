"""``tessela.scipy.stats.wrapcauchy``: the wrapped Cauchy distribution: ``logpdf``, ``pdf``.

Example:
    >>> from tessela.scipy.stats import wrapcauchy
    >>> print(round(float(wrapcauchy.pdf(1.0, 0.5)), 6))
    0.168193
"""

from tessela._scipy_stats_more import wrapcauchy_logpdf as logpdf
from tessela._scipy_stats_more import wrapcauchy_pdf as pdf

__all__ = ["logpdf", "pdf"]
