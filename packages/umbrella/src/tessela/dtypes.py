"""``tessela.dtypes``: the ``jax.dtypes`` names.

Promotion, canonicalization, ``float0``, ``bfloat16``, ``finfo`` and
``iinfo`` are ``tessela_tracer.dtypes``'s own objects. ``extended`` and
``prng_key`` are the abstract scalar types of extended dtypes: the dtype of a
new-style key array (``tessela.random.key``) is a ``prng_key`` subdtype.

Example:
    >>> import tessela.random as random
    >>> from tessela import dtypes
    >>> dtypes.issubdtype(random.key(0).dtype, dtypes.prng_key)
    True
    >>> dtypes.issubdtype("int8", dtypes.extended)
    False
    >>> print(dtypes.canonicalize_dtype("float64"))
    float32
"""

from __future__ import annotations

from typing import Any, TypeGuard

import numpy as np
from tessela_tracer.dtypes import (
    TypePromotionError,
    bfloat16,
    canonicalize_dtype,
    extended,
    finfo,
    float0,
    iinfo,
    prng_key,
    result_type,
)
from tessela_tracer.dtypes import dtype as _dtype
from tessela_tracer.dtypes import issubdtype as _issubdtype
from tessela_tracer.typing import ArrayLike

from .typing import DTypeLike

__all__ = [
    "TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo", "float0",
    "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type", "scalar_type_of",
]  # fmt: skip


def _is_key_dtype(x: Any) -> bool:
    return hasattr(x, "impl") and str(getattr(x, "name", "")).startswith("key<")


def _is_extended_class(x: object) -> TypeGuard[type]:
    return isinstance(x, type) and issubclass(x, extended)


def issubdtype(a: DTypeLike, b: DTypeLike, /) -> bool:
    """Whether dtype ``a`` is under ``b`` in the type hierarchy, extended dtypes included.

    Args:
        a: a dtype, scalar type or extended dtype (a key array's ``dtype``).
        b: a dtype, an abstract NumPy type (``np.floating``, ...), ``extended``
            or ``prng_key``.

    Returns:
        True when ``a`` is ``b`` or a subtype of it.

    Example:
        >>> import numpy as np
        >>> issubdtype("bfloat16", np.floating)
        True
    """
    if _is_key_dtype(a):
        return _is_extended_class(b) and issubclass(prng_key, b)
    if _is_extended_class(a):
        return _is_extended_class(b) and issubclass(a, b)
    if _is_extended_class(b):
        return False
    return bool(_issubdtype(a, b))


def itemsize_bits(dtype: DTypeLike, /) -> int:
    """The size of one element of ``dtype`` in bits (4 for ``int4``).

    Args:
        dtype: a dtype-like.

    Returns:
        The number of bits.

    Example:
        >>> itemsize_bits("int4"), itemsize_bits("float6_e2m3fn"), itemsize_bits("float32")
        (4, 6, 32)
    """
    if dtype is None:
        raise ValueError("itemsize_bits: dtype cannot be None; pass a dtype.")
    dt = np.dtype(_dtype(dtype))
    name = dt.name
    bits = _SUB_BYTE.get(name) or _SUB_BYTE.get(name.partition("_")[0] + "_")
    return bits or int(dt.itemsize * 8)


_SUB_BYTE = {
    "int1": 1, "uint1": 1, "int2": 2, "uint2": 2, "int4": 4, "uint4": 4,
    "float4_": 4, "float6_": 6,
}  # fmt: skip
"""Element types narrower than the byte NumPy stores each in: name (or float family), bits."""


def scalar_type_of(x: ArrayLike, /) -> type:
    """The Python scalar type (``bool``, ``int``, ``float`` or ``complex``) of ``x``'s dtype.

    Args:
        x: an array or scalar.

    Returns:
        The Python type matching the dtype's kind.

    Example:
        >>> scalar_type_of(1.5), scalar_type_of(np.int8(3))
        (<class 'float'>, <class 'int'>)
    """
    dt = _dtype(x)
    if _issubdtype(dt, np.bool_):
        return bool
    if _issubdtype(dt, np.integer):
        return int
    if _issubdtype(dt, np.floating):
        return float
    if _issubdtype(dt, np.complexfloating):
        return complex
    raise TypeError(f"scalar_type_of: invalid scalar value {x!r}; pass a numeric array or scalar.")
