"""``tessela.scipy.stats.dirichlet``: the Dirichlet distribution: ``logpdf``, ``pdf``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.stats import dirichlet
    >>> print(round(float(dirichlet.pdf(tnp.array([0.2, 0.8]), tnp.array([1.0, 1.0]))), 4))
    1.0
"""

from tessela._scipy_stats_more import dirichlet_logpdf as logpdf
from tessela._scipy_stats_more import dirichlet_pdf as pdf

__all__ = ["logpdf", "pdf"]
