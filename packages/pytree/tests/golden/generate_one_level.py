"""Writes ``one_level.json``: ``flatten_one_level`` of every golden tree, from JAX.

Run under JAX only (never with tessela_lowering imported):
``python tests/golden/generate_one_level.py --out tests/golden``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import jax
from jax import tree_util as tu

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import trees


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()
    trees.register(tu)
    data: dict[str, Any] = {"jax_version": jax.__version__, "cases": {}}
    for name, spec in trees.CASES.items():
        data["cases"][name] = trees.record_one_level(trees.build(spec, tu), tu)
    static = trees.Tag("relu")
    data["static_root"] = trees.record_one_level(static, tu)
    data["is_node"] = {
        t.__name__: tu.default_registry.is_node(t)
        for t in (int, str, list, tuple, dict, type(None), trees.Point, trees.Box, trees.Param)
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "one_level.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
