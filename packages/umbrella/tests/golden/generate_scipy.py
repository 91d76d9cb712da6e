"""Write the reference outputs of ``scipy_cases.py`` to ``scipy_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_scipy.py --out tests/golden
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import jax
import jax.ops
import jax.scipy.special
import jax.scipy.stats
import numpy as np

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import scipy_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    arrays = scipy_cases.run(jax.scipy.special, jax.scipy.stats, jax.ops, jax.grad, jax.vmap)
    np.savez_compressed(out / "scipy_golden.npz", **arrays)
    print(f"wrote {len(arrays)} arrays to {out / 'scipy_golden.npz'}")


if __name__ == "__main__":
    main()
