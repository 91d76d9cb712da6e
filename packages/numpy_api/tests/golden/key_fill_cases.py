"""The filling creation functions with a PRNG key dtype, for ``generate_key_fill.py``.

Imports only NumPy. Each case of ``CASES`` is an expression in ``jnp``
(``jax.numpy`` or ``tessela_numpy``), ``np``, a key ``k``, three keys
``ks`` and their dtype ``kd``; ``outcomes`` records per case the exception
class, or the result's dtype, shape and key data, eagerly and under
``jit``, and the jaxpr's text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

CASES: list[str] = [
    "jnp.zeros(2, kd)",
    "jnp.zeros((), kd)",
    "jnp.ones((2, 3), kd)",
    "jnp.empty(2, kd)",
    "jnp.full(2, 7, kd)",
    "jnp.full(2, -1, kd)",
    "jnp.full(2, 1.5, kd)",
    "jnp.full(2, np.uint32(5), kd)",
    "jnp.full(2, k, kd)",
    "jnp.full(2, k)",
    "jnp.full((2, 3), ks, kd)",
    "jnp.full((3,), np.array([1, 2], np.uint32), kd)",
    "jnp.zeros_like(k)",
    "jnp.ones_like(ks)",
    "jnp.empty_like(ks)",
    "jnp.zeros_like(ks, shape=(2, 2))",
    "jnp.full_like(k, k)",
    "jnp.full_like(ks, k)",
    "jnp.full_like(k, 0)",
    "jnp.full_like(ks, 9)",
    "jnp.zeros_like(jnp.ones(2), kd)",
    "jnp.zeros_like(k, kd)",
    "jnp.full_like(k, 0, kd)",
    "jnp.ones_like(np.ones(2), dtype=kd)",
]


def outcomes(
    jnp: Any,
    wrap: Callable[[Any], Any],
    unwrap: Callable[[Any], Any],
    jit: Any,
    make_jaxpr: Any,
) -> dict[str, Any]:
    """What each case gives in a framework.

    Args:
      jnp: the NumPy API module.
      wrap: uint32 data to Threefry keys (``jax.random.wrap_key_data``).
      unwrap: keys to their data (``jax.random.key_data``).
      jit: the framework's ``jit``.
      make_jaxpr: the framework's ``make_jaxpr``.

    Returns:
      Per case the exception's class name, or the eager and compiled
      results (dtype, shape, key data) and the jaxpr text.
    """
    k = wrap(np.array([0, 42], np.uint32))
    ks = wrap(np.arange(6, dtype=np.uint32).reshape(3, 2) + 1)
    env = {"jnp": jnp, "np": np, "k": k, "ks": ks, "kd": k.dtype}

    def run(src: str) -> Any:
        return eval(src, env)

    def describe(r: Any) -> dict[str, Any]:
        return {
            "dtype": str(r.dtype),
            "shape": list(r.shape),
            "data": np.asarray(unwrap(r)).tolist(),
        }

    out: dict[str, Any] = {}
    for src in CASES:
        try:
            eager = describe(run(src))
            staged = describe(jit(lambda src=src: run(src))())
            text = str(make_jaxpr(lambda src=src: run(src))())
        except Exception as e:  # the class is what is compared
            out[src] = {"error": type(e).__name__}
            continue
        out[src] = {"eager": eager, "jit": staged, "jaxpr": text}
    return out
