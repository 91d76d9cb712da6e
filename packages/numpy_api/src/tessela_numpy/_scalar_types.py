"""Dtype names, constants and dtype utilities re-exported under NumPy's names."""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt

__all__ = [
    "bfloat16",
    "bool_",
    "can_cast",
    "complex64",
    "complex128",
    "dtype",
    "e",
    "euler_gamma",
    "finfo",
    "float16",
    "float32",
    "float64",
    "iinfo",
    "inf",
    "int8",
    "int16",
    "int32",
    "int64",
    "issubdtype",
    "nan",
    "newaxis",
    "pi",
    "promote_types",
    "result_type",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]  # fmt: skip

bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
bfloat16 = _dt.bfloat16.type
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


def result_type(*args: Any) -> np.dtype[Any]:
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


def can_cast(from_: Any, to: Any, /, casting: str = "safe") -> bool:
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
