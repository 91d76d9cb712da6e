"""Writes golden data for tessela_pytree from ``jax.tree_util`` (run under JAX only).

Usage: python tests/golden/generate.py --out tests/golden
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
    data: dict[str, Any] = {"jax_version": jax.__version__, "cases": {}, "mismatches": {}}
    for name, spec in trees.CASES.items():
        data["cases"][name] = trees.record_case(trees.build(spec, tu), tu)
    for name, (sa, sb) in trees.MISMATCHES.items():
        data["mismatches"][name] = trees.record_mismatch(
            trees.build(sa, tu), trees.build(sb, tu), tu
        )
    data["misc"] = trees.record_misc(tu)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "tree_util.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
