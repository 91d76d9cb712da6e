"""Record JAX's answers for every case in ``cases.py`` (run under JAX only).

Usage: ``python generate.py --out DIR``. Writes ``DIR/numpy_api.json`` holding,
for each case, the result shapes, dtypes and weak-type bits of
``jax.eval_shape``, the ``make_jaxpr`` text for the cases marked ``jaxpr``, and
for each error case the exception class and message.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from cases import CASES, ERRORS, parse_input


def _inputs(specs: tuple[str, ...]) -> list[Any]:
    out = []
    for spec in specs:
        shape, dtype = parse_input(spec)
        out.append(jax.ShapeDtypeStruct(shape, jnp.dtype(dtype)))
    return out


def _record(tree: Any) -> list[dict[str, Any]]:
    leaves = jax.tree_util.tree_leaves(tree)
    return [
        {"shape": list(x.shape), "dtype": str(np.dtype(x.dtype)), "weak_type": bool(x.weak_type)}
        for x in leaves
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent)
    args = parser.parse_args()
    data: dict[str, Any] = {"jax_version": jax.__version__, "cases": {}, "errors": {}}
    for c in CASES:
        fn = c.build(jnp)
        entry: dict[str, Any] = {
            "outputs": _record(jax.eval_shape(fn, *_inputs(c.inputs))),
            "tuple": isinstance(jax.eval_shape(fn, *_inputs(c.inputs)), tuple | list),
        }
        if c.jaxpr:
            entry["jaxpr"] = str(jax.make_jaxpr(fn)(*_inputs(c.inputs)))
        data["cases"][c.name] = entry
    for c in ERRORS:
        fn = c.build(jnp)
        try:
            jax.make_jaxpr(fn)(*_inputs(c.inputs))
        except Exception as e:  # the class and message are the data
            data["errors"][c.name] = {
                "type": type(e).__name__,
                "message": str(e).splitlines()[0] if str(e) else "",
            }
        else:
            raise AssertionError(f"error case {c.name} did not raise under JAX")
    # The Sharp Bits' permissive_sum, traced with a list of Python ints.
    data["seeds"] = {
        "permissive_sum": str(jax.make_jaxpr(lambda x: jnp.sum(jnp.array(x)))(list(range(10)))),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, sort_keys=True)
    (args.out / "numpy_api.json").write_text(text + "\n")
    print(f"wrote {len(data['cases'])} cases, {len(data['errors'])} errors")


if __name__ == "__main__":
    main()
