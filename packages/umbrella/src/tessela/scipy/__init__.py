"""``tessela.scipy``: the ``jax.scipy`` submodules composable from Tessela's primitives.

Submodules: ``linalg``, ``ndimage``, ``optimize``, ``signal``, ``special`` and ``stats``.

Example:
    >>> import tessela.scipy as tsp
    >>> print(tsp.stats.norm.cdf(0.0))
    0.5
"""

from . import linalg, ndimage, optimize, signal, special, stats

__all__ = ["linalg", "ndimage", "optimize", "signal", "special", "stats"]
