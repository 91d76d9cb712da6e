"""Write the reference outputs of ``transforms_more_cases.py`` to ``transforms_more_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_transforms_more.py --out tests/golden
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import jax
import jax.custom_batching
import jax.numpy
import numpy as np

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import transforms_more_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    arrays = transforms_more_cases.run(jax)
    np.savez_compressed(out / "transforms_more_golden.npz", **arrays)
    print(f"wrote {len(arrays)} arrays to {out / 'transforms_more_golden.npz'}")


if __name__ == "__main__":
    main()
