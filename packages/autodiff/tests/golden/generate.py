"""Write the reference ``make_jaxpr(grad(f))`` texts of ``programs.CASES`` to JSON.

Run under the reference implementation only: ``python generate.py --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jax
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from programs import CASES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    data = {}
    for name, case in CASES.items():
        fun, args = case(lax)
        argnums = tuple(range(len(args)))
        data[name] = str(jax.make_jaxpr(jax.grad(fun, argnums=argnums))(*args))
    (out / "grad_jaxprs.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
