"""Writes ``mismatches.json``: JAX's structure-mismatch errors for ``mismatch_cases``.

Run under JAX only (never with tessela_lowering imported):
``python tests/golden/generate_mismatches.py --out tests/golden``.
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

import mismatch_cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()
    data: dict[str, Any] = {"jax_version": jax.__version__, "cases": mismatch_cases.record(tu)}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "mismatches.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
