"""``tessela.scipy.stats.chi2``: the chi-squared distribution (its CDF needs the incomplete gamma function, not provided): ``logpdf``, ``pdf``.

Example:
    >>> from tessela.scipy.stats import chi2
    >>> print(round(float(chi2.pdf(2.0, 2.0)), 6))
    0.18394
"""

from tessela._scipy_stats_more import chi2_logpdf as logpdf
from tessela._scipy_stats_more import chi2_pdf as pdf

__all__ = ["logpdf", "pdf"]
