"""List JAX 0.10.2's public names per module into ``jax_api.json`` (run with JAX installed).

A public name is one in ``dir(module)`` that does not start with ``_``;
names whose access raises or warns (JAX's deprecation shims) are listed apart
as deprecated. Also the public attributes of a ``jax.Array`` and of a tracer
inside ``jit``. Run in a process with JAX, never with Tessela::

    python packages/umbrella/tools/list_jax_api.py
"""

from __future__ import annotations

import importlib
import json
import pathlib
import warnings

import jax
import jax.numpy as jnp

MODULES = [
    "jax", "jax.custom_batching", "jax.custom_derivatives", "jax.debug", "jax.dtypes",
    "jax.errors", "jax.flatten_util", "jax.image", "jax.lax", "jax.lax.linalg", "jax.nn",
    "jax.nn.initializers", "jax.numpy", "jax.numpy.fft", "jax.numpy.linalg", "jax.ops",
    "jax.profiler", "jax.random", "jax.scipy", "jax.scipy.linalg", "jax.scipy.ndimage",
    "jax.scipy.optimize", "jax.scipy.signal", "jax.scipy.special", "jax.scipy.stats",
    "jax.scipy.stats.bernoulli", "jax.scipy.stats.beta", "jax.scipy.stats.betabinom",
    "jax.scipy.stats.binom", "jax.scipy.stats.cauchy", "jax.scipy.stats.chi2",
    "jax.scipy.stats.dirichlet", "jax.scipy.stats.expon", "jax.scipy.stats.gamma",
    "jax.scipy.stats.gennorm", "jax.scipy.stats.geom", "jax.scipy.stats.gumbel_l",
    "jax.scipy.stats.gumbel_r", "jax.scipy.stats.laplace", "jax.scipy.stats.logistic",
    "jax.scipy.stats.multinomial", "jax.scipy.stats.multivariate_normal",
    "jax.scipy.stats.nbinom", "jax.scipy.stats.norm", "jax.scipy.stats.pareto",
    "jax.scipy.stats.poisson", "jax.scipy.stats.t", "jax.scipy.stats.truncnorm",
    "jax.scipy.stats.uniform", "jax.scipy.stats.vonmises", "jax.scipy.stats.wrapcauchy",
    "jax.sharding", "jax.stages", "jax.tree", "jax.tree_util", "jax.typing",
]  # fmt: skip


def _public(obj: object) -> tuple[list[str], list[str]]:
    names, deprecated = [], []
    for name in sorted(dir(obj)):
        if name.startswith("_"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                getattr(obj, name)
            except Exception:
                deprecated.append(name)
                continue
        names.append(name)
    return names, deprecated


def main() -> None:
    out: dict[str, object] = {"jax_version": jax.__version__, "modules": {}, "deprecated": {}}
    for name in MODULES:
        names, deprecated = _public(importlib.import_module(name))
        out["modules"][name] = names  # type: ignore[index]
        out["deprecated"][name] = deprecated  # type: ignore[index]
    seen: list[object] = []
    jax.jit(lambda x: seen.append(x) or x)(jnp.ones(3))
    out["modules"]["jax.Array"] = _public(jnp.ones(3))[0]  # type: ignore[index]
    out["modules"]["tracer"] = _public(seen[0])[0]  # type: ignore[index]
    path = pathlib.Path(__file__).resolve().with_name("jax_api.json")
    path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    total = sum(len(v) for v in out["modules"].values())  # type: ignore[attr-defined]
    print(f"wrote {total} names in {len(out['modules'])} modules to {path}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
