"""Write JAX's ``make_jaxpr`` text for every program in programs.py.

Runs under JAX only: ``python generate.py --out DIR`` writes ``DIR/jaxprs.json``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import types

import jax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from programs import PROGRAMS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    ns = types.SimpleNamespace(
        lax=jax.lax, jit=jax.jit, custom_jvp=jax.custom_jvp, custom_vjp=jax.custom_vjp
    )
    data = {"jax_version": jax.__version__, "jaxprs": {}}
    for name, build in PROGRAMS.items():
        fun, args = build(ns)
        data["jaxprs"][name] = str(jax.make_jaxpr(fun)(*args))
    (out / "jaxprs.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
