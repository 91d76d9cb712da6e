"""Write narrow_dtypes.json: JAX 0.10.2's promotion and limits of the narrow types.

Run with a Python that has JAX 0.10.2 (never the Tessela environment):
``python narrow_dtypes.py`` rewrites ``narrow_dtypes.json`` beside this file.
"""

from __future__ import annotations

import json
import pathlib

import jax.numpy as jnp
import numpy as np
from jax import lax

NAMES = [
    "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
    "float6_e3m2fn", "int2", "uint2", "int1", "uint1",
]  # fmt: skip
OTHERS = {
    "float32": jnp.float32, "bfloat16": jnp.bfloat16, "int8": jnp.int8,
    "float8_e4m3fn": jnp.float8_e4m3fn, "int4": jnp.int4, "bool": jnp.bool_,
    "py_int": 1, "py_float": 1.0, "py_complex": 1j, "py_bool": True,
}  # fmt: skip
FINFO = ["bits", "eps", "epsneg", "max", "min", "tiny", "smallest_normal", "nmant", "nexp"]
IINFO = ["bits", "min", "max"]


def _result(a: object, b: object) -> str:
    try:
        return str(jnp.result_type(a, b))
    except Exception as err:
        # Keep the reason (the kind of narrow type named), not the exact words.
        msg = str(err)
        kind = next(k for k in ("8-bit", "6-bit", "4-bit floats", "1-bit") if k in msg)
        return f"{type(err).__name__}: {kind}"


def _limits(name: str) -> dict[str, object]:
    dt = np.dtype(getattr(jnp, name))
    try:
        fi = jnp.finfo(dt)
        return {"finfo": {f: float(getattr(fi, f)) for f in FINFO}}
    except ValueError:
        ii = jnp.iinfo(dt)
        return {"iinfo": {f: int(getattr(ii, f)) for f in IINFO}}


def main() -> None:
    data: dict[str, object] = {
        name: {
            "result_type": {o: _result(getattr(jnp, name), v) for o, v in OTHERS.items()},
            **_limits(name),
        }
        for name in NAMES
    }
    # The F8 dot algorithms take the older float8 types only.
    f8 = np.dtype(jnp.float8_e4m3fn)
    outs = lax.DotAlgorithmPreset.ANY_F8_ANY_F8_F32.supported_output_types(f8, f8)
    data["dot_any_f8_outputs"] = sorted(np.dtype(t).name for t in outs)
    path = pathlib.Path(__file__).with_suffix(".json")
    path.write_text(json.dumps(data, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
