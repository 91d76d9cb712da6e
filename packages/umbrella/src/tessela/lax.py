"""``tessela.lax``: the ``jax.lax`` names, from ``tessela_tracer.lax``.

Example:
    >>> import tessela.lax as lax
    >>> print(lax.add(1.0, 2.0))
    3.0
"""

from tessela_tracer.lax import *  # noqa: F403
from tessela_tracer.lax import __all__ as __all__
