"""``random.poisson`` with raw and typed keys, eagerly and under ``jit``, run through either implementation.

``run(jx)`` takes the top-level module (``jax``, or ``tessela``) and returns,
per case, ``{"dtype": ..., "shape": [...], "values": [...]}`` (values flattened) or
``{"raised": <class name>}``. The cases cover both of the sampler's loops
(Knuth's below a rate of 10, the rejection one above), a rate of 0, scalar
and array rates of float32, float16 and bfloat16 broadcast to the shape, and
int32, int8 and uint32 samples. ``generate_poisson.py`` stores JAX 0.10.2's
results in ``poisson_golden.json``; ``test_random_poisson.py`` compares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

RATES = np.array([0.0, 0.5, 3.0, 9.5, 12.0, 40.0], np.float32)
# The cases that also run under jit (each one compiles both loops).
JIT = ("scalar_rate", "scalar_rate_no_shape", "rates", "column_rates", "uint32")


def _record(fn: Callable[[], Any]) -> Any:
    try:
        out = np.asarray(fn())
    except Exception as err:
        return {"raised": type(err).__name__}
    return {"dtype": str(out.dtype), "shape": list(out.shape), "values": out.ravel().tolist()}


def calls(jx: Any) -> dict[str, Callable[[Any], Any]]:
    """Each case as ``call(key)``."""
    r, jnp = jx.random, jx.numpy
    return {
        "scalar_rate": lambda k: r.poisson(k, 3.0, (5,)),
        "scalar_rate_no_shape": lambda k: r.poisson(k, 25.0),
        "rates": lambda k: r.poisson(k, RATES),
        "rates_broadcast": lambda k: r.poisson(k, RATES, (2, 6)),
        "rates_float16": lambda k: r.poisson(k, jnp.asarray(RATES, jnp.float16)),
        "rates_bfloat16": lambda k: r.poisson(k, jnp.asarray(RATES, jnp.bfloat16), (2, 6)),
        "column_rates": lambda k: r.poisson(k, RATES[1:4].reshape(3, 1), (3, 4)),
        "int8": lambda k: r.poisson(k, RATES, dtype=jnp.int8),
        "uint32": lambda k: r.poisson(k, RATES, dtype=jnp.uint32),
    }


def run(jx: Any) -> dict[str, Any]:
    """Every case's record, keyed ``"<case>/<raw|typed>/<eager|jit>"`` (under jit only those in :data:`JIT`)."""
    keys = {"raw": jx.random.PRNGKey(3), "typed": jx.random.key(4)}
    out: dict[str, Any] = {}
    for name, call in calls(jx).items():
        for kind, key in keys.items():
            out[f"{name}/{kind}/eager"] = _record(lambda c=call, k=key: c(k))
            if name in JIT:
                out[f"{name}/{kind}/jit"] = _record(lambda c=call, k=key: jx.jit(c)(k))
    return out
