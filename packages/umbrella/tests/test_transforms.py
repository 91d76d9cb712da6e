"""Nested transformations against finite differences and Python loops."""

from __future__ import annotations

import numpy as np
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st

floats = st.floats(-2.0, 2.0, allow_nan=False, width=32)


def f(x):
    return tnp.sin(x) * x**2 + tnp.exp(0.3 * x)


def f_np(x: np.ndarray) -> np.ndarray:
    return np.sin(x) * x**2 + np.exp(0.3 * x)


def central(fun, x: float, eps: float = 1e-4) -> float:
    return (fun(x + eps) - fun(x - eps)) / (2 * eps)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(floats)
def test_grad_of_grad_matches_finite_differences(x: float) -> None:
    d2 = float(tx.grad(tx.grad(f))(x))
    d1 = lambda v: central(f_np, v)  # noqa: E731
    assert np.isclose(d2, central(d1, float(x), 1e-3), rtol=1e-2, atol=1e-2)


def test_vmap_of_grad_matches_python_loop() -> None:
    xs = np.linspace(-2, 2, 7, dtype=np.float32)
    batched = tx.vmap(tx.grad(f))(xs)
    looped = [float(tx.grad(f)(float(v))) for v in xs]
    np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-6)
    np.testing.assert_allclose(looped, [central(f_np, float(v)) for v in xs], rtol=2e-3, atol=2e-3)


def loss(w, x, y):
    return tnp.sum((tnp.tanh(x @ w) - y) ** 2)


def test_jit_of_vmap_of_grad_equals_loop_and_eager() -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    xs = rng.normal(size=(5, 3)).astype(np.float32)
    ys = rng.normal(size=(5, 2)).astype(np.float32)
    per_ex = tx.vmap(tx.grad(loss), in_axes=(None, 0, 0))
    compiled = np.asarray(tx.jit(per_ex)(w, xs, ys))
    eager = np.asarray(per_ex(w, xs, ys))
    loop = np.stack([np.asarray(tx.grad(loss)(w, xs[i], ys[i])) for i in range(5)])
    np.testing.assert_allclose(compiled, loop, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(eager, loop, rtol=1e-5, atol=1e-6)
    # finite differences of one weight for the first example
    eps = 1e-2
    bump = np.zeros_like(w)
    bump[1, 0] = eps
    fd = (float(loss(w + bump, xs[0], ys[0])) - float(loss(w - bump, xs[0], ys[0]))) / (2 * eps)
    assert np.isclose(compiled[0, 1, 0], fd, rtol=1e-2, atol=1e-3)


def test_jvp_of_vjp_is_hessian_vector_product() -> None:
    x = np.array([0.3, -0.7, 1.1], np.float32)
    v = np.array([1.0, 2.0, -1.0], np.float32)

    def g(x):
        return tnp.sum(tnp.sin(x) * x[::-1])

    def grad_via_vjp(x):
        _, pullback = tx.vjp(g, x)
        return pullback(tnp.ones(()))[0]

    _, hvp = tx.jvp(grad_via_vjp, (x,), (v,))
    dense = np.asarray(tx.hessian(g)(x)) @ v
    np.testing.assert_allclose(np.asarray(hvp), dense, rtol=1e-5, atol=1e-6)
    # the Hessian itself against finite differences of the gradient
    eps = 1e-3
    fd = (np.asarray(tx.grad(g)(x + eps * v)) - np.asarray(tx.grad(g)(x - eps * v))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(hvp), fd, rtol=1e-2, atol=1e-2)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.lists(floats, min_size=1, max_size=6))
def test_jit_matches_eager_and_numpy(values: list[float]) -> None:
    x = np.asarray(values, np.float32)
    eager = np.asarray(f(x))
    compiled = np.asarray(tx.jit(f)(x))
    np.testing.assert_allclose(compiled, eager, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(eager, f_np(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


def test_linearize_jacobians_and_eval_shape() -> None:
    x = np.array([0.5, 1.5], np.float32)
    y, f_lin = tx.linearize(f, x)
    np.testing.assert_allclose(np.asarray(y), f_np(x), rtol=1e-6)
    jf = np.asarray(tx.jacfwd(f)(x))
    jr = np.asarray(tx.jacrev(f)(x))
    np.testing.assert_allclose(jf, jr, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(f_lin(np.ones(2, np.float32))), np.diag(jf), rtol=1e-6)
    out = tx.eval_shape(f, tx.ShapeDtypeStruct((4,), np.float32))
    assert out.shape == (4,) and out.dtype == np.float32


def test_custom_jvp_and_checkpoint_compose_with_grad() -> None:
    @tx.custom_jvp
    def clipped(x):
        return tnp.sin(x)

    @clipped.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return clipped(x), 2.0 * t

    assert float(tx.jit(tx.grad(clipped))(0.3)) == 2.0


def test_checkpoint_composes_with_grad() -> None:
    remat_grad = tx.grad(tx.checkpoint(f))(0.4)
    assert np.isclose(float(remat_grad), float(tx.grad(f)(0.4)), rtol=1e-6)
