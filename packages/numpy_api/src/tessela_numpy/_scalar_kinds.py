"""NumPy's abstract scalar types and JAX's scalar aliases, and the shape queries.

``integer``, ``floating``, ``inexact``, ``complexfloating`` and the other
abstract types are NumPy's own classes, as in ``jax.numpy``, so
``issubdtype(x.dtype, integer)`` works. ``bool``, ``single``, ``double``,
``int_``, ``float_``, ... are the scalar types of their dtypes (64-bit names
give 32-bit arrays unless 64-bit mode is on). ``shape``, ``ndim`` and
``size`` read an array's (or tracer's) attributes without converting it.

>>> import numpy as np
>>> np.issubdtype(np.dtype("int8"), integer), shape(np.zeros((2, 3))), size(np.zeros((2, 3)), 1)
(True, (2, 3), 3)
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer.typing import ArrayLike

from ._scalar_types import bool_, complex64, complex128, float32, float64, int64, uint64

__all__ = [
    "bool", "cdouble", "character", "complex_", "complexfloating", "csingle", "double",
    "flexible", "float_", "floating", "generic", "inexact", "int_", "integer", "iscomplexobj",
    "isrealobj", "isscalar", "iterable", "ndim", "number", "object_", "shape",
    "signedinteger", "single", "size", "uint", "unsignedinteger",
]  # fmt: skip

generic = np.generic
number = np.number
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
character = np.character
flexible = np.flexible
object_ = np.object_

bool = bool_
single = float32
double = float64
float_ = float64
csingle = complex64
cdouble = complex128
complex_ = complex128
int_ = int64
uint = uint64


def _check_arraylike(name: str, a: Any) -> None:
    if isinstance(a, (list, tuple)):
        warnings.warn(
            f"{name} requires ndarray or scalar arguments, got {type(a).__name__} at "
            "position 0. In a future JAX release this will be an error.",
            DeprecationWarning,
            stacklevel=3,
        )


def ndim(a: ArrayLike) -> int:
    """The number of dimensions of ``a``.

    Args:
        a: an array, tracer, scalar, or any object with an ``ndim`` attribute.

    Returns:
        ``a.ndim`` (``np.ndim(a)`` for objects without one; a list or tuple
        warns, as in JAX).

    >>> ndim(np.zeros((2, 3))), ndim(1.0)
    (2, 0)
    """
    if hasattr(a, "ndim"):
        return int(a.ndim)
    _check_arraylike("ndim", a)
    return int(np.ndim(a))


def shape(a: ArrayLike) -> tuple[int, ...]:
    """The shape of ``a``.

    Args:
        a: an array, tracer, scalar, or any object with a ``shape`` attribute.

    Returns:
        ``a.shape`` as a tuple (``np.shape(a)`` for objects without one).

    >>> shape(np.zeros((2, 3))), shape(1.0)
    ((2, 3), ())
    """
    if hasattr(a, "shape"):
        return tuple(a.shape)
    _check_arraylike("shape", a)
    return tuple(np.shape(a))


def size(a: ArrayLike, axis: int | Sequence[int] | None = None) -> int:
    """The number of elements of ``a``, or along ``axis``.

    Args:
        a: an array, tracer or scalar.
        axis: an axis or axes to count along; ``None`` counts every element.

    Returns:
        The element count.

    Raises:
        ValueError: an axis out of range, or repeated.

    >>> size(np.zeros((2, 3))), size(np.zeros((2, 3)), axis=(0, 1))
    (6, 6)
    """
    _check_arraylike("size", a)
    if axis is None and hasattr(a, "size"):
        return int(a.size)
    dims = shape(a)
    axes = (axis,) if isinstance(axis, int) else tuple(range(len(dims)) if axis is None else axis)
    normalized = []
    for ax in axes:
        if not -len(dims) <= ax < len(dims):
            raise ValueError(f"axis {ax} is out of bounds for array of dimension {len(dims)}")
        normalized.append(ax % len(dims))
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"repeated axis in size: axis={axis}")
    return math.prod(dims[i] for i in normalized)


def iscomplexobj(x: ArrayLike) -> builtins.bool:
    """Whether ``x`` has a complex dtype (its values are not inspected).

    Args:
        x: an array, tracer, scalar or array-like.

    Returns:
        True for a complex dtype or a complex scalar.

    >>> iscomplexobj(1j), iscomplexobj(np.zeros(2)), iscomplexobj(None)
    (True, False, False)
    """
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (int, float, str, np.generic)):
        return False
    try:
        typ = x.dtype.type
    except AttributeError:
        typ = np.asarray(x).dtype.type
    return issubclass(typ, np.complexfloating)


def isrealobj(x: ArrayLike) -> builtins.bool:
    """Whether ``x`` does not have a complex dtype.

    Args:
        x: an array, tracer, scalar or array-like.

    Returns:
        ``not iscomplexobj(x)``.

    >>> isrealobj(np.zeros(2)), isrealobj(1j)
    (True, False)
    """
    return not iscomplexobj(x)


def isscalar(element: ArrayLike) -> builtins.bool:
    """Whether ``element`` is a scalar: a Python or NumPy scalar, or a 0-d array.

    Unlike ``np.isscalar``, a 0-d array (or tracer) counts, as in JAX.

    Args:
        element: any object.

    Returns:
        True for scalars and 0-d arrays; False for lists, strings of arrays, ...

    >>> isscalar(1.0), isscalar(np.zeros(())), isscalar([1.0])
    (True, True, False)
    """
    if np.isscalar(element):
        return True
    if hasattr(element, "ndim") and hasattr(element, "dtype"):
        return int(element.ndim) == 0
    return False


def iterable(y: Any) -> builtins.bool:
    """Whether ``iter(y)`` succeeds, as ``np.iterable``.

    Args:
        y: any object.

    Returns:
        True for iterables (arrays of one or more dimensions, lists, ...).

    >>> iterable([1]), iterable(1.0), iterable(np.zeros(()))
    (True, False, False)
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True
