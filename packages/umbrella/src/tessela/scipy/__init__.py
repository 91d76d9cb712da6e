"""``tessela.scipy``: the ``jax.scipy`` submodules composable from Tessela's primitives.

Submodules: ``linalg``, ``special`` and ``stats``.

Example:
    >>> import tessela.scipy as tsp
    >>> print(tsp.stats.norm.cdf(0.0))
    0.5
"""

from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
