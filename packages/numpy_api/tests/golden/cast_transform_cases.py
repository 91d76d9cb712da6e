"""Constants cast by ``lax.convert_element_type`` (and lifted by ``lax.stage``)
inside ``jit``, ``vmap`` and ``grad``, and ``asarray`` conversions of them.

Shared by ``generate_cast_transform.py`` (run under JAX) and
``test_cast_transforms.py`` (run under Tessela): :func:`outcomes` evaluates
every case with the modules it is given. For each transformation it records
what the function saw (a tracer or a concrete array, its dtype and weak type)
and the value it returned.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

# name -> expression evaluated with ``lax``, ``jnp`` and ``np`` in scope.
CASES: dict[str, str] = {
    "cast_float_f32": "lax.convert_element_type(2.0, 'float32')",
    "cast_float_300_i8": "lax.convert_element_type(300.0, 'int8')",
    "cast_float_nan_i32": "lax.convert_element_type(float('nan'), 'int32')",
    "cast_float_1e10_i32": "lax.convert_element_type(1e10, 'int32')",
    "cast_int_f16": "lax.convert_element_type(3, 'float16')",
    "cast_int_neg_u8": "lax.convert_element_type(-1, 'uint8')",
    "cast_np_f32_i8": "lax.convert_element_type(np.float32(300.0), 'int8')",
    "cast_np_array_i8": "lax.convert_element_type(np.array([1.5, 300.0], np.float32), 'int8')",
    "stage_float": "lax.stage(2.0)",
    "stage_np_array": "lax.stage(np.arange(3, dtype=np.int32))",
    "asarray_300_astype_i8": "jnp.asarray(300.0).astype(jnp.int8)",
    "asarray_nan_astype_i32": "jnp.asarray(float('nan')).astype(jnp.int32)",
    "asarray_2_astype_f16": "jnp.asarray(2).astype(jnp.float16)",
    "asarray_np_array_astype_i8": "jnp.asarray(np.array([1.5, 300.0], np.float32)).astype(jnp.int8)",
    "array_weak_to_f16_plus": "jnp.asarray(2.5) + jnp.ones((), jnp.float16)",
}


def _seen(v: Any, is_tracer: Callable[[Any], bool]) -> dict[str, Any]:
    return {
        "tracer": bool(is_tracer(v)),
        "dtype": str(v.dtype),
        "weak_type": bool(getattr(v, "weak_type", False)),
    }


def _value(v: Any) -> dict[str, Any]:
    arr = np.asarray(v)
    val = arr.tolist()
    return {"dtype": str(arr.dtype), "value": repr(val) if arr.dtype.kind in "fc" else val}


def outcomes(
    lax: Any, jnp: Any, jit: Any, vmap: Any, grad: Any, is_tracer: Callable[[Any], bool]
) -> dict[str, Any]:
    """Per case and transformation: what the function saw and what it gave."""
    warnings.simplefilter("ignore")
    out: dict[str, Any] = {}
    for name, src in CASES.items():
        rec: dict[str, Any] = {}

        def make(box: list[Any], src: str = src) -> Callable[[Any], Any]:
            def traced(x: Any) -> Any:
                v = eval(src, {"lax": lax, "jnp": jnp, "np": np})
                box.append(v)
                return x * 0 + v.astype(np.float32).sum()

            return traced

        for where in ("jit", "vmap", "grad"):
            box: list[Any] = []
            fun = make(box)
            try:
                if where == "jit":
                    res = jit(fun)(np.float32(1.0))
                elif where == "vmap":
                    res = vmap(fun)(np.ones(2, np.float32))
                else:
                    res = grad(fun)(np.float32(1.0))
                rec[where] = {"seen": _seen(box[0], is_tracer), "result": _value(res)}
            except Exception as e:
                rec[where] = {"error": type(e).__name__}
        out[name] = rec
    return out
