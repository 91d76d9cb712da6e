"""Write the reference outputs of ``scipy_cases.py`` and ``scipy_more_cases.py``.

``scipy_golden.npz`` and ``scipy_more_golden.npz`` hold them.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate_scipy.py --out tests/golden
"""

from __future__ import annotations

import pathlib
import sys
from types import SimpleNamespace

import jax
import jax.ops
import jax.scipy.linalg
import jax.scipy.ndimage
import jax.scipy.optimize
import jax.scipy.signal
import jax.scipy.special
import jax.scipy.stats

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import scipy_cases  # noqa: E402
import scipy_more_cases  # noqa: E402


def main() -> None:
    out = _cli.out_dir()
    arrays = scipy_cases.run(jax.scipy.special, jax.scipy.stats, jax.ops, jax.grad, jax.vmap)
    _cli.save_npz(out, "scipy_golden.npz", arrays)
    ns = SimpleNamespace(lax=jax.lax, scipy=jax.scipy, grad=jax.grad, vmap=jax.vmap)
    more = scipy_more_cases.run(ns)
    _cli.save_npz(out, "scipy_more_golden.npz", more)


if __name__ == "__main__":
    main()
