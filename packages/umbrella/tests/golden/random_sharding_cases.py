"""``out_sharding=`` of the samplers and ``typeof(x).sharding``, run through either implementation.

``run(jx)`` takes the top-level module (``jax``, or ``tessela``) and returns a
JSON-able dict: sampled values as nested lists, printed shardings as strings,
exception classes by name. ``generate.py`` stores JAX
0.10.2's results in ``random_sharding_golden.json``;
``test_random_out_sharding.py`` compares Tessela's with them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SHAPE = (2, 3)


def sampler_calls(jx: Any) -> dict[str, Callable[..., Any]]:
    """Each sampler that takes ``out_sharding``, as ``call(key, **kw)`` with fixed arguments."""
    r = jx.random
    np32 = np.float32
    return {
        "ball": lambda k, **kw: r.ball(k, 3, 2, (2,), **kw),
        "bernoulli": lambda k, **kw: r.bernoulli(k, 0.3, SHAPE, **kw),
        "beta": lambda k, **kw: r.beta(k, 2.0, 3.0, SHAPE, **kw),
        "bits": lambda k, **kw: r.bits(k, SHAPE, **kw),
        "categorical": lambda k, **kw: r.categorical(
            k, np.linspace(-1, 1, 12, dtype=np32).reshape(3, 4), -1, SHAPE, **kw
        ),
        "cauchy": lambda k, **kw: r.cauchy(k, SHAPE, **kw),
        "chisquare": lambda k, **kw: r.chisquare(k, 3.0, SHAPE, **kw),
        "dirichlet": lambda k, **kw: r.dirichlet(k, np.array([1, 2, 3], np32), (2,), **kw),
        "exponential": lambda k, **kw: r.exponential(k, SHAPE, **kw),
        "f": lambda k, **kw: r.f(k, 2.0, 3.0, SHAPE, **kw),
        "gamma": lambda k, **kw: r.gamma(k, 2.0, SHAPE, **kw),
        "generalized_normal": lambda k, **kw: r.generalized_normal(k, 1.5, SHAPE, **kw),
        "geometric": lambda k, **kw: r.geometric(k, 0.3, SHAPE, **kw),
        "gumbel": lambda k, **kw: r.gumbel(k, SHAPE, **kw),
        "laplace": lambda k, **kw: r.laplace(k, SHAPE, **kw),
        "loggamma": lambda k, **kw: r.loggamma(k, 2.0, SHAPE, **kw),
        "logistic": lambda k, **kw: r.logistic(k, SHAPE, **kw),
        "lognormal": lambda k, **kw: r.lognormal(k, 0.5, SHAPE, **kw),
        "maxwell": lambda k, **kw: r.maxwell(k, SHAPE, **kw),
        "multivariate_normal": lambda k, **kw: r.multivariate_normal(
            k, np.zeros(3, np32), np.eye(3, dtype=np32), (2,), **kw
        ),
        "normal": lambda k, **kw: r.normal(k, SHAPE, **kw),
        "orthogonal": lambda k, **kw: r.orthogonal(k, 3, (2,), **kw),
        "pareto": lambda k, **kw: r.pareto(k, 2.0, SHAPE, **kw),
        "permutation": lambda k, **kw: r.permutation(k, 6, **kw),
        "poisson": lambda k, **kw: r.poisson(k, 3.0, SHAPE, **kw),
        "rademacher": lambda k, **kw: r.rademacher(k, SHAPE, **kw),
        "randint": lambda k, **kw: r.randint(k, SHAPE, 0, 10, **kw),
        "rayleigh": lambda k, **kw: r.rayleigh(k, 1.0, SHAPE, **kw),
        "t": lambda k, **kw: r.t(k, 3.0, SHAPE, **kw),
        "triangular": lambda k, **kw: r.triangular(k, 0.0, 0.5, 1.0, SHAPE, **kw),
        "truncated_normal": lambda k, **kw: r.truncated_normal(k, -1.0, 1.0, SHAPE, **kw),
        "uniform": lambda k, **kw: r.uniform(k, SHAPE, **kw),
        "wald": lambda k, **kw: r.wald(k, 1.0, SHAPE, **kw),
    }


def _values(x: Any) -> Any:
    return np.asarray(x).tolist()


def _error(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as err:  # the class is the result
        return type(err).__name__
    return "no error"


def _tree_random_like(jx: Any, key: Any, tree: Any, sampler: Callable[..., Any]) -> Any:
    """``optax.tree_utils.tree_random_like``: one key per leaf, the leaf's shape, dtype and sharding."""
    leaves, treedef = jx.tree_util.tree_flatten(tree)
    keys = jx.random.split(key, len(leaves))
    out = [
        sampler(k, leaf.shape, leaf.dtype, out_sharding=jx.typeof(leaf).sharding)
        for k, leaf in zip(keys, leaves, strict=True)
    ]
    return jx.tree_util.tree_unflatten(treedef, out)


def run(jx: Any) -> dict[str, Any]:
    """Every case's result, keyed by case name."""
    out: dict[str, Any] = {}
    jnp = jx.numpy
    key = jx.random.key(7)
    for shape in [(), (3,), (2, 3), (1, 2, 3)]:
        out[f"typeof/{shape}"] = repr(jx.typeof(jnp.zeros(shape)).sharding)
    out["typeof/python_scalar"] = repr(jx.typeof(1.0).sharding)
    seen: list[str] = []
    jx.jit(lambda x: seen.append(repr(jx.typeof(x).sharding)) or x)(jnp.ones((2, 3)))
    out["typeof/traced"] = seen[0]
    spec_empty = jx.sharding.NamedSharding(jx.sharding.AbstractMesh((), ()), jx.P(None, None))
    out["typeof/equal_to_built"] = bool(jx.typeof(jnp.ones((2, 3))).sharding == spec_empty)
    mesh1 = jx.make_mesh((1,), ("x",))
    for name, call in sampler_calls(jx).items():
        plain = call(key)
        sharding = jx.typeof(plain).sharding
        out[f"{name}/plain"] = _values(plain)
        out[f"{name}/typeof"] = _values(call(key, out_sharding=sharding))
        out[f"{name}/none"] = _values(call(key, out_sharding=None))
        jitted = jx.jit(lambda k, c=call, s=sharding: c(k, out_sharding=s))
        try:
            out[f"{name}/jit"] = _values(jitted(key))
        except Exception as err:  # recorded, so that one failure does not hide the others
            out[f"{name}/jit"] = f"error: {type(err).__name__}"
        one = jx.sharding.NamedSharding(mesh1, jx.P())
        placed = call(key, out_sharding=one)
        out[f"{name}/one_device"] = _values(placed)
        out[f"{name}/one_device_sharding"] = repr(placed.sharding)
    out["error/spec_without_mesh"] = _error(
        lambda: jx.random.normal(key, SHAPE, out_sharding=jx.P(None, None))
    )
    with jx.set_mesh(mesh1):
        under_mesh = jx.random.normal(key, SHAPE, out_sharding=jx.P("x"))
    out["normal/spec_under_mesh"] = _values(under_mesh)
    out["normal/spec_under_mesh_sharding"] = repr(under_mesh.sharding)
    mesh_x = jx.sharding.NamedSharding(mesh1, jx.P("x"))
    x_placed = jx.random.uniform(key, (4, 2), out_sharding=mesh_x)
    out["uniform/mesh_x"] = _values(x_placed)
    out["uniform/mesh_x_sharding"] = repr(x_placed.sharding)
    device = jx.sharding.SingleDeviceSharding(jx.devices()[0])
    out["error/single_device_sharding"] = _error(
        lambda: jx.random.normal(key, SHAPE, out_sharding=device)
    )
    out["error/device"] = _error(lambda: jx.random.normal(key, SHAPE, out_sharding=jx.devices()[0]))
    tree = {"a": jnp.ones((2, 3)), "b": (jnp.zeros(4), jnp.float32(1.0)), "c": jnp.ones((1, 2))}
    for name in ("normal", "uniform", "rademacher", "bernoulli_like"):
        sampler = getattr(jx.random, name, None) or (
            lambda k, shape, dtype, out_sharding: jx.random.bernoulli(
                k, 0.5, shape, out_sharding=out_sharding
            )
        )
        eager = _tree_random_like(jx, key, tree, sampler)
        out[f"tree_random_like/{name}"] = _values_tree(jx, eager)
        jitted = jx.jit(lambda k, t, s=sampler: _tree_random_like(jx, k, t, s))(key, tree)
        out[f"tree_random_like/{name}/jit"] = _values_tree(jx, jitted)
    return out


def _values_tree(jx: Any, tree: Any) -> Any:
    return [_values(leaf) for leaf in jx.tree_util.tree_leaves(tree)]
