"""Case layout shared by the golden generator and the tests that replay it.

Imports neither the reference implementation nor tessela: the generator runs a
case through ``jax.random`` and the tests through ``tessela_prng``, each passing
its own module (and its own whole-array shuffle) to :func:`run_case`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# The 16- and 8-bit float widths whose samplers the narrow golden file covers.
NARROW_FLOATS = [
    "bfloat16",
    "float16",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e3m4",
    "float8_e4m3",
]


def decode(value: Any) -> Any:
    """An argument as stored in a case, back as an array, tuple or list."""
    if isinstance(value, dict) and "array" in value:
        return np.asarray(value["array"], dtype=value["dtype"])
    if isinstance(value, dict) and "tuple" in value:
        return tuple(value["tuple"])
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def run_case(random: Any, shuffle: Callable[..., Any], case: dict[str, Any]) -> Any:
    """Call the case's sampler of ``random``; ``shuffle_like`` cases go to ``shuffle``."""
    k = random.PRNGKey(case["seed"]) if case["raw"] else random.key(case["seed"])
    args = [decode(a) for a in case["args"]]
    kwargs = {name: decode(v) for name, v in case["kwargs"].items()}
    fn = case["fn"]
    if fn == "key_data":
        return random.key_data(k)
    if fn == "shuffle_like":
        return shuffle(k, *args)
    out = getattr(random, fn)(k, *args, **kwargs)
    if fn in ("split", "fold_in") and not case["raw"]:
        out = random.key_data(out)
    return out
