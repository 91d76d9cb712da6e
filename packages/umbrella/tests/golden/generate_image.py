"""Write the reference outputs of ``image_cases.py`` to ``image_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_image.py --out tests/golden
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import jax
import jax.image
import jax.numpy
import numpy as np

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import image_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    arrays = image_cases.run(jax)
    np.savez_compressed(out / "image_golden.npz", **arrays)
    print(f"wrote {len(arrays)} arrays to {out / 'image_golden.npz'}")


if __name__ == "__main__":
    main()
