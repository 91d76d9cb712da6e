"""Constants cast by ``lax.convert_element_type`` and lifted by ``lax.stage``.

Shared by ``generate_constant_cast.py`` (run under JAX, the oracle) and
``test_constant_staging.py`` (run under Tessela): :func:`outcomes` evaluates
every case with the ``lax`` module it is given, so both sides run the same
expressions. No backend is needed: the jaxprs are traced and the eager
values read on the host.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

# name -> (operand expression, target dtype); the operand is evaluated with
# ``np`` in scope.
CASTS: dict[str, tuple[str, str]] = {
    "float_to_f32": ("2.0", "float32"),
    "float_to_i32": ("2.7", "int32"),
    "float_to_f16": ("2.5", "float16"),
    "float_300_to_i8": ("300.0", "int8"),
    "float_neg_to_u8": ("-1.5", "uint8"),
    "float_1e10_to_i32": ("1e10", "int32"),
    "float_nan_to_i32": ("float('nan')", "int32"),
    "float_inf_to_i32": ("float('inf')", "int32"),
    "float_nan_to_f16": ("float('nan')", "float16"),
    "float_1e39_to_f32": ("1e39", "float32"),
    "int_to_f32": ("2", "float32"),
    "int_neg_to_u8": ("-1", "uint8"),
    "int_300_to_i8": ("300", "int8"),
    "int_2p40_to_i32": ("2**40", "int32"),
    "int_2p40_to_f16": ("2**40", "float16"),
    "bool_to_f32": ("True", "float32"),
    "bool_to_i8": ("False", "int8"),
    "complex_to_c64": ("1+2j", "complex64"),
    "np_f32_300_to_i8": ("np.float32(300.0)", "int8"),
    "np_f32_to_f32": ("np.float32(1.5)", "float32"),
    "np_f16_to_f32": ("np.float16(2.5)", "float32"),
    "np_i8_to_u8": ("np.int8(-3)", "uint8"),
    "np_c64_to_f32": ("np.complex64(1.5+2j)", "float32"),
    "np_f64_to_i32": ("np.float64(-7.9)", "int32"),
    "np_u32_to_i8": ("np.uint32(4000000000)", "int8"),
    "np_0d_to_f16": ("np.array(2.5, np.float32)", "float16"),
    "np_array_to_i8": ("np.array([1.5, 300.0], np.float32)", "int8"),
    "np_array_to_f32": ("np.array([1, 2], np.int32)", "float32"),
}

# name -> operand expression of ``lax.stage``.
STAGES: dict[str, str] = {
    "stage_float": "2.0",
    "stage_int": "3",
    "stage_bool": "True",
    "stage_np_i8": "np.int8(3)",
    "stage_np_f64": "np.float64(2.0)",
    "stage_np_array": "np.ones(3, np.float32)",
    "stage_np_0d": "np.array(1.5, np.float32)",
}


def _describe(v: Any, is_tracer: Callable[[Any], bool]) -> dict[str, Any]:
    aval = getattr(v, "aval", None)
    return {
        "tracer": bool(is_tracer(v)),
        "aval": None if aval is None else str(aval.str_short()),
        "weak_type": None if aval is None else bool(aval.weak_type),
    }


def _host(v: Any) -> dict[str, Any]:
    arr = np.asarray(v)
    val = arr.tolist()
    if arr.dtype.kind in "fc":
        val = repr(val)  # NaN and infinities kept
    return {"dtype": str(arr.dtype), "value": val}


def _one(
    fn: Callable[[], Any], make_jaxpr: Any, is_tracer: Callable[[Any], bool]
) -> dict[str, Any]:
    rec: dict[str, Any] = {}
    box: list[Any] = []

    def traced() -> Any:
        box.append(fn())
        return box[-1]

    try:
        rec["jaxpr"] = str(make_jaxpr(traced)())
        rec["inner"] = _describe(box[0], is_tracer)
    except Exception as e:
        rec["jaxpr_error"] = type(e).__name__
    try:
        rec["eager"] = _host(fn())
    except Exception as e:
        rec["eager_error"] = type(e).__name__
    return rec


def _used(lax: Any, make_jaxpr: Any, src: str, dt: str) -> dict[str, Any]:
    """The jaxpr of a traced argument plus the cast constant (a literal operand)."""
    try:
        f = lambda a: lax.add(a, lax.convert_element_type(eval(src), dt))  # noqa: E731
        return {"jaxpr": str(make_jaxpr(f)(np.ones((), dt)))}
    except Exception as e:
        return {"jaxpr_error": type(e).__name__}


def outcomes(lax: Any, make_jaxpr: Any, is_tracer: Callable[[Any], bool]) -> dict[str, Any]:
    """Per case: the jaxpr, what the function saw while traced, the eager value (or errors)."""
    warnings.simplefilter("ignore")
    out: dict[str, Any] = {}
    for name, (src, dt) in CASTS.items():
        fn = lambda src=src, dt=dt: lax.convert_element_type(eval(src), dt)  # noqa: E731
        out[name] = _one(fn, make_jaxpr, is_tracer)
        if np.ndim(eval(src)) == 0:
            out[name + "+arg"] = _used(lax, make_jaxpr, src, dt)
    for name, src in STAGES.items():
        out[name] = _one(lambda src=src: lax.stage(eval(src)), make_jaxpr, is_tracer)
    return out
