"""Write the reference outcomes of ``isdtype_cases.py`` to ``isdtype_golden.json``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_isdtype.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.numpy as jnp

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import isdtype_cases  # noqa: E402

if __name__ == "__main__":
    data = {"jax_version": jax.__version__, "cases": isdtype_cases.run(jnp.isdtype)}
    _cli.save_json(_cli.out_dir(), "isdtype_golden.json", data)
