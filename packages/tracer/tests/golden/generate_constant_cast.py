"""Record what JAX does with constants given to ``lax.convert_element_type`` and ``lax.stage``.

Run with the JAX 0.10.2 oracle's interpreter from this directory:
``python generate_constant_cast.py`` writes ``constant_cast.json`` from the
cases of ``constant_cast_cases.py``, both with 64-bit types off (the default)
and on.
"""

from __future__ import annotations

import json
import pathlib
import sys

import jax
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from constant_cast_cases import outcomes


def main() -> None:
    def is_tracer(v: object) -> bool:
        return isinstance(v, jax.core.Tracer)

    data = {"jax_version": jax.__version__, "x64_off": outcomes(lax, jax.make_jaxpr, is_tracer)}
    jax.config.update("jax_enable_x64", True)
    data["x64_on"] = outcomes(lax, jax.make_jaxpr, is_tracer)
    path = pathlib.Path(__file__).parent / "constant_cast.json"
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
