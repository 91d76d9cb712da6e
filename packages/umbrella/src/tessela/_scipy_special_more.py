"""More ``jax.scipy.special`` functions, with JAX's formulas: ``boxcox``, ``boxcox1p``, ``poch``.

Example:
    >>> from tessela._scipy_special_more import poch
    >>> print(poch(3.0, 2.0))  # gamma's float32 rounding, as in JAX
    12.000009
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr, promote_inexact
from ._scipy_special import gamma

__all__ = ["boxcox", "boxcox1p", "poch"]


def _box_cox(log_term: Any, lmbda: Any) -> Any:
    is_zero = lmbda == 0
    safe = tnp.where(is_zero, tnp.ones_like(lmbda), lmbda)
    return tnp.where(is_zero, log_term, tnp.expm1(safe * log_term) / safe)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transformation ``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda == 0``).

    Args:
        x: the data (positive).
        lmbda: the transformation parameter.

    Returns:
        The transformed values.

    Example:
        >>> print(boxcox(1.0, 0.5), boxcox(2.0, 0.0))
        0.0 0.6931472
    """
    x, lmbda = (_arr(a) for a in promote_inexact("boxcox", x, lmbda))
    return cast(Array, _box_cox(tnp.log(x), lmbda))


def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transformation of ``1 + x``.

    Args:
        x: the data (greater than -1).
        lmbda: the transformation parameter.

    Returns:
        The transformed values.

    Example:
        >>> print(boxcox1p(0.0, 0.5))
        0.0
    """
    x, lmbda = (_arr(a) for a in promote_inexact("boxcox1p", x, lmbda))
    return cast(Array, _box_cox(tnp.log1p(x), lmbda))


def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The Pochhammer symbol (rising factorial) ``gamma(z + m) / gamma(z)``.

    Args:
        z: real values.
        m: real values.

    Returns:
        ``(z)_m``; 1 where ``m == 0``.

    Raises:
        ValueError: complex inputs, as in JAX.

    Example:
        >>> print(poch(1.0, 3.0))  # as JAX prints it
        6.0000024
    """
    z, m = (_arr(a) for a in promote_inexact("poch", z, m))
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return tnp.where(m == 0.0, tnp.ones((), z.dtype), gamma(z + m) / gamma(z))
