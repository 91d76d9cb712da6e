"""``tessela.numpy``: the ``jax.numpy`` names, from ``tessela_numpy``.

Example:
    >>> import tessela.numpy as tnp
    >>> print(tnp.arange(3.0) * 2)
    [0. 2. 4.]
"""

from tessela_numpy import *  # noqa: F403
from tessela_numpy import __all__ as __all__
