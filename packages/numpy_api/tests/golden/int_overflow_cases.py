"""Python integers meeting arrays of narrower types, eagerly and under transformations.

Shared by ``generate_int_overflow.py`` (run under JAX) and
``test_int_overflow.py`` (run under Tessela). A Python int operand is weakly
typed: a value of the default integer type (int32, or int64 with x64), which
it must fit whatever the array's dtype (``x_uint32 + 2**31`` and
``x_float16 + 2**40`` raise ``OverflowError`` without x64); inside that range
it converts to the array's dtype (wrapping into an integer type, rounding, to
infinity, into a float type).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

DTYPES = ("int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32")  # fmt: skip
VALUES = (127, 128, 300, -1, -129, 2**15, 2**31 - 1, 2**31, -(2**31) - 1, 2**32, 2**40,
          2**63 - 1, 2**63, 2**64, 10**20)  # fmt: skip
# name -> function of (jnp, x, v)
OPS: dict[str, Callable[[Any, Any, int], Any]] = {
    "add": lambda jnp, x, v: x + v,
    "radd": lambda jnp, x, v: v + x,
    "multiply": lambda jnp, x, v: jnp.multiply(x, v),
    "maximum": lambda jnp, x, v: jnp.maximum(x, v),
    "equal": lambda jnp, x, v: x == v,
    "where": lambda jnp, x, v: jnp.where(x > 0, x, v),
}
# ``add`` runs every dtype and value; the other operations (each converts its
# Python int through the same promotion) run SHORT_DTYPES and SHORT_VALUES.
SHORT_DTYPES = ("int8", "uint32", "float16", "bfloat16")
SHORT_VALUES = (300, 2**31, 2**40)
MODES = ("eager", "jit", "vmap", "grad")


def cases() -> list[tuple[str, str, int, str]]:
    """``(op, dtype, value, mode)`` for every case (grad only for float dtypes)."""
    out = []
    for op in OPS:
        for dt in DTYPES if op == "add" else SHORT_DTYPES:
            for v in VALUES if op == "add" else SHORT_VALUES:
                for mode in MODES:
                    if mode == "grad" and (not dt.startswith(("float", "bfloat")) or op == "equal"):
                        continue
                    out.append((op, dt, v, mode))
    return out


def key(op: str, dt: str, v: int, mode: str) -> str:
    return f"{op}:{dt}:{v}:{mode}"


def _result(r: Any) -> dict[str, Any]:
    arr = np.asarray(r)
    shown = arr.astype(np.float64) if arr.dtype.kind == "V" or "bfloat" in str(arr.dtype) else arr
    val = shown.tolist()
    return {"dtype": str(arr.dtype), "value": repr(val)}


def run(
    jnp: Any, jit: Any, vmap: Any, grad: Any, op: str, dt: str, v: int, mode: str
) -> dict[str, Any]:
    """One case: ``{"error": class name}`` or the result's dtype and value."""
    f = OPS[op]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # int64 without x64 is int32, as the oracle warns
            x = jnp.asarray(np.array([1.0, 3.0]).astype(np.float32)).astype(dt)
            if mode == "eager":
                r = f(jnp, x, v)
            elif mode == "jit":
                r = jit(lambda x: f(jnp, x, v))(x)
            elif mode == "vmap":
                r = vmap(lambda x: f(jnp, x, v))(x)
            else:
                r = grad(lambda s: f(jnp, s, v).astype(np.float32).sum())(x[0])
        return _result(r)
    except Exception as e:
        return {"error": type(e).__name__}
