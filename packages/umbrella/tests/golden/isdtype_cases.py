"""Cases for the array API's ``isdtype``: every dtype against every kind edge.

Shared by ``generate_isdtype.py`` (run under the reference implementation) and
``test_xp_isdtype.py``. :func:`run` takes an ``isdtype(dtype, kind)`` function
and returns, per case, ``True``/``False`` or ``"<exception class>: <message>"``.
The cases cover the edges where a kind table built on NumPy's type hierarchy
parts from the reference's explicit kind sets: unknown kind names, tuples
(valid and not, nested), dtype objects and scalar types as kinds, ``None``,
object and timedelta64 dtypes, and the ml_dtypes types (bfloat16, float8,
float4, int4, int2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

DTYPES: dict[str, Any] = {
    name: np.dtype(name)
    for name in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128",
        "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float4_e2m1fn",
        "int4", "uint4", "int2", "uint2",
    )
}  # fmt: skip
DTYPES.update(
    {
        "object": np.dtype(object),
        "timedelta64": np.dtype("m8[s]"),
        "datetime64": np.dtype("M8[s]"),
        "str": np.dtype("U3"),
        "void": np.dtype("V4"),
    }
)

KINDS: dict[str, Any] = {
    "bool": "bool",
    "signed": "signed integer",
    "unsigned": "unsigned integer",
    "integral": "integral",
    "real": "real floating",
    "complex": "complex floating",
    "numeric": "numeric",
    "unknown_name": "foo",
    "wrong_case_name": "Real Floating",
    "dtype_name": "float32",
    "timedelta_name": "m8[s]",
    "tuple": ("bool", "integral"),
    "tuple_unknown_first": ("foo", "bool"),
    "tuple_unknown_last": ("bool", "foo"),
    "tuple_kind_and_type": ("real floating", np.int8),
    "tuple_nested": (("bool",),),
    "tuple_empty": (),
    "scalar_type": np.float32,
    "dtype_object": np.dtype("int8"),
    "bfloat16_type": ml_dtypes.bfloat16,
    "float8_dtype": np.dtype(ml_dtypes.float8_e4m3fn),
    "int4_dtype": np.dtype(ml_dtypes.int4),
    "object_type": object,
    "none": None,
    "int": 3,
    "list": [1],
}


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return bool(fn())
    except Exception as err:
        return f"{type(err).__name__}: {err}"


def run(isdtype: Callable[[Any, Any], bool]) -> dict[str, Any]:
    """Every case's outcome, keyed ``"<dtype>|<kind>"``."""
    return {
        f"{dname}|{kname}": _outcome(lambda d=dtype, k=kind: isdtype(d, k))
        for dname, dtype in DTYPES.items()
        for kname, kind in KINDS.items()
    }
