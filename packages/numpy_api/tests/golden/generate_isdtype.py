"""Record ``jax.numpy.isdtype`` for every dtype and kind name.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_isdtype.py`` writes ``isdtype.json``: for each dtype of
``DTYPES`` (by name; the narrow types come from ``ml_dtypes``) and each kind
of ``KINDS`` (the array API's names, the dtype itself, a tuple), whether
``isdtype`` holds.
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import ml_dtypes

DTYPES = [
    "bool", "int2", "int4", "int8", "int16", "int32", "int64",
    "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
    "float4_e2m1fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
]  # fmt: skip
KINDS = [
    "bool", "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric",
]  # fmt: skip


def main() -> None:
    table = {}
    for name in DTYPES:
        dt = getattr(ml_dtypes, name, None) or getattr(jnp, name)
        row = {kind: bool(jnp.isdtype(dt, kind)) for kind in KINDS}
        row["itself"] = bool(jnp.isdtype(dt, dt))
        row["(bool, float32)"] = bool(jnp.isdtype(dt, ("bool", jnp.float32)))
        row["(integral, complex floating)"] = bool(
            jnp.isdtype(dt, ("integral", "complex floating"))
        )
        table[name] = row
    data = {"jax_version": jax.__version__, "kinds": KINDS, "isdtype": table}
    path = pathlib.Path(__file__).parent / "isdtype.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
