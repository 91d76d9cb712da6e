"""Record what ``jax.numpy``'s creation functions give on host data under a transformation.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_traced_const.py`` writes ``traced_const.json``: for each
expression of ``traced_const_cases.py``, the jaxpr under ``jit``, the
compiled value, and the kind, dtype and weak type of the value under
``jit``, ``vmap`` and ``grad``; and the jaxprs of ``nested_jaxprs``.
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from traced_const_cases import nested_jaxprs, outcomes


def main() -> None:
    warnings.simplefilter("ignore")
    cases = outcomes(
        jnp, jax.jit, jax.vmap, jax.grad, jax.make_jaxpr, lambda v: isinstance(v, jax.core.Tracer)
    )
    nested = nested_jaxprs(jnp, jax.vmap, jax.grad, jax.make_jaxpr)
    data = {"jax_version": jax.__version__, "cases": cases, "nested": nested}
    path = pathlib.Path(__file__).parent / "traced_const.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
