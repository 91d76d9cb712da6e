"""``tessela.scipy``: the ``jax.scipy`` submodules composable from Tessela's primitives.

Submodules: ``cluster``, ``fft``, ``integrate``, ``interpolate``, ``linalg``, ``ndimage``,
``optimize``, ``signal``, ``special`` and ``stats``.

Example:
    >>> import tessela.scipy as tsp
    >>> print(tsp.stats.norm.cdf(0.0))
    0.5
"""

from . import (
    cluster,
    fft,
    integrate,
    interpolate,
    linalg,
    ndimage,
    optimize,
    signal,
    special,
    stats,
)

__all__ = [
    "cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize", "signal",
    "special", "stats",
]  # fmt: skip
