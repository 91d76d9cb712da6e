"""Write the reference outputs of ``linalg_more_cases.py`` to ``linalg_more_golden.npz``.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_linalg_more.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import jax.scipy.linalg

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import linalg_more_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    ns = SimpleNamespace(
        lax=jax.lax, numpy=jnp, scipy_linalg=jax.scipy.linalg, jit=jax.jit, jvp=jax.jvp, vjp=jax.vjp,
        vmap=jax.vmap,
    )  # fmt: skip
    arrays = linalg_more_cases.run(ns)
    _cli.save_npz(out, "linalg_more_golden.npz", arrays)


if __name__ == "__main__":
    main()
