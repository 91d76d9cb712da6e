"""Cases of ``custom_vmap``, ``sequential_vmap``, ``custom_gradient``, ``closure_convert`` and
``fwd_and_bwd``: ``run(lib)`` with ``jax`` or ``tessela`` as ``lib`` returns NumPy arrays by name.

The custom_vmap rules compute something other than the function (``cos``
for ``sin``) so that the results show which of the two ran.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def run(lib: Any) -> dict[str, np.ndarray]:
    jnp = lib.numpy
    out: dict[str, np.ndarray] = {}
    seen: list[Any] = []

    @lib.custom_batching.custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def f_rule(axis_size, in_batched, xs, ys):
        seen.append((axis_size, list(in_batched)))
        return jnp.cos(xs) * ys, in_batched[0] or in_batched[1]

    x = jnp.linspace(0.0, 1.0, 4)
    y = jnp.linspace(1.0, 2.0, 4)
    out["cv/plain"] = np.asarray(f(0.5, 2.0))
    out["cv/vmap"] = np.asarray(lib.vmap(f)(x, y))
    out["cv/vmap_none"] = np.asarray(lib.vmap(f, in_axes=(0, None))(x, 2.0))
    out["cv/jit_vmap"] = np.asarray(lib.jit(lib.vmap(f))(x, y))
    out["cv/vmap_jit"] = np.asarray(lib.vmap(lib.jit(f))(x, y))
    out["cv/vmap_vmap"] = np.asarray(lib.vmap(lib.vmap(f))(x.reshape(2, 2), y.reshape(2, 2)))
    primal, tangent = lib.jvp(lib.vmap(f), (x, y), (jnp.ones(4), jnp.zeros(4)))
    out["cv/jvp_vmap"] = np.stack([np.asarray(primal), np.asarray(tangent)])
    out["cv/in_batched"] = np.array([[n, *b] for n, b in seen], dtype=np.int32)

    @lib.custom_batching.custom_vmap
    def pair(x):
        return {"a": x * 2.0, "b": x + 1.0}

    @pair.def_vmap
    def pair_rule(axis_size, in_batched, xs):
        return {"a": xs * 3.0, "b": jnp.sum(xs)}, {"a": True, "b": False}

    res = lib.vmap(pair)(x)
    out["cv/tree_a"] = np.asarray(res["a"])
    out["cv/tree_b"] = np.asarray(res["b"])

    g = lib.custom_batching.sequential_vmap(lambda a, b: jnp.dot(a, b))
    out["seq/vmap"] = np.asarray(lib.vmap(g)(x.reshape(2, 2), y.reshape(2, 2)))
    out["seq/vmap_none"] = np.asarray(lib.vmap(g, in_axes=(0, None))(x.reshape(2, 2), y[:2]))

    @lib.custom_gradient
    def h(a, b):
        return a * b, lambda ct: (ct * b * 10.0, ct * jnp.cos(a))

    out["cg/value"] = np.asarray(h(2.0, 3.0))
    out["cg/grad"] = np.asarray(lib.grad(h, argnums=(0, 1))(2.0, 3.0))
    out["cg/jit_grad"] = np.asarray(lib.jit(lib.grad(h, argnums=(0, 1)))(2.0, 3.0))
    out["cg/vmap_grad"] = np.asarray(lib.vmap(lib.grad(h))(x, y))

    @lib.custom_gradient
    def clip_grad(v):
        return v, lambda ct: jnp.clip(ct, -0.5, 0.5)

    out["cg/clip"] = np.asarray(lib.grad(lambda v: jnp.sum(clip_grad(v) * 3.0))(x))

    def outer(w):
        conv, consts = lib.closure_convert(lambda v: jnp.sin(v * w), 1.0)
        return conv(0.3, *consts), len(consts)

    out["cc/value"] = np.asarray(outer(2.0)[0])
    out["cc/nconsts"] = np.array([outer(2.0)[1]], dtype=np.int32)
    out["cc/grad"] = np.asarray(lib.grad(lambda w: outer(w)[0])(2.0))

    fwd, bwd = lib.fwd_and_bwd(lambda a, b: jnp.sum(jnp.tanh(a) * b), argnums=(0, 1))
    y0, res = fwd(x, y)
    ga, gb = bwd(res, 2.0)
    out["fb/value"] = np.asarray(y0)
    out["fb/grads"] = np.stack([np.asarray(ga), np.asarray(gb)])
    fwd1, bwd1 = lib.fwd_and_bwd(lambda a: (a * a, a.sum()), argnums=0, has_aux=True)
    _, res1, aux = fwd1(x)
    out["fb/aux"] = np.asarray(aux)
    out["fb/int_argnum"] = np.asarray(bwd1(res1, jnp.ones(4)))

    def lin(x):
        return lib.custom_derivatives.linear_call(
            lambda r, v: r * v, lambda r, ct: 10.0 * r * ct, 2.0, x
        )

    out["lc/value"] = np.asarray(lin(3.0))
    out["lc/grad"] = np.asarray(lib.grad(lin)(3.0))
    out["lc/jit_grad"] = np.asarray(lib.jit(lib.grad(lin))(3.0))
    out["lc/jvp"] = np.stack([np.asarray(t) for t in lib.jvp(lin, (3.0,), (1.0,))])
    out["lc/transpose"] = np.asarray(lib.linear_transpose(lin, 1.0)(1.0)[0])

    def pair(x):
        return lib.custom_derivatives.linear_call(
            lambda r, v: {"a": r[0] * v[0], "b": jnp.sin(r[1]) * v[1]},
            lambda r, ct: (ct["a"] * r[0] * 10.0, ct["b"] * 3.0),
            (2.0, 0.7),
            (x, x),
        )

    out["lc/tree"] = np.asarray(lib.grad(lambda x: pair(x)["a"] + 2.0 * pair(x)["b"])(1.0))
    return out
