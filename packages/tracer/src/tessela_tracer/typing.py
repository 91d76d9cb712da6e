"""Annotations for arrays: ``Array`` (tracers and concrete arrays), ``ArrayLike``, ``DTypeLike``, ``Value``.

``Array`` is the one abstract array type (``tessela.Array``, and
``jax.Array`` under the alias): every tracer and every concrete array of a
backend (``tessela_lowering``'s device array) derives from it, so
``isinstance(x, Array)`` is true inside and outside transformations and false
for NumPy arrays. It has ``shape``, ``dtype``, ``ndim``, ``size``, the
operators and the array methods (it is also named ``ArrayOps``). ``ArrayLike`` is what operations accept as an operand: an
``Array``, a NumPy array or scalar, or a Python scalar. ``DTypeLike`` names a
dtype: a NumPy dtype-like (string, scalar type, dtype) or an extended dtype.
``Value`` is what a primitive is applied to (``Primitive.bind``,
``eval_jaxpr``): an ``ArrayLike`` or a :class:`~tessela_tracer.extend.Token`.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import lax, make_jaxpr
    >>> def double(x: ArrayLike) -> Array:
    ...     return lax.mul(x, 2.0)
    >>> make_jaxpr(double)(np.float32(1)).out_avals
    [ShapedArray(float32[])]
"""

from __future__ import annotations

from typing import TypeAlias, cast

import numpy as np

from tessela_tracer._array_ops import Array
from tessela_tracer._avals import Token
from tessela_tracer._dtypes import DTypeLike

__all__ = ["Array", "ArrayLike", "DTypeLike", "Value", "unchanged"]

ArrayLike: TypeAlias = Array | np.ndarray | np.generic | bool | int | float | complex
Value: TypeAlias = ArrayLike | Token


def unchanged(x: object, /) -> Array:
    """``x`` itself, typed as an ``Array``: the value of an operation that changes nothing.

    Operations such as ``lax.reshape`` to the same shape or
    ``lax.convert_element_type`` of a constant return their operand (or its
    folded NumPy value) instead of staging an equation, as JAX's do; this
    marks those returns.

    Args:
      x: the operand, or its constant-folded value.

    Returns:
      ``x``.

    Example:
        >>> unchanged(3)
        3
    """
    return cast(Array, x)
