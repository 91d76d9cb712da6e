"""Parameter names and kinds of ``jax.numpy`` functions under JAX 0.10.2.

Run with the JAX oracle's interpreter from this directory:
``python generate_signatures.py`` writes ``signatures.json``: for each name of
``SIGNATURE_NAMES`` (in ``signature_names.py``), the list of
``[parameter name, kind]`` pairs of its ``inspect.signature``, leaving out the
``out_sharding`` parameter (sharding-in-types, which Tessela does not have).
"""

from __future__ import annotations

import inspect
import json
import pathlib

from signature_names import SIGNATURE_NAMES


def main() -> None:
    import jax.numpy as jnp

    out = {}
    for name in SIGNATURE_NAMES:
        params = inspect.signature(getattr(jnp, name)).parameters.values()
        out[name] = [[p.name, p.kind.name] for p in params if p.name != "out_sharding"]
    path = pathlib.Path(__file__).with_name("signatures.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
