"""Record what ``jax.numpy``'s filling creation functions give with a PRNG key dtype.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_key_fill.py`` writes ``key_fill.json``: for each
expression of ``key_fill_cases.py``, the exception class JAX raises, or the
result's dtype, shape and key data (eagerly and under ``jit``) and the
jaxpr's text.
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from key_fill_cases import outcomes


def main() -> None:
    warnings.simplefilter("ignore")
    cases = outcomes(jnp, jax.random.wrap_key_data, jax.random.key_data, jax.jit, jax.make_jaxpr)
    data = {"jax_version": jax.__version__, "cases": cases}
    path = pathlib.Path(__file__).parent / "key_fill.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
