"""``tessela.scipy.special``: the ``jax.scipy.special`` functions composable from ``lax``.

Functions that need primitives Tessela lacks (``gammainc``, ``betainc``, the
Bessel functions, ``erfcx``, ...) are not provided.

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
from tessela._scipy_special_more import *  # noqa: F403
from tessela._scipy_special_more import __all__ as _more_all

__all__ = sorted([*_special_all, *_ndtr_all, *_more_all])
