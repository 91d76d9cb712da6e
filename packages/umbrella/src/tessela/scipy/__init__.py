"""``tessela.scipy``: the ``jax.scipy`` submodules composable from Tessela's primitives.

Submodules: ``special`` and ``stats``.

Example:
    >>> import tessela.scipy as tsp
    >>> print(tsp.stats.norm.cdf(0.0))
    0.5
"""

from . import special, stats

__all__ = ["special", "stats"]
