"""Scalar types, constants and dtype utilities under NumPy's names.

``float32``, ``int32`` and the other scalar types are dtype names that can be
called: ``float32(3)`` is an array of dtype ``float32``, as in ``jax.numpy``.
Under a trace, calling one converts a tracer with ``convert_element_type``.

>>> import numpy as np
>>> float32 == np.float32, np.dtype(int8)
(True, dtype('int8'))
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer.typing import ArrayLike, DTypeLike

__all__ = [
    "bfloat16", "bool_", "can_cast", "complex64", "complex128", "dtype", "e", "euler_gamma",
    "finfo", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "float16", "float32", "float64", "iinfo", "inf", "int1", "int2", "int4",
    "int8", "int16", "int32", "int64", "issubdtype", "nan", "newaxis", "pi", "promote_types",
    "result_type", "uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
]  # fmt: skip


class _ScalarMeta(type):
    """The metaclass of ``float32`` & co.: a dtype name that is also a constructor.

    A scalar type compares and hashes like the NumPy scalar type it stands
    for, so it works wherever a dtype is expected (``np.dtype(float32)``,
    ``zeros(3, float32)``, ``x.astype(float32)``); calling it converts its
    argument to an array of its dtype, as ``jnp.float32(3)`` does.
    """

    dtype: np.dtype[Any]

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: object) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: object) -> bool:
        return not type(cls).__eq__(cls, other)

    def __call__(cls, x: Any) -> Any:
        from ._creation import asarray

        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)


def _make_scalar_type(np_type: Any) -> Any:
    """A scalar type named and typed like ``np_type``.

    Args:
      np_type: a NumPy scalar type (or ``bfloat16``'s scalar type).

    Returns:
      A class whose ``dtype`` is ``np.dtype(np_type)``; calling it builds an array.

    >>> f32 = _make_scalar_type(np.float32)
    >>> f32.dtype, f32 == np.float32, np.dtype(f32)
    (dtype('float32'), True, dtype('float32'))
    """
    dt = np.dtype(np_type)
    name = np_type.__name__
    return _ScalarMeta(name, (object,), {"dtype": dt, "__module__": "tessela_numpy"})


bool_ = _make_scalar_type(np.bool_)
int8, int16, int32, int64 = (_make_scalar_type(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (
    _make_scalar_type(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)
)
float16, float32, float64 = (_make_scalar_type(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = (_make_scalar_type(t) for t in (np.complex64, np.complex128))
bfloat16 = _make_scalar_type(_dt.bfloat16.type)
# The narrow types of jax.numpy, through the tracer's dtypes (from ml_dtypes).
float8_e4m3b11fnuz = _make_scalar_type(_dt.float8_e4m3b11fnuz.type)
float8_e4m3fn = _make_scalar_type(_dt.float8_e4m3fn.type)
float8_e4m3fnuz = _make_scalar_type(_dt.float8_e4m3fnuz.type)
float8_e5m2 = _make_scalar_type(_dt.float8_e5m2.type)
float8_e5m2fnuz = _make_scalar_type(_dt.float8_e5m2fnuz.type)
float8_e4m3 = _make_scalar_type(_dt.float8_e4m3.type)
float8_e3m4 = _make_scalar_type(_dt.float8_e3m4.type)
float8_e8m0fnu = _make_scalar_type(_dt.float8_e8m0fnu.type)
float6_e2m3fn = _make_scalar_type(_dt.float6_e2m3fn.type)
float6_e3m2fn = _make_scalar_type(_dt.float6_e3m2fn.type)
float4_e2m1fn = _make_scalar_type(_dt.float4_e2m1fn.type)
int4 = _make_scalar_type(_dt.int4.type)
uint4 = _make_scalar_type(_dt.uint4.type)
int2 = _make_scalar_type(_dt.int2.type)
uint2 = _make_scalar_type(_dt.uint2.type)
int1 = _make_scalar_type(_dt.int1.type)
uint1 = _make_scalar_type(_dt.uint1.type)
dtype = np.dtype
finfo = _dt.finfo
iinfo = _dt.iinfo
issubdtype = _dt.issubdtype
promote_types = _dt.promote_types

pi = float(np.pi)
e = float(np.e)
euler_gamma = float(np.euler_gamma)
inf = float(np.inf)
nan = float(np.nan)
newaxis = None


def result_type(*args: ArrayLike | DTypeLike) -> np.dtype[Any]:
    """The dtype JAX's promotion rules give ``args`` (weak Python scalars included).

    Args:
      *args: arrays, scalars or dtypes.

    Returns:
      The canonical result dtype.

    >>> result_type(np.int8, 1.0)
    dtype('float32')
    """
    out: np.dtype[Any] = np.dtype(_dt.result_type(*args))
    return out


def can_cast(from_: ArrayLike | DTypeLike, to: DTypeLike, casting: str = "safe") -> bool:
    """Whether a cast is allowed under NumPy's ``casting`` rule.

    Args:
      from_: a dtype or array.
      to: a dtype.
      casting: ``"no"``, ``"equiv"``, ``"safe"``, ``"same_kind"`` or ``"unsafe"``.

    Returns:
      The NumPy answer for the two dtypes.

    >>> can_cast(np.int8, np.float32)
    True
    """
    return bool(np.can_cast(_dt.dtype(from_), _dt.dtype(to), casting=casting))  # type: ignore[arg-type]
