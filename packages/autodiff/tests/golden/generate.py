"""Write the reference derivatives of the golden programs.

- ``grad_jaxprs.json``: ``make_jaxpr(grad(f))`` texts of ``programs.CASES``;
- ``grad_numeric.npz``: grad/jvp/vjp/nested values of ``numeric_cases.CASES``, stored
  as ``"<case>|<mode>:<index>"`` arrays (float64 cases run with x64 enabled).

Run under the reference implementation only: ``python generate.py --out DIR``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import types

import jax
import jax.scipy.special
import numpy as np
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import numeric_cases
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
    write_numeric(out)


def write_numeric(out: pathlib.Path) -> None:
    api = types.SimpleNamespace(
        lax=lax, jit=jax.jit, checkpoint=jax.checkpoint, custom_jvp=jax.custom_jvp,
        custom_vjp=jax.custom_vjp, grad=jax.grad, jvp=jax.jvp, vjp=jax.vjp,
        jacfwd=jax.jacfwd, jacrev=jax.jacrev, hessian=jax.hessian,
        zeta=jax.scipy.special.zeta,
    )  # fmt: skip
    arrays: dict[str, np.ndarray] = {}
    for x64 in (False, True):
        jax.config.update("jax_enable_x64", x64)
        for name, case in numeric_cases.CASES.items():
            if (case.dtype == "float64") != x64:
                continue
            for key, value in numeric_cases.evaluate(api, name).items():
                arrays[f"{name}|{key}"] = value
    jax.config.update("jax_enable_x64", False)
    np.savez_compressed(out / "grad_numeric.npz", **arrays)


if __name__ == "__main__":
    main()
