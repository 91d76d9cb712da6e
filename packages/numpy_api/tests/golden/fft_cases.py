"""The fft golden cases, shared by generate_fft.py (run under JAX) and test_fft.py.

Each case maps a name to ``(function name, inputs, keyword arguments)``; inputs
are built by :func:`inputs` from a fixed seed so both sides see the same data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CASES: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "fft_c64": ("fft", ("c64[6]",), {}),
    "fft_n_axis0": ("fft", ("c64[4,3]",), {"n": 6, "axis": 0}),
    "fft_int_ortho": ("fft", ("i32[5]",), {"norm": "ortho"}),
    "ifft_trunc_forward": ("ifft", ("c64[7]",), {"n": 4, "norm": "forward"}),
    "rfft_odd": ("rfft", ("f32[2,7]",), {}),
    "irfft_default_n": ("irfft", ("c64[3,5]",), {}),
    "irfft_odd_n": ("irfft", ("c64[5]",), {"n": 9, "norm": "ortho"}),
    "hfft": ("hfft", ("c64[4]",), {}),
    "ihfft": ("ihfft", ("f32[6]",), {"norm": "forward"}),
    "fft2": ("fft2", ("c64[2,3,4]",), {"axes": (0, 2)}),
    "rfft2_s": ("rfft2", ("f32[4,6]",), {"s": (3, 8)}),
    "irfft2": ("irfft2", ("c64[4,3]",), {}),
    "fftn_four_axes": ("fftn", ("c64[2,3,2,2]",), {}),
    "rfftn_four_axes": ("rfftn", ("f32[2,2,3,4]",), {}),
    "irfftn_four_axes": ("irfftn", ("c64[2,2,3,3]",), {"s": (2, 2, 3, 4)}),
    "ifftn_axes": ("ifftn", ("c64[3,4,2]",), {"axes": (2, 0)}),
    "fftfreq": ("fftfreq", (), {"n": 7, "d": 0.25}),
    "rfftfreq": ("rfftfreq", (), {"n": 8}),
    "fftshift": ("fftshift", ("f32[3,4]",), {}),
    "ifftshift_axis": ("ifftshift", ("f32[5,4]",), {"axes": 0}),
}

_DTYPES = {"c64": np.complex64, "f32": np.float32, "i32": np.int32}


def inputs(name: str) -> list[np.ndarray]:
    """The case's inputs, the same on every run."""
    rng = np.random.default_rng(sum(map(ord, name)))
    out = []
    for spec in CASES[name][1]:
        kind, dims = spec.split("[")
        shape = tuple(int(d) for d in dims.rstrip("]").split(",") if d)
        dtype = _DTYPES[kind]
        if kind == "c64":
            x = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
        elif kind == "i32":
            x = rng.integers(-5, 6, shape)
        else:
            x = rng.uniform(-1, 1, shape)
        out.append(np.asarray(x, dtype))
    return out
