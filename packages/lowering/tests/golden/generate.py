"""Record JAX's compiled results for every case in ``cases.py`` (run under JAX only).

Usage: ``python generate.py --out DIR``. Writes ``DIR/primitives.json``: for
each case, a digest of its inputs and, for each output leaf, its shape, dtype
and raw little-endian bytes as hex, as ``jax.jit`` computes them on CPU. The
generator also checks that each case binds the primitives it names.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from types import SimpleNamespace
from typing import Any

import jax
import jax.extend.core

jax.config.update("jax_platforms", "cpu")

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from cases import CASES, digest, inputs  # noqa: E402

NS = SimpleNamespace(
    lax=jax.lax,
    jit=jax.jit,
    custom_jvp=jax.custom_jvp,
    custom_vjp=jax.custom_vjp,
    checkpoint=jax.checkpoint,
    device_put=jax.device_put,
    device_put_function=jax.device_put,
    reduce_xor=jax.lax.reduce_xor,
)


def _prim_names(jaxpr: Any) -> set[str]:
    names: set[str] = set()
    for eqn in jaxpr.eqns:
        names.add(eqn.primitive.name)
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            names |= _prim_names(sub)
    return names


def _record(x: Any) -> dict[str, Any]:
    a = np.asarray(x)
    return {
        "shape": list(a.shape),
        "dtype": a.dtype.name,
        "hex": np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes().hex(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent)
    args = parser.parse_args()
    data: dict[str, Any] = {"jax_version": jax.__version__, "cases": {}}
    errors = []
    for c in CASES:
        try:
            data["cases"][c.name] = _run(c)
        except Exception as e:  # collected, reported together
            errors.append(f"{c.name}: {type(e).__name__}: {str(e).splitlines()[0]}")
    if errors:
        raise SystemExit("\n".join(errors))
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=0, sort_keys=True, separators=(",", ":"))
    (args.out / "primitives.json").write_text(text + "\n")
    print(f"wrote {len(data['cases'])} cases")


def _run(c: Any) -> dict[str, Any]:
    fn = c.build(NS)
    xs = inputs(c)
    bound = _prim_names(jax.make_jaxpr(fn)(*xs).jaxpr)
    missing = [p for p in c.prims if p not in bound]
    if missing:
        raise AssertionError(f"{c.name}: JAX binds {sorted(bound)}, not {missing}")
    outs = jax.tree_util.tree_leaves(jax.jit(fn)(*xs))
    return {"inputs": digest(xs), "outputs": [_record(o) for o in outs]}


if __name__ == "__main__":
    main()
