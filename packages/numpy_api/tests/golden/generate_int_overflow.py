"""Record what JAX gives for the cases of ``int_overflow_cases.py``.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_int_overflow.py`` writes ``int_overflow.json``, with 64-bit
types off (the default) and on.
"""

from __future__ import annotations

import json
import pathlib
import sys

import jax
import jax.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from int_overflow_cases import cases, key, run


def record() -> dict[str, dict[str, object]]:
    return {key(*c): run(jnp, jax.jit, jax.vmap, jax.grad, *c) for c in cases()}


def main() -> None:
    data: dict[str, object] = {"jax_version": jax.__version__, "x64_off": record()}
    jax.config.update("jax_enable_x64", True)
    data["x64_on"] = record()
    path = pathlib.Path(__file__).parent / "int_overflow.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=0) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
