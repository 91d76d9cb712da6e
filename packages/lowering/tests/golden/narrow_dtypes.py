"""Write narrow_dtypes.json: JAX 0.10.2 on the narrow ml_dtypes types, on device.

Run with a Python that has JAX 0.10.2 (never the Tessela environment):
``python narrow_dtypes.py`` rewrites ``narrow_dtypes.json`` beside this file.
For each dtype: the bytes of ``jnp.array(values, dtype)`` after a device round
trip, ``astype`` to and from float32, and elementwise results eagerly and under
jit (bytes), or the fact that JAX refuses to place such an array at all.
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

VALUES = {
    "float8_e4m3": [0.5, 1.0, 2.0, -1.5, 240.0],
    "float8_e3m4": [0.5, 1.0, 2.0, -1.5, 15.5],
    "float8_e8m0fnu": [0.5, 1.0, 2.0, 4.0, 1024.0],
    "float4_e2m1fn": [0.5, 1.0, 2.0, -1.5, 6.0],
    "float6_e2m3fn": [0.5, 1.0],
    "float6_e3m2fn": [0.5, 1.0],
    "int2": [-2, -1, 0, 1, 1],
    "uint2": [0, 1, 2, 3, 3],
    "int1": [0, -1],
    "uint1": [0, 1],
}
FROM_F32 = [0.3, 1.7, -0.6, 3.0]
OPS = {
    "add": lambda a: a + a,
    "mul": lambda a: a * a,
    "neg": lambda a: -a,
    "maximum": lambda a: jnp.maximum(a, a[::-1]),
}


def _bytes(x: object) -> list[int]:
    return np.asarray(x).view(np.uint8).tolist()


def _case(name: str, values: list[float]) -> dict[str, object]:
    dt = np.dtype(getattr(jnp, name))
    try:
        x = jnp.array(values, dt)
        x.block_until_ready()
    except Exception as err:  # JAX refuses: the runtime holds no such buffers
        return {"refused": type(err).__name__}
    out: dict[str, object] = {
        "bytes": _bytes(x),
        "to_f32": np.asarray(x.astype(jnp.float32)).tolist(),
        "from_f32": _bytes(jnp.array(FROM_F32, jnp.float32).astype(dt)),
    }
    for op, f in OPS.items():
        out[op] = [_bytes(f(x)), _bytes(jax.jit(f)(x))]
    return out


def main() -> None:
    data = {"from_f32": FROM_F32, "values": VALUES}
    data["cases"] = {name: _case(name, vals) for name, vals in VALUES.items()}
    path = pathlib.Path(__file__).with_suffix(".json")
    path.write_text(json.dumps(data, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
