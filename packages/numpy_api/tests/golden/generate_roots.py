"""Golden results of ``roots_cases.py`` under JAX 0.10.2 (x32).

Run with the JAX oracle's interpreter from this directory:
``python generate_roots.py`` writes ``roots_golden.npz``: each case's roots,
sorted with ``numpy.sort_complex`` (NaN roots last, as JAX places them).
"""

from __future__ import annotations

import pathlib

import numpy as np
from roots_cases import CASES


def main() -> None:
    import jax.numpy as jnp

    out = {}
    for name, (coeffs, dtype, strip_zeros) in CASES.items():
        r = np.asarray(jnp.roots(np.array(coeffs, dtype), strip_zeros=strip_zeros))
        out[name] = np.sort_complex(r)
    np.savez_compressed(pathlib.Path(__file__).with_name("roots_golden.npz"), **out)


if __name__ == "__main__":
    main()
