"""Batching custom_jvp / custom_vjp: the primal, and the rule closures the equation carries.

Batching does not depend on autodiff, so the batched rules are called
directly, as a differentiation rule would call them, and compared with a
Python loop over the unbatched rules.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from tessela_batching import vmap
from tessela_tracer import custom_jvp, custom_vjp, lax, make_jaxpr

F = np.float32
RNG = np.random.RandomState(0)


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(F)


@custom_jvp
def _pair(d: Any) -> Any:
    return {"s": lax.mul(lax.sin(d["x"]), d["y"][0]), "t": d["y"][1]}


@_pair.defjvp
def _pair_jvp(primals: Any, tangents: Any) -> Any:
    (d,), (t,) = primals, tangents
    ds = lax.add(lax.mul(lax.mul(lax.cos(d["x"]), t["x"]), d["y"][0]),
                 lax.mul(lax.sin(d["x"]), t["y"][0]))  # fmt: skip
    return _pair(d), {"s": ds, "t": t["y"][1]}


def _eqn(closed: Any, name: str) -> Any:
    (eqn,) = [e for e in closed.eqns if e.primitive.name == name]
    return eqn


def test_vmap_of_pytree_custom_jvp_equals_loop() -> None:
    d = {"x": _x(4, 3), "y": (_x(4, 3), _x(4))}
    out = vmap(_pair)(d)
    for i in range(4):
        di = {"x": d["x"][i], "y": (d["y"][0][i], d["y"][1][i])}
        oi = _pair(di)
        np.testing.assert_allclose(out["s"][i], oi["s"], rtol=1e-6)
        np.testing.assert_allclose(out["t"][i], oi["t"])


def test_batched_jvp_rule_equals_loop_of_rules() -> None:
    d = {"x": _x(4, 3), "y": (_x(4, 3), _x(4))}
    t = {"x": _x(4, 3), "y": (_x(4, 3), _x(4))}
    eqn = _eqn(make_jaxpr(vmap(_pair))(d), "custom_jvp_call")
    assert str(eqn.params["jvp"]) == "_pair_jvp"
    flat = [d["x"], d["y"][0], d["y"][1]]
    tflat = [t["x"], t["y"][0], t["y"][1]]
    outs, touts = eqn.params["jvp"](flat, tflat)
    inner = _eqn(make_jaxpr(_pair)({"x": d["x"][0], "y": (d["y"][0][0], d["y"][1][0])}),
                 "custom_jvp_call").params["jvp"]  # fmt: skip
    for i in range(4):
        o, to = inner([a[i] for a in flat], [a[i] for a in tflat])
        for k in range(2):
            np.testing.assert_allclose(outs[k][i], o[k], rtol=1e-6)
            np.testing.assert_allclose(touts[k][i], to[k], rtol=1e-5, atol=1e-6)


def test_batched_jvp_rule_keeps_symbolic_zero_tangents() -> None:
    @custom_jvp
    def f(x: Any, y: Any) -> Any:
        return lax.mul(x, y), y

    @partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(p: Any, t: Any) -> Any:
        return f(*p), (lax.mul(t[0], p[1]), t[1])

    eqn = _eqn(make_jaxpr(vmap(f))(_x(3), _x(3)), "custom_jvp_call")
    x, y, tx = _x(3), _x(3), _x(3)
    _, touts = eqn.params["jvp"]([x, y], [tx, None])
    np.testing.assert_allclose(touts[0], tx * y, rtol=1e-6)
    assert touts[1] is None


def test_batched_fwd_and_bwd_equal_loop() -> None:
    @partial(custom_vjp, nondiff_argnums=(0,))
    def f(k: float, d: Any) -> Any:
        return lax.mul(lax.mul(d["a"], d["b"]), k)

    def fwd(k: float, d: Any) -> Any:
        return f(k, d), (d["a"], d["b"])

    def bwd(k: float, res: Any, g: Any) -> Any:
        _, b = res
        return ({"a": lax.mul(lax.mul(g, b), k), "b": None},)

    f.defvjp(fwd, bwd)
    a, b, g = _x(5, 2), _x(5, 2), _x(5, 2)
    np.testing.assert_allclose(vmap(lambda d: f(2.0, d))({"a": a, "b": b}), a * b * 2.0, rtol=1e-6)
    eqn = _eqn(make_jaxpr(vmap(lambda d: f(2.0, d)))({"a": a, "b": b}), "custom_vjp_call")
    p = eqn.params
    assert (str(p["fwd"]), str(p["bwd"])) == ("fwd", "bwd")
    res_out = p["fwd"]([a, b], [True, True])
    num_res = p["out_trees"]()[1].num_leaves
    assert num_res == 2
    np.testing.assert_allclose(res_out[num_res], a * b * 2.0, rtol=1e-6)
    cts = p["bwd"](res_out[:num_res], [g])
    np.testing.assert_allclose(cts[0], g * b * 2.0, rtol=1e-6)
    assert cts[1] is None


def test_vmap_with_unbatched_closure_constant() -> None:
    c = _x(3)

    @custom_vjp
    def f(x: Any) -> Any:
        return lax.mul(x, c)

    f.defvjp(lambda x: (f(x), None), lambda _, g: (lax.mul(g, c),))
    x = _x(4, 3)
    np.testing.assert_allclose(vmap(f)(x), x * c, rtol=1e-6)
    eqn = _eqn(make_jaxpr(vmap(f))(x), "custom_vjp_call")
    assert eqn.params["num_consts"] == 1
    assert eqn.params["call_jaxpr"].in_avals[0].shape == (3,)
