"""Element-wise functions against every kind of operand, for ``generate_kinds.py`` and the tests.

Imports only NumPy and ``cases.py`` (whose unary list ``UNARY`` extends).
``UNARY`` and ``BINARY`` name the functions of the NumPy API (``jax.numpy``
and ``tessela_numpy`` alike), ``OPERANDS`` the operands: NumPy arrays of each
dtype kind (with a NaN and infinities among the floats) and Python scalars. ``outcome`` records what a call gives: the exception
class name, or per output its dtype, weak type and values (rounded).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cases import UNARY_F32

OPERANDS: dict[str, Any] = {
    "f32": np.array([1.5, -2.25, 0.0, 7.0], np.float32),
    "f16": np.array([0.5, -3.0, 6.0, 1e-3], np.float16),
    "nan": np.array([np.nan, np.inf, -np.inf, 1.0], np.float32),
    "i8": np.array([3, -4, 0, 127], np.int8),
    "u8": np.array([5, 250, 0, 1], np.uint8),
    "i32": np.array([7, -8, 2**30, 0], np.int32),
    "b": np.array([True, False, True, True]),
    "c64": np.array([1 + 2j, -0.5j, 0, 3], np.complex64),
    "int": 3,
    "float": -0.75,
    "true": True,
    "cplx": 2 - 1j,
}
BINARY_OPERANDS = [k for k in OPERANDS if k != "nan"]

# The unary functions of ``cases.py`` (traced on float32 there), then those
# only run here.
UNARY = [
    *UNARY_F32,
    "degrees",
    "radians",
    "isneginf",
    "isposinf",
    "invert",
    "bitwise_not",
    "bitwise_count",
    "conjugate",
    "angle",
    "i0",
    "nan_to_num",
    "spacing",
    "frexp",
    "modf",
    "iscomplex",
    "isreal",
    "around",
]
BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "power",
    "float_power",
    "remainder",
    "mod",
    "fmod",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "arctan2",
    "hypot",
    "copysign",
    "nextafter",
    "logaddexp",
    "logaddexp2",
    "heaviside",
    "equal",
    "not_equal",
    "less",
    "greater",
    "less_equal",
    "greater_equal",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "gcd",
    "lcm",
    "ldexp",
    "logical_and",
    "logical_or",
    "logical_xor",
    "divmod",
]


def outcome(call: Any) -> Any:
    """``"exc:Name"`` for an exception, else ``[[dtype, weak, values], ...]`` per output."""
    try:
        result = call()
    except Exception as e:  # the class is the data
        return f"exc:{type(e).__name__}"
    outs = result if isinstance(result, tuple | list) else [result]
    entry = []
    for out in outs:
        a = np.asarray(out)
        if a.dtype.kind == "c":
            values: Any = [[round(float(z.real), 4), round(float(z.imag), 4)] for z in a.ravel()]
        else:
            wide = a.astype(np.float64).ravel()
            values = [v if np.isfinite(v) else str(v) for v in np.round(wide, 4).tolist()]
        entry.append([str(a.dtype), bool(getattr(out, "weak_type", False)), values])
    return entry


def calls(np_mod: Any) -> dict[str, Any]:
    """Every case, as a zero-argument call of ``np_mod``'s function."""
    out: dict[str, Any] = {}
    for name in UNARY:
        fn = getattr(np_mod, name)
        for k, x in OPERANDS.items():
            out[f"{name}:{k}"] = lambda fn=fn, x=x: fn(x)
    for name in BINARY:
        fn = getattr(np_mod, name)
        for k1 in BINARY_OPERANDS:
            for k2 in BINARY_OPERANDS:
                x, y = OPERANDS[k1], OPERANDS[k2]
                out[f"{name}:{k1}:{k2}"] = lambda fn=fn, x=x, y=y: fn(x, y)
    return out
