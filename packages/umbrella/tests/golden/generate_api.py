"""Write the reference outputs of ``api_cases.py`` to ``api_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_api.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.flatten_util
import jax.scipy.linalg
import jax.scipy.special
import jax.scipy.stats

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import api_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    arrays = api_cases.run(jax)
    _cli.save_npz(out, "api_golden.npz", arrays)


if __name__ == "__main__":
    main()
