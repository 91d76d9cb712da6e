"""Record what ``jax.lax`` does with the bad inputs of ``reject_cases.py`` (under JAX only).

Usage, with the JAX 0.10.2 oracle's interpreter, from this directory:
``python generate_rejects.py`` writes ``rejects.json``: for every named case
and every grid point, ``"ok"`` when ``jax.make_jaxpr`` of the case returns,
else the name of the exception class it raises; for the families in
``EAGER_FAMILIES`` also, under ``"eager"``, what running each point on zeros
does. The cases in ``ABORTS`` run
eagerly in a child process each (tracing them succeeds; XLA is what dies);
one that dies by a signal is recorded as ``"abort"``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
from typing import Any

import jax
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from reject_cases import ABORTS, EAGER_FAMILIES, GRIDS, NAMED, key_str, parse_input


def outcome(build: Any, inputs: tuple[str, ...]) -> str:
    """``"ok"`` or the class name of what ``make_jaxpr`` raises."""
    structs = []
    for spec in inputs:
        shape, dtype = parse_input(spec)
        structs.append(jax.ShapeDtypeStruct(shape, dtype))
    try:
        jax.make_jaxpr(build(lax))(*structs)
    except Exception as e:  # the class is the data
        return type(e).__name__
    return "ok"


def eager_outcome(build: Any, inputs: tuple[str, ...]) -> str:
    """``"ok"`` or the class name of what running the case on zeros raises."""
    args = [np.zeros(*parse_input(spec)) for spec in inputs]
    try:
        jax.block_until_ready(build(lax)(*args))
    except Exception as e:  # the class is the data
        return type(e).__name__
    return "ok"


def _in_child(name: str) -> str:
    proc = subprocess.run(
        [sys.executable, __file__, "--one", name], capture_output=True, text=True, timeout=300
    )
    if proc.returncode < 0 or proc.returncode == 134:
        return "abort"
    return proc.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent)
    parser.add_argument("--one", help="run one named case and print its outcome")
    args = parser.parse_args()
    if args.one:
        # Eagerly, so that XLA sees the shape (tracing alone succeeds).
        try:
            jax.block_until_ready(NAMED[args.one][0](lax)())
        except Exception as e:
            print(type(e).__name__, flush=True)
        else:
            print("ok", flush=True)
        return
    data: dict[str, Any] = {"jax_version": jax.__version__, "named": {}, "grids": {}}
    for name, (build, inputs) in NAMED.items():
        data["named"][name] = _in_child(name) if name in ABORTS else outcome(build, inputs)
    for family, (points, make) in GRIDS.items():
        data["grids"][family] = {key_str(k): outcome(*make(k)) for k in points()}
    data["eager"] = {}
    for family in EAGER_FAMILIES:
        points, make = GRIDS[family]
        data["eager"][family] = {key_str(k): eager_outcome(*make(k)) for k in points()}
    path = args.out / "rejects.json"
    path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
