"""Write the reference outputs of ``nn_cases.py`` to ``nn_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate.py --out tests/golden

The archive maps ``"<family>|<case>[|<part>]"`` to arrays: activation values and
derivatives, initializer samples for fixed keys, attention outputs and the input
gradients of a few attention cases.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import jax
import jax.nn
import jax.random
import numpy as np

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import nn_cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    arrays = {}
    arrays.update(nn_cases.activations(jax.nn, jax.grad, jax.vmap))
    arrays.update(nn_cases.initializers(jax.nn, jax.random))
    arrays.update(nn_cases.attention(jax.nn, jax.grad))
    np.savez_compressed(out / "nn_golden.npz", **arrays)
    print(f"wrote {len(arrays)} arrays to {out / 'nn_golden.npz'}")


if __name__ == "__main__":
    main()
