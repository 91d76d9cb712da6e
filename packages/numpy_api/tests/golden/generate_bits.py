"""Golden results of ``bits_cases.py`` under JAX 0.10.2 (CPU): exact values and dtypes.

Run with the JAX oracle's interpreter from this directory:
``python generate_bits.py`` writes ``bits_golden.npz``, one array per case
(``X64_CASES`` computed with ``jax_enable_x64`` switched on).
"""

from __future__ import annotations

import pathlib

import numpy as np
from bits_cases import CASES, X64_CASES, inputs


def main() -> None:
    import jax
    import jax.numpy as jnp

    data = inputs()
    out = {}
    for name, (fn, names) in CASES.items():
        out[name] = np.asarray(fn(jnp, [data[n] for n in names]))
    jax.config.update("jax_enable_x64", True)
    for name, (fn, names) in X64_CASES.items():
        out[name] = np.asarray(fn(jnp, [data[n] for n in names]))
    np.savez_compressed(pathlib.Path(__file__).with_name("bits_golden.npz"), **out)


if __name__ == "__main__":
    main()
