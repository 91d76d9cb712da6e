"""Record what ``jax.numpy``'s element-wise functions give on every kind of operand.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_kinds.py`` writes ``kinds.json``: for each case of
``kinds_cases.py`` (a function and its operands) the exception class JAX
raises, or each output's dtype, weak type and values.
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from kinds_cases import calls, outcome


def main() -> None:
    warnings.simplefilter("ignore")
    data = {"jax_version": jax.__version__, "cases": {k: outcome(c) for k, c in calls(jnp).items()}}
    path = pathlib.Path(__file__).parent / "kinds.json"
    path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
