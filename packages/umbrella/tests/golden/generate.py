"""Write the reference outputs of the cases modules beside this script.

Run under the reference implementation only (no tessela package is imported)::

    python tests/golden/generate.py --out tests/golden

Each entry of ``GOLDEN_FILES`` names a file and how the reference computes its
content from a cases module (shared with the test that compares):
``nn_golden.npz`` maps ``"<family>|<case>[|<part>]"`` to arrays: activation
values and derivatives, initializer samples for fixed keys, attention outputs
and the input gradients of a few attention cases; the others hold the outputs
of ``api_cases.py``, ``image_cases.py``, ``lax_more_cases.py``,
``lax_other_cases.py``, ``linalg_more_cases.py``, ``scipy_cases.py``,
``scipy_more_cases.py`` and ``transforms_more_cases.py`` (arrays), and of
``key_cases.py``, ``narrow_float_cases.py``, ``random_sharding_cases.py`` and
``flags_cases.py`` (JSON).
``generate_api_extra.py`` writes ``api_extra_golden.*`` (on eight devices).
"""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import jax
import jax.custom_batching
import jax.experimental.checkify
import jax.flatten_util
import jax.image
import jax.nn
import jax.numpy as jnp
import jax.ops
import jax.random
import jax.scipy.linalg
import jax.scipy.ndimage
import jax.scipy.optimize
import jax.scipy.signal
import jax.scipy.special
import jax.scipy.stats

jax.config.update("jax_platforms", "cpu")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _cli  # noqa: E402
import api_cases  # noqa: E402
import flags_cases  # noqa: E402
import image_cases  # noqa: E402
import key_cases  # noqa: E402
import lax_more_cases  # noqa: E402
import lax_other_cases  # noqa: E402
import linalg_more_cases  # noqa: E402
import narrow_float_cases  # noqa: E402
import nn_cases  # noqa: E402
import random_sharding_cases  # noqa: E402
import scipy_cases  # noqa: E402
import scipy_more_cases  # noqa: E402
import transforms_more_cases  # noqa: E402


def _nn() -> dict[str, Any]:
    arrays = {}
    arrays.update(nn_cases.activations(jax.nn, jax.grad, jax.vmap))
    arrays.update(nn_cases.initializers(jax.nn, jax.random))
    arrays.update(nn_cases.attention(jax.nn, jax.grad))
    return arrays


def _versioned(cases: dict[str, Any]) -> dict[str, Any]:
    cases["jax_version"] = jax.__version__
    return cases


_LINALG = SimpleNamespace(
    lax=jax.lax, numpy=jnp, scipy_linalg=jax.scipy.linalg, jit=jax.jit, jvp=jax.jvp, vjp=jax.vjp,
    vmap=jax.vmap,
)  # fmt: skip
_SCIPY = SimpleNamespace(lax=jax.lax, scipy=jax.scipy, grad=jax.grad, vmap=jax.vmap)

# File name -> its content. The flag cases toggle configuration flags: they run last.
GOLDEN_FILES: dict[str, Callable[[], Any]] = {
    "nn_golden.npz": _nn,
    "api_golden.npz": lambda: api_cases.run(jax),
    "image_golden.npz": lambda: image_cases.run(jax),
    "lax_more_golden.npz": lambda: lax_more_cases.run(jax),
    "lax_other_golden.npz": lambda: lax_other_cases.run(jax),
    "linalg_more_golden.npz": lambda: linalg_more_cases.run(_LINALG),
    "scipy_golden.npz": lambda: scipy_cases.run(
        jax.scipy.special, jax.scipy.stats, jax.ops, jax.grad, jax.vmap
    ),
    "scipy_more_golden.npz": lambda: scipy_more_cases.run(_SCIPY),
    "transforms_more_golden.npz": lambda: transforms_more_cases.run(jax),
    "keys_golden.json": lambda: _versioned(key_cases.run(jax)),
    "narrow_float_golden.json": lambda: narrow_float_cases.run(jax),
    "random_sharding_golden.json": lambda: _versioned(random_sharding_cases.run(jax)),
    "flags_golden.json": lambda: flags_cases.run(jax),
}


def main() -> None:
    out = _cli.out_dir()
    for name, compute in GOLDEN_FILES.items():
        content = compute()
        if name.endswith(".npz"):
            _cli.save_npz(out, name, content)
        else:
            _cli.save_json(out, name, content, indent=0 if name == "flags_golden.json" else 1)
            print(f"wrote {len(content)} entries to {out / name}")


if __name__ == "__main__":
    main()
