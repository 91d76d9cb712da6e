"""Write JAX's answers that the tests compare against.

Runs under JAX only: ``python generate.py --out DIR`` writes

- ``DIR/jaxprs.json``: ``make_jaxpr`` text of every program in programs.py;
- ``DIR/dtypes.json``: ``promote_types`` / ``result_type`` over every pair of
  dtypes and Python scalar kinds, with and without x64, and ``finfo`` /
  ``iinfo`` of every type.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import warnings

import jax
import jax.experimental
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from programs import PROGRAMS, namespace

# Every dtype name in the promotion table; "py:<kind>" stands for a Python
# scalar (a type object for promote_types, a value for result_type).
DTYPES = [
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "int4", "uint4", "bfloat16", "float16", "float32", "float64", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
    "complex64", "complex128",
]  # fmt: skip
PY_TYPES = {"py:bool": bool, "py:int": int, "py:float": float, "py:complex": complex}
PY_VALUES = {"py:bool": True, "py:int": 1, "py:float": 1.0, "py:complex": 1j}
FINFO_FIELDS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"]
FINFO_FIELDS += ["nmant", "nexp", "precision", "maxexp", "minexp", "machep", "negep"]


def _jaxprs() -> dict[str, object]:
    ns = namespace(jax, jax.lax, jax.experimental.io_callback)
    out = {}
    for name, build in PROGRAMS.items():
        fun, args = build(ns)
        out[name] = str(jax.make_jaxpr(fun)(*args))
    return {"jax_version": jax.__version__, "jaxprs": out}


def _promotion_table() -> dict[str, list[object]]:
    """``{"a|b": [promote_types or None, result_type, weak]}``; None for errors."""
    names = [*PY_TYPES, *DTYPES]
    table: dict[str, list[object]] = {}
    for a in names:
        for b in names:
            ta, tb = PY_TYPES.get(a, a), PY_TYPES.get(b, b)
            va = PY_VALUES[a] if a in PY_VALUES else jnp.dtype(a)
            vb = PY_VALUES[b] if b in PY_VALUES else jnp.dtype(b)
            try:
                promoted: str | None = str(jnp.promote_types(ta, tb))
            except Exception as err:
                if type(err).__name__ != "TypePromotionError":
                    raise
                promoted = None
            try:
                dt, weak = jax.dtypes.result_type(va, vb, return_weak_type_flag=True)
                table[f"{a}|{b}"] = [promoted, str(dt), bool(weak)]
            except Exception as err:
                if type(err).__name__ != "TypePromotionError":
                    raise
                table[f"{a}|{b}"] = [promoted, None, None]
    return table


def _limits() -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for name in DTYPES:
        dt = np.dtype(name) if name in ("bool",) else jnp.dtype(name)
        if jnp.issubdtype(dt, jnp.floating):
            fi = jnp.finfo(dt)
            out[name] = {f: _num(getattr(fi, f)) for f in FINFO_FIELDS}
        elif jnp.issubdtype(dt, jnp.integer):
            ii = jnp.iinfo(dt)
            out[name] = {"bits": int(ii.bits), "min": int(ii.min), "max": int(ii.max)}
    return out


def _num(v: object) -> object:
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(v)  # type: ignore[arg-type]


def _dtypes() -> dict[str, object]:
    # Asking for 64-bit types with x64 off warns; the truncation is the answer.
    warnings.simplefilter("ignore", UserWarning)
    data: dict[str, object] = {"jax_version": jax.__version__, "dtypes": DTYPES}
    jax.config.update("jax_enable_x64", False)
    data["x32"] = _promotion_table()
    jax.config.update("jax_enable_x64", True)
    data["x64"] = _promotion_table()
    jax.config.update("jax_enable_x64", False)
    data["limits"] = _limits()
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "jaxprs.json").write_text(json.dumps(_jaxprs(), indent=1, sort_keys=True) + "\n")
    compact = json.dumps(_dtypes(), separators=(",", ":"), sort_keys=True)
    (out / "dtypes.json").write_text(compact + "\n")


if __name__ == "__main__":
    main()
