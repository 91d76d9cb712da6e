"""custom_jvp / custom_vjp under grad, jvp, vjp, jit and vmap, against finite differences.

The examples follow JAX's custom-derivatives tutorial: a numerically stable
``log1pexp``, ``clip_gradient`` with ``nondiff_argnums``, functions of dicts
and tuples, ``defjvps``, ``bwd`` returning None, nested differentiation.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, jvp, value_and_grad, vjp
from tessela_batching import vmap
from tessela_tracer import custom_jvp, custom_vjp, jit, make_jaxpr
from tessela_tracer.custom_derivatives import SymbolicZero, custom_vjp_primal_tree_values
from tessela_tracer.errors import UnexpectedTracerError

F = np.float32


def _fd(f: Any, x: float, eps: float = 1e-3) -> float:
    return (float(f(np.float64(x + eps))) - float(f(np.float64(x - eps)))) / (2 * eps)


@custom_jvp
def log1pexp(x: Any) -> Any:
    return tnp.log(1.0 + tnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1 - 1 / (1 + tnp.exp(x)))


def test_log1pexp_is_stable_at_100() -> None:
    assert float(grad(log1pexp)(100.0)) == 1.0
    plain = grad(lambda x: tnp.log(1.0 + tnp.exp(x)))(100.0)
    assert np.isnan(float(plain))  # the reason for the custom rule
    assert float(jit(grad(log1pexp))(100.0)) == 1.0
    np.testing.assert_allclose(vmap(grad(log1pexp))(tnp.array([0.0, 2.0, 100.0])),
                               [0.5, 1 / (1 + np.exp(-2.0)), 1.0], rtol=1e-6)  # fmt: skip


@given(st.floats(-5.0, 5.0))
@settings(max_examples=10, deadline=None)
def test_log1pexp_matches_finite_differences(x: float) -> None:
    expected = _fd(lambda v: np.log1p(np.exp(v)), x)
    np.testing.assert_allclose(float(grad(log1pexp)(F(x))), expected, rtol=1e-3, atol=1e-5)


def test_grad_of_grad_uses_the_differentiable_rule() -> None:
    for x in (-2.0, 0.0, 1.0, 3.0):
        s = 1 / (1 + np.exp(-x))
        np.testing.assert_allclose(float(grad(grad(log1pexp))(F(x))), s * (1 - s), rtol=1e-5)
        np.testing.assert_allclose(
            float(grad(grad(grad(log1pexp)))(F(x))), s * (1 - s) * (1 - 2 * s), rtol=1e-4,
            atol=1e-6,
        )  # fmt: skip


@partial(custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo: float, hi: float, x: Any) -> Any:
    return x


def _clip_fwd(lo: float, hi: float, x: Any) -> Any:
    return x, None


def _clip_bwd(lo: float, hi: float, _: Any, g: Any) -> Any:
    return (tnp.clip(g, lo, hi),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def _clip_sin(x: Any) -> Any:
    return tnp.sin(clip_gradient(-0.75, 0.75, x))


def test_clip_gradient() -> None:
    xs = np.array([0.0, 1.0, 2.0, 3.0], F)
    expected = np.clip(np.cos(xs), -0.75, 0.75)
    np.testing.assert_allclose([float(grad(_clip_sin)(x)) for x in xs], expected, rtol=1e-6)
    np.testing.assert_allclose(vmap(grad(_clip_sin))(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jit(vmap(grad(_clip_sin)))(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(grad(lambda x: tnp.sum(vmap(_clip_sin)(x)))(xs), expected,
                               rtol=1e-6)  # fmt: skip
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jvp(_clip_sin, (F(1.0),), (F(1.0),))


def test_nondiff_function_argument() -> None:
    @partial(custom_jvp, nondiff_argnums=(0,))
    def app(f: Any, x: Any) -> Any:
        return f(x)

    @app.defjvp
    def app_jvp(f: Any, primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return app(f, x), 3.0 * t

    assert float(grad(lambda x: app(tnp.sin, x))(1.0)) == 3.0
    np.testing.assert_allclose(vmap(grad(lambda x: app(tnp.sin, x)))(tnp.ones(3)), 3.0)


def test_nondiff_tracer_for_custom_vjp_is_an_error() -> None:
    f = custom_vjp(lambda n, x: x * n, nondiff_argnums=(0,))
    f.defvjp(lambda n, x: (f(n, x), None), lambda n, r, g: (g * n,))
    with pytest.raises(UnexpectedTracerError, match="nondiff_argnums"):
        grad(lambda n: f(n, 1.0))(2.0)
    assert float(grad(lambda x: f(2.0, x))(1.0)) == 2.0


@custom_jvp
def _poly(d: Any) -> Any:
    x, (y, z) = d["x"], d["yz"]
    return {"p": x * y, "q": (tnp.sin(z), x)}


@_poly.defjvp
def _poly_jvp(primals: Any, tangents: Any) -> Any:
    (d,), (t,) = primals, tangents
    x, (y, z) = d["x"], d["yz"]
    tx, (ty, tz) = t["x"], t["yz"]
    return _poly(d), {"p": tx * y + x * ty, "q": (tnp.cos(z) * tz, tx)}


def _poly_loss(d: Any) -> Any:
    out = _poly(d)
    return tnp.sum(out["p"] ** 2) + tnp.sum(out["q"][0] * out["q"][1])


def test_dict_and_tuple_pytrees_against_finite_differences() -> None:
    rng = np.random.RandomState(0)
    d = {"x": rng.randn(3), "yz": (rng.randn(3), rng.randn(3))}
    d32 = {"x": d["x"].astype(F), "yz": (d["yz"][0].astype(F), d["yz"][1].astype(F))}
    g = grad(_poly_loss)(d32)
    assert set(g) == {"x", "yz"} and isinstance(g["yz"], tuple)

    def np_loss(x: Any, y: Any, z: Any) -> float:
        return float(np.sum((x * y) ** 2) + np.sum(np.sin(z) * x))

    args = [d["x"], d["yz"][0], d["yz"][1]]
    flat_g = [g["x"], g["yz"][0], g["yz"][1]]
    for k in range(3):
        for i in range(3):
            e = np.zeros(3)
            e[i] = 1e-6
            plus = [a + e if j == k else a for j, a in enumerate(args)]
            minus = [a - e if j == k else a for j, a in enumerate(args)]
            fd = (np_loss(*plus) - np_loss(*minus)) / 2e-6
            np.testing.assert_allclose(float(flat_g[k][i]), fd, rtol=1e-3, atol=1e-4)
    batched = vmap(grad(_poly_loss))({"x": np.stack([d32["x"]] * 2), "yz": tuple(np.stack([a] * 2) for a in d32["yz"])})  # fmt: skip
    np.testing.assert_allclose(batched["yz"][1][1], g["yz"][1], rtol=1e-6)


def test_custom_vjp_of_pytrees_with_none_cotangent() -> None:
    @custom_vjp
    def f(d: Any, y: Any) -> Any:
        return {"o": d["a"] * y, "u": (d["b"],)}

    def fwd(d: Any, y: Any) -> Any:
        return f(d, y), (d["a"], y)

    def bwd(res: Any, ct: Any) -> Any:
        _, y = res
        return {"a": ct["o"] * y * 10.0, "b": ct["u"][0]}, None

    f.defvjp(fwd, bwd)
    d = {"a": F(2.0), "b": F(5.0)}
    gd, gy = grad(lambda d, y: f(d, y)["o"] + 2.0 * f(d, y)["u"][0], argnums=(0, 1))(d, F(3.0))
    assert float(gd["a"]) == 30.0 and float(gd["b"]) == 2.0 and float(gy) == 0.0
    out, pullback = vjp(f, d, F(3.0))
    assert float(out["o"]) == 6.0
    (cd, cy) = pullback({"o": F(1.0), "u": (F(0.0),)})
    assert float(cd["a"]) == 30.0 and float(cy) == 0.0
    loop = [
        grad(lambda d, y: f(d, y)["o"])({"a": F(a), "b": F(0.0)}, F(3.0))["a"] for a in range(3)
    ]
    batched = vmap(grad(lambda d, y: f(d, y)["o"]))({"a": np.arange(3, dtype=F), "b": np.zeros(3, F)}, np.full(3, 3.0, F))  # fmt: skip
    np.testing.assert_allclose(batched["a"], np.array(loop), rtol=1e-6)


def test_defjvps_as_in_jax_docs() -> None:
    @custom_jvp
    def f(x: Any, y: Any) -> Any:
        return tnp.sin(x) * y

    f.defjvps(lambda x_dot, out, x, y: tnp.cos(x) * x_dot * y,
              lambda y_dot, out, x, y: tnp.sin(x) * y_dot)  # fmt: skip
    v, (gx, gy) = value_and_grad(f, argnums=(0, 1))(F(1.0), F(2.0))
    np.testing.assert_allclose([float(v), float(gx), float(gy)],
                               [np.sin(1) * 2, np.cos(1) * 2, np.sin(1)], rtol=1e-6)  # fmt: skip

    @custom_jvp
    def g(x: Any, y: Any) -> Any:
        return x * y

    g.defjvps(None, lambda t, out, x, y: 5.0 * t)
    gx, gy = grad(g, argnums=(0, 1))(F(2.0), F(3.0))
    assert float(gx) == 0.0 and float(gy) == 5.0


def test_jvp_and_vjp_use_the_rules() -> None:
    y, t = jvp(log1pexp, (F(100.0),), (F(2.0),))
    assert float(t) == 2.0
    y, t = jvp(log1pexp, (F(0.0),), (F(2.0),))
    assert np.isclose(float(y), np.log(2.0)) and float(t) == 1.0
    _, pullback = vjp(_clip_sin, F(0.0))
    assert float(pullback(F(1.0))[0]) == 0.75
    _, t = jvp(vmap(log1pexp), (np.zeros(3, F),), (np.ones(3, F),))
    np.testing.assert_allclose(t, 0.5)


def test_symbolic_zeros() -> None:
    seen: list[bool] = []

    @custom_jvp
    def f(x: Any, y: Any) -> Any:
        return x * y

    @partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(primals: Any, tangents: Any) -> Any:
        x, y = primals
        tx, ty = tangents
        seen.append(isinstance(ty, SymbolicZero))
        out = x * y
        tout = 0.0 * out if isinstance(tx, SymbolicZero) else tx * y
        if not isinstance(ty, SymbolicZero):
            tout = tout + x * ty
        return out, tout

    assert float(grad(f)(F(2.0), F(3.0))) == 3.0
    assert seen[-1] is True
    assert float(grad(f, argnums=1)(F(2.0), F(3.0))) == 2.0

    @custom_vjp
    def h(x: Any, y: Any) -> Any:
        return x * y

    flags: list[tuple[bool, bool]] = []

    def fwd(x: Any, y: Any) -> Any:
        flags.append((x.perturbed, y.perturbed))
        xv, yv = custom_vjp_primal_tree_values((x, y))
        return h(xv, yv), (xv, yv)

    def bwd(res: Any, g: Any) -> Any:
        return g * res[1], None

    h.defvjp(fwd, bwd, symbolic_zeros=True)
    assert float(grad(h)(F(2.0), F(3.0))) == 3.0
    assert flags[-1] == (True, False)


def test_closed_over_differentiation_is_an_error() -> None:
    def outer(y: Any) -> Any:
        @custom_vjp
        def f(x: Any) -> Any:
            return x * y

        f.defvjp(lambda x: (f(x), None), lambda r, g: (g * 2.0,))
        return f(2.0)

    with pytest.raises(UnexpectedTracerError, match="closed-over value"):
        grad(outer)(3.0)


def test_jit_and_make_jaxpr_of_grad() -> None:
    text = str(make_jaxpr(grad(log1pexp))(F(1.0)))
    assert text.count("custom_jvp_call[") == 1 and "jvp=log1pexp_jvp" in text
    text = str(make_jaxpr(grad(_clip_sin))(F(1.0)))
    assert "custom_vjp_call[" not in text and "name=clip" in text  # fwd and bwd ran
    f = jit(lambda x: log1pexp(x) * 2.0)
    assert float(grad(f)(F(100.0))) == 2.0


@given(st.lists(st.floats(-3, 3), min_size=1, max_size=4))
@settings(max_examples=10, deadline=None)
def test_vmap_of_grad_equals_loop(xs: list[float]) -> None:
    arr = np.array(xs, F)
    for fun in (log1pexp, _clip_sin, lambda x: _clip_sin(log1pexp(x))):
        loop = np.array([float(grad(fun)(v)) for v in arr])
        np.testing.assert_allclose(vmap(grad(fun))(arr), loop, rtol=1e-5, atol=1e-6)
