"""Record what ``jax.numpy`` gives for each case of ``scan_cases.py``.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_scan.py`` writes ``scan.json``: for each case the exception
class JAX raises, or each output's dtype, shape, weak type and values.
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from scan_cases import CASES, outcome


def main() -> None:
    warnings.simplefilter("ignore")
    cases = {name: outcome(lambda f=f: f(jnp)) for name, f in CASES.items()}
    data = {"jax_version": jax.__version__, "cases": cases}
    path = pathlib.Path(__file__).parent / "scan.json"
    path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
