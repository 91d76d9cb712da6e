"""Write the reference outputs of ``nn_cases.py`` to ``nn_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate.py --out tests/golden

The archive maps ``"<family>|<case>[|<part>]"`` to arrays: activation values and
derivatives, initializer samples for fixed keys, attention outputs and the input
gradients of a few attention cases.
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.nn
import jax.random

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import nn_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    arrays = {}
    arrays.update(nn_cases.activations(jax.nn, jax.grad, jax.vmap))
    arrays.update(nn_cases.initializers(jax.nn, jax.random))
    arrays.update(nn_cases.attention(jax.nn, jax.grad))
    _cli.save_npz(out, "nn_golden.npz", arrays)


if __name__ == "__main__":
    main()
