"""Write the reference's ``make_jaxpr`` text for each program of ``programs.py``.

Run with the reference installed (not Tessela): ``python generate.py --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path

import jax
from jax import lax

sys.path.insert(0, str(Path(__file__).resolve().parent))
import programs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    out = parser.parse_args().out
    ns = types.SimpleNamespace(lax=lax, vmap=jax.vmap)
    data = {}
    for case in programs.CASES:
        f, args = case(ns)
        data[case.__name__] = str(jax.make_jaxpr(f)(*args))
    (out / "jaxprs.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
