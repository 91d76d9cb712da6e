"""Cases of ``jax.image`` for the golden test: run with ``jax`` or ``tessela`` as ``lib``.

``run(lib)`` returns a dict of NumPy arrays keyed by case name; the
generator saves JAX's, the test compares Tessela's with them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

METHODS = ("nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area")
SHAPES = {
    "up": ((4, 5), (7, 9)),
    "down": ((9, 8), (4, 3)),
    "mixed": ((6, 4), (3, 10)),
    "same": ((3, 4), (3, 4)),
    "one": ((1, 5), (4, 2)),
}


def _image(shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(sum(shape) * 7 + len(shape))
    return rng.normal(size=shape).astype(np.float32)


def run(lib: Any) -> dict[str, np.ndarray]:
    image = lib.image
    jnp = lib.numpy
    out: dict[str, np.ndarray] = {}
    for name, (src, dst) in SHAPES.items():
        x = jnp.asarray(_image(src))
        for method in METHODS:
            # Antialiasing changes only downsampling (and cubic-pytorch's edges).
            both = name in ("down", "mixed") or method == "cubic-pytorch"
            for antialias in (True, False) if both else (True,):
                key = f"resize/{name}/{method}/{antialias}"
                out[key] = np.asarray(image.resize(x, dst, method, antialias=antialias))
    hwc = jnp.asarray(_image((5, 6, 3)))
    out["resize/hwc/linear"] = np.asarray(image.resize(hwc, (8, 4, 3), "bilinear"))
    out["resize/hwc/enum"] = np.asarray(image.resize(hwc, (3, 9, 3), image.ResizeMethod.LANCZOS3))
    ints = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    out["resize/int/linear"] = np.asarray(image.resize(ints, (5, 6), "linear"))
    out["resize/int/nearest"] = np.asarray(image.resize(ints, (5, 6), "nearest"))
    x = jnp.asarray(_image((6, 7)))
    for method in METHODS[1:]:
        for antialias in (True, False):
            for s, t in (((0.5, 2.0), (1.0, 0.25)),) if antialias else (((1.5, 0.7), (0.3, -1.0)),):
                key = f"sat/{method}/{antialias}/{s}/{t}"
                out[key] = np.asarray(
                    image.scale_and_translate(
                        x, (5, 9), (0, 1), jnp.array(s), jnp.array(t), method, antialias=antialias
                    )
                )
    out["sat/one_dim"] = np.asarray(
        image.scale_and_translate(x, (6, 4), (1,), jnp.array([0.6]), jnp.array([0.0]), "cubic")
    )
    return out
