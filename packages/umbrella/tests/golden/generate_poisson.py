"""Write the reference outcomes of ``poisson_cases.py`` to ``poisson_golden.json``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_poisson.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import poisson_cases  # noqa: E402

if __name__ == "__main__":
    data = {"jax_version": jax.__version__, "cases": poisson_cases.run(jax)}
    _cli.save_json(_cli.out_dir(), "poisson_golden.json", data, indent=None)
