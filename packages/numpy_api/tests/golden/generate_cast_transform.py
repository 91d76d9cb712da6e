"""Record what JAX gives for the cases of ``cast_transform_cases.py``.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_cast_transform.py`` writes ``cast_transform.json``.
"""

from __future__ import annotations

import json
import pathlib
import sys

import jax
import jax.numpy as jnp
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from cast_transform_cases import outcomes


def main() -> None:
    def is_tracer(v: object) -> bool:
        return isinstance(v, jax.core.Tracer)

    cases = outcomes(lax, jnp, jax.jit, jax.vmap, jax.grad, is_tracer)
    data = {"jax_version": jax.__version__, "cases": cases}
    path = pathlib.Path(__file__).parent / "cast_transform.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
