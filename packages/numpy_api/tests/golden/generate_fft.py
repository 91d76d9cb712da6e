"""Golden results of ``jax.numpy.fft`` (JAX 0.10.2, x32): values and dtypes.

Run with the JAX oracle's interpreter from this directory:
``python generate_fft.py`` writes ``fft_golden.npz`` with one array per case
of fft_cases.py.
"""

from __future__ import annotations

import pathlib

import numpy as np
from fft_cases import CASES, inputs


def main() -> None:
    import jax.numpy as jnp

    out = {}
    for name, (fn, _, kwargs) in CASES.items():
        out[name] = np.asarray(getattr(jnp.fft, fn)(*inputs(name), **kwargs))
    np.savez_compressed(pathlib.Path(__file__).with_name("fft_golden.npz"), **out)


if __name__ == "__main__":
    main()
