"""Write the reference outputs of ``image_cases.py`` to ``image_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_image.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.image
import jax.numpy

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import image_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    arrays = image_cases.run(jax)
    _cli.save_npz(out, "image_golden.npz", arrays)


if __name__ == "__main__":
    main()
