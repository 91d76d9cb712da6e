"""Write the reference outcomes of ``checkify_cases.py`` to ``checkify_golden.json``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_checkify.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.numpy as jnp
from jax.experimental import checkify

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import checkify_cases  # noqa: E402

if __name__ == "__main__":
    _cli.save_json(_cli.out_dir(), "checkify_golden.json", checkify_cases.run(jax, jnp, checkify))
