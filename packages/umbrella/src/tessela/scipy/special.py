"""``tessela.scipy.special``: the ``jax.scipy.special`` functions, composed from ``lax``.

The incomplete gamma and beta functions and the Bessel functions build on the
tracer's ``special`` primitives (``lax.igamma``, ``lax.betainc``,
``lax.bessel_i0e``, ...); the rest are JAX's formulas in ``tessela.numpy``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy import special
    >>> print(special.logsumexp(tnp.zeros(4)))
    1.3862944
"""

from tessela._scipy_ndtr import *  # noqa: F403
from tessela._scipy_ndtr import __all__ as _ndtr_all
from tessela._scipy_special import *  # noqa: F403
from tessela._scipy_special import __all__ as _special_all
from tessela._scipy_special_erf import *  # noqa: F403
from tessela._scipy_special_erf import __all__ as _erf_all
from tessela._scipy_special_gamma import *  # noqa: F403
from tessela._scipy_special_gamma import __all__ as _gamma_all
from tessela._scipy_special_hyp import *  # noqa: F403
from tessela._scipy_special_hyp import __all__ as _hyp_all
from tessela._scipy_special_integrals import *  # noqa: F403
from tessela._scipy_special_integrals import __all__ as _integrals_all
from tessela._scipy_special_more import *  # noqa: F403
from tessela._scipy_special_more import __all__ as _more_all

__all__ = sorted([
    *_special_all, *_ndtr_all, *_erf_all, *_gamma_all, *_more_all, *_hyp_all, *_integrals_all,
])  # fmt: skip
