"""Record what ``jax.numpy`` gives for each case of ``scan2_cases.py``, eager and under ``jit``.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_scan2.py`` writes ``scan2.json``: for each case and each
way of running it (``eager``, and ``jit`` with the case's arrays traced) the
exception class JAX raises, or each output's dtype, shape, weak type and
values.
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from scan2_cases import CASES
from scan_cases import outcome


def main() -> None:
    warnings.simplefilter("ignore")
    cases = {}
    for name, (f, args) in CASES.items():
        cases[name] = {
            "eager": outcome(lambda f=f, args=args: f(jnp, *args)),
            "jit": outcome(lambda f=f, args=args: jax.jit(lambda *xs: f(jnp, *xs))(*args)),
        }
    data = {"jax_version": jax.__version__, "cases": cases}
    path = pathlib.Path(__file__).parent / "scan2.json"
    path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
