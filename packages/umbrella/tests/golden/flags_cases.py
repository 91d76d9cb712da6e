"""Cases for JAX's top-level flag objects (``no_tracing``, ``legacy_prng_key``, ...) and ``Shard``.

``run(jx)`` takes the top-level module (``jax`` or ``tessela``) and returns a
JSON-able dict: flag values, the messages of the errors and warnings the flags
raise, and the numbers computed under them. ``generate.py`` writes the
reference's dict to ``flags_golden.json``; ``test_flags_golden.py`` compares.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

NAMES = (
    "no_tracing", "no_execution", "enable_checks", "softmax_custom_jvp", "legacy_prng_key",
    "enable_custom_prng", "allow_f16_reductions", "jax2tf_associative_scan_reductions",
    "array_garbage_collection_guard", "thread_guard", "remove_size_one_mesh_axis_from_type",
    "debug_key_reuse",
)  # fmt: skip


def _error(fn: Any) -> str:
    """``"ok"``, or the type and message of what ``fn()`` raised (file paths made short)."""
    try:
        fn()
    except Exception as e:
        text = str(e).replace(os.path.abspath(__file__), os.path.basename(__file__))
        return f"{type(e).__name__}: {text}"
    return "ok"


def _warned(fn: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def add_one(x: Any) -> Any:
    return x + 1


def _values(jx: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in NAMES:
        out[f"value|{name}"] = str(getattr(jx, name).value)
    out["needs_arg|legacy_prng_key"] = _error(lambda: jx.legacy_prng_key().__enter__())
    out["needs_arg|gc_guard"] = _error(lambda: jx.array_garbage_collection_guard().__enter__())
    out["bad|legacy_prng_key"] = _error(lambda: jx.config.update("jax_legacy_prng_key", "bad"))
    out["bad|gc_guard"] = _error(
        lambda: jx.config.update("jax_array_garbage_collection_guard", "bad")
    )
    for value in ("allow", "warn", "error"):
        with jx.legacy_prng_key(value):
            out[f"inside|legacy_prng_key|{value}"] = str(jx.legacy_prng_key.value)
    with jx.array_garbage_collection_guard("allow"):
        out["inside|gc_guard"] = str(jx.array_garbage_collection_guard.value)
    with jx.no_tracing():
        out["inside|no_tracing"] = bool(jx.config.jax_no_tracing)
    jx.config.update("jax2tf_associative_scan_reductions", True)
    out["update|jax2tf"] = bool(jx.jax2tf_associative_scan_reductions.value)
    jx.config.update("jax2tf_associative_scan_reductions", False)
    return out


def _tracing(jx: Any) -> dict[str, Any]:
    jnp = jx.numpy
    out: dict[str, Any] = {}
    f = jx.jit(add_one)
    f(1.0)
    ones = jnp.ones(3)
    with jx.no_tracing():
        out["no_tracing|hit"] = float(f(2.0))
        out["no_tracing|miss"] = _error(lambda: f(ones))
    out["no_tracing|after"] = np.asarray(f(jnp.ones(2))).tolist()
    g = jx.jit(lambda x: x * 3)
    with jx.no_execution():
        out["no_execution|jit"] = _error(lambda: f(2.0))
        out["no_execution|eager"] = _error(lambda: jnp.sin(1.0))
        out["no_execution|compile"] = _error(lambda: g.lower(1.0).compile())
        out["no_execution|eval_shape"] = str(jx.eval_shape(g, 1.0).shape)
    out["no_execution|after"] = float(g(2.0))
    with jx.enable_checks(True):
        out["enable_checks|jit"] = np.asarray(
            jx.jit(lambda x: jnp.sin(x) * 2)(jnp.ones(2))
        ).tolist()
    return out


def _random(jx: Any) -> dict[str, Any]:
    random = jx.random
    raw, typed = random.PRNGKey(0), random.key(0)
    calls = {
        "PRNGKey": lambda: random.PRNGKey(1),
        "split": lambda: random.split(raw),
        "normal": lambda: random.normal(raw),
        "uniform": lambda: random.uniform(raw, (2,)),
        "fold_in": lambda: random.fold_in(raw, 1),
        "bits": lambda: random.bits(raw),
        "key_data": lambda: random.key_data(raw),
        "key_impl": lambda: str(random.key_impl(raw)),
        "clone": lambda: random.clone(raw),
        "wrap_key_data": lambda: random.wrap_key_data(raw),
        "typed": lambda: random.normal(typed),
    }
    out: dict[str, Any] = {}
    with jx.legacy_prng_key("warn"):
        for name, fn in calls.items():
            out[f"warn|{name}"] = _warned(fn)
    with jx.legacy_prng_key("error"):
        for name, fn in calls.items():
            out[f"error|{name}"] = _error(fn)
    with jx.legacy_prng_key("warn"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["warn|value"] = float(random.normal(raw))
    return out


def _numerics(jx: Any) -> dict[str, Any]:
    jnp, lax, nn = jx.numpy, jx.lax, jx.nn
    out: dict[str, Any] = {}
    x = jnp.array([0.0, -jnp.inf, 1.0])
    where = jnp.array([True, True, False])
    for flag in (False, True):
        with jx.softmax_custom_jvp(flag):
            tag = f"softmax|{flag}"
            out[f"{tag}|grad"] = np.asarray(jx.grad(lambda v: nn.softmax(v)[0])(x)).tolist()
            out[f"{tag}|grad_where"] = np.asarray(
                jx.grad(lambda v: nn.softmax(v, where=where)[0])(jnp.array([0.0, 1.0, 2.0]))
            ).tolist()
            out[f"{tag}|jvp"] = (
                np.asarray(jx.jvp(nn.softmax, (jnp.array([0.5, 1.0, 2.0]),), (jnp.ones(3),))[1])
                .round(5)
                .tolist()
            )
            out[f"{tag}|custom_jvp_in_jaxpr"] = "custom_jvp" in str(
                jx.make_jaxpr(nn.softmax)(jnp.ones(2))
            )
            out[f"{tag}|jit_grad_axis0"] = np.asarray(
                jx.jit(jx.grad(lambda v: nn.softmax(v, axis=0)[0, 1]))(jnp.ones((2, 3)))
            ).tolist()
    half = jnp.ones((2, 3), jnp.float16)
    jitted = jx.jit(lambda v: lax.reduce(v, np.float16(0), lax.add, (1,)))
    eager = np.asarray(lax.reduce(half, np.float16(0), lax.add, (1,))).tolist()
    out["f16|before"] = [eager, np.asarray(jitted(half)).tolist()]
    with jx.allow_f16_reductions(False):
        out["f16|jit_cached"] = _error(lambda: jitted(half))
        out["f16|lax_reduce"] = _error(lambda: lax.reduce(half, np.float16(0), lax.add, (1,)))
        out["f16|lax_reduce_bf16"] = _error(
            lambda: lax.reduce(half.astype(jnp.bfloat16), jnp.bfloat16(0), lax.add, (0,))
        )
        out["f16|size_one_axis"] = np.asarray(
            lax.reduce(jnp.ones((1, 3), jnp.float16), np.float16(0), lax.add, (0,))
        ).tolist()
        out["f16|jnp_sum"] = np.asarray(jnp.sum(half, axis=1)).tolist()
        out["f16|f32"] = np.asarray(lax.reduce(jnp.ones(3), 0.0, lax.add, (0,))).tolist()
    out["f16|allowed"] = np.asarray(lax.reduce(half, np.float16(0), lax.add, (1,))).tolist()
    with jx.jax2tf_associative_scan_reductions(True):
        out["jax2tf|cumsum"] = np.asarray(jnp.cumsum(jnp.arange(5.0))).tolist()
    shard = jnp.arange(3.0).addressable_shards[0]
    out["shard|isinstance"] = isinstance(shard, jx.Shard)
    out["shard|fields"] = [str(shard.index), shard.replica_id, np.asarray(shard.data).tolist()]
    out["debug|effects_are_types"] = [
        isinstance(jx.debug.DebugEffect, type),
        isinstance(jx.debug.OrderedDebugEffect, type),
    ]
    return out


def run(jx: Any) -> dict[str, Any]:
    """Every case, through the top-level module ``jx`` (``jax`` or ``tessela``)."""
    return {**_values(jx), **_tracing(jx), **_random(jx), **_numerics(jx)}
