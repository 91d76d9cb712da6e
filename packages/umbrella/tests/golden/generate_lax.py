"""Write the reference outputs of ``lax_more_cases.py`` and ``lax_other_cases.py`` to
``lax_more_golden.npz`` and ``lax_other_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_lax.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import lax_more_cases  # noqa: E402
import lax_other_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    _cli.save_npz(out, "lax_more_golden.npz", lax_more_cases.run(jax))
    _cli.save_npz(out, "lax_other_golden.npz", lax_other_cases.run(jax))


if __name__ == "__main__":
    main()
