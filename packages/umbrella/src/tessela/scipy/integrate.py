"""``tessela.scipy.integrate``: ``trapezoid``, as ``jax.scipy.integrate``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.integrate import trapezoid
    >>> print(trapezoid(tnp.array([1.0, 2.0, 3.0])))
    4.0
"""

import tessela_numpy as tnp
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["trapezoid"]


def trapezoid(
    y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
) -> Array:
    """Integrate ``y`` along ``axis`` with the trapezoidal rule.

    Args:
        y: the samples.
        x: the sample points (spacing ``dx`` when None).
        dx: the spacing when ``x`` is None.
        axis: the axis to integrate along.

    Returns:
        The integral.
    """
    return tnp.trapezoid(y, x, dx, axis)
