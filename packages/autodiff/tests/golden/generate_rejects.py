"""Record what JAX does with the bad arguments of ``reject_cases.py`` (run under JAX only).

Usage, with the JAX 0.10.2 oracle's interpreter, from this directory:
``python generate_rejects.py`` writes ``rejects.json``: for every named case
and grid point, ``"ok"`` when the call returns, else the name of the
exception class it raises; for every ``RESULTS`` case, its returned leaves.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import jax
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from reject_cases import GRIDS, NAMED, RESULTS, describe, key_str, namespace

AD = namespace(jax, lax, jax.dtypes.float0)


def outcome(build: Any) -> str:
    """``"ok"`` or the class name of what the case raises."""
    try:
        build(AD)()
    except Exception as e:  # the class is the data
        return type(e).__name__
    return "ok"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent)
    args = parser.parse_args()
    data: dict[str, Any] = {"jax_version": jax.__version__, "named": {}, "grids": {}}
    data["named"] = {name: outcome(build) for name, build in NAMED.items()}
    data["results"] = {
        name: describe(jax.tree_util.tree_leaves(build(AD)()), jax.Array)
        for name, build in RESULTS.items()
    }
    for family, (points, make) in GRIDS.items():
        data["grids"][family] = {key_str(k): outcome(make(k)) for k in points()}
    path = args.out / "rejects.json"
    path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
