"""Write the reference outputs of ``transforms_more_cases.py`` to ``transforms_more_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_transforms_more.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.custom_batching
import jax.numpy

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import transforms_more_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    arrays = transforms_more_cases.run(jax)
    _cli.save_npz(out, "transforms_more_golden.npz", arrays)


if __name__ == "__main__":
    main()
