"""Derivatives of reduce_precision, optimization_barrier, the general reduce,
custom_linear_solve and custom_root: finite differences, closed forms and
JAX's values and jaxpr text (recorded from JAX 0.10.2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _checks import check_grads
from tessela_autodiff import grad, jvp
from tessela_batching import vmap
from tessela_tracer import lax, make_jaxpr
from tessela_tracer import primitives as P

F = np.float32
DN = (((1,), (0,)), ((), ()))


def test_reduce_precision_is_linear() -> None:
    x = np.array([1.0, 1.00390625, 3.3], F)
    t = np.array([1.005859375, 2.0, 0.1], F)
    f = lambda v: lax.reduce_precision(v, 8, 7)  # noqa: E731
    _, tout = jvp(f, (x,), (t,))
    np.testing.assert_array_equal(np.asarray(tout), np.asarray(f(t)))
    g = grad(lambda v: lax.reduce_sum(lax.mul(f(v), 3.0), (0,)))(x)
    np.testing.assert_array_equal(np.asarray(g), np.full(3, 3.0, F))


def test_optimization_barrier_grad_text_as_jax() -> None:
    f = lambda x: lax.reduce_sum(lax.optimization_barrier(lax.mul(x, 2.0)), (0,))  # noqa: E731
    closed = make_jaxpr(grad(f))(np.ones(3, F))
    assert str(closed) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = mul a 2.0:f32[]\n"
        "    c:f32[3] = optimization_barrier b\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n"
        "    d:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    e:f32[3] = optimization_barrier d\n"
        "    f:f32[3] = mul e 2.0:f32[]\n"
        "  in (f,) }"
    )


@pytest.mark.usefixtures("x64")
def test_optimization_barrier_grad_against_finite_differences() -> None:
    x, y = np.float64(0.3), np.float64(1.2)
    check_grads(lambda a, b: lax.optimization_barrier((lax.sin(a), lax.mul(a, b)))[1], (x, y))


def _sum_sq(x: Any) -> Any:
    return lax.reduce(x, np.float32(0), lambda a, b: lax.add(a, lax.mul(b, b)), (1,))


def test_general_reduce_jvp_matches_jax() -> None:
    x = np.arange(12, dtype=F).reshape(3, 4)
    out, tout = jvp(_sum_sq, (x,), (x,))
    np.testing.assert_array_equal(np.asarray(out), [104.0, 2956.0, 17008.0])
    np.testing.assert_array_equal(np.asarray(tout), [388.0, 11200.0, 65468.0])


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dims", [(0,), (1, 2), (0, 1, 2)])
def test_general_reduce_grad_against_finite_differences(dims: tuple[int, ...]) -> None:
    x = np.random.RandomState(1).uniform(-2, 2, (3, 5, 2))

    def f(x: Any) -> Any:
        # a product-of-(1 + x) reduction: associative, with identity 0
        comp = lambda a, b: lax.add(lax.add(a, b), lax.mul(a, b))  # noqa: E731
        return lax.reduce(x, np.float64(0), comp, dims)

    check_grads(f, (x,))


@pytest.mark.usefixtures("x64")
def test_variadic_reduce_grad_flows_through_the_values() -> None:
    x = np.random.RandomState(2).permutation(12).reshape(3, 4).astype(np.float64)
    idx = np.tile(np.arange(4, dtype=np.int32), (3, 1))

    def comp(a: Any, b: Any) -> Any:
        (av, ai), (bv, bi) = a, b
        p = lax.gt(av, bv)
        return lax.select(p, av, bv), lax.select(p, ai, bi)

    def f(x: Any) -> Any:
        v, _ = lax.reduce((lax.mul(x, x), idx), (np.float64(-np.inf), np.int32(0)), comp, (1,))
        return v

    g = grad(lambda x: lax.reduce_sum(f(x), (0,)))(x)
    want = np.zeros_like(x)
    want[np.arange(3), (x * x).argmax(1)] = 2 * x[np.arange(3), (x * x).argmax(1)]
    np.testing.assert_allclose(np.asarray(g), want)


def test_general_reduce_refuses_init_tangents() -> None:
    f = lambda x, i: lax.reduce(x, i, lambda a, b: lax.add(a, lax.mul(b, b)), (0,))  # noqa: E731
    with pytest.raises(NotImplementedError, match="non-zero tangents for initial values"):
        jvp(f, (np.ones(3, F), F(0)), (np.ones(3, F), F(1)))


# ------------------------------------------------------------------ linear solves


def _neumann(apply: Any, d: Any, r: Any) -> Any:
    # Jacobi iterations: converge for the diagonally dominant matrices below.
    x = lax.div(r, d)
    for _ in range(60):
        x = lax.add(x, lax.div(lax.sub(r, apply(x)), d))
    return x


def _solve(a: Any, b: Any, *, symmetric: bool = False) -> Any:
    d = lax.reduce_sum(lax.mul(a, np.eye(3, dtype=a.dtype)), (1,))
    matvec = lambda v: lax.dot_general(a, v, DN)  # noqa: E731
    solve = lambda mv, r: _neumann(mv, d, r)  # noqa: E731
    if symmetric:
        return lax.custom_linear_solve(matvec, b, solve, symmetric=True)
    return lax.custom_linear_solve(matvec, b, solve, solve)


A = np.array([[4.0, 1.0, 0.5], [0.3, 3.0, 1.0], [0.2, 0.4, 2.0]])
B = np.array([1.0, -2.0, 0.5])


@pytest.mark.usefixtures("x64")
def test_custom_linear_solve_grads_against_closed_forms() -> None:
    x = np.linalg.solve(A, B)
    lam = np.linalg.solve(A.T, np.ones(3))
    loss = lambda a, b: lax.reduce_sum(_solve(a, b), (0,))  # noqa: E731
    ga, gb = grad(loss, argnums=(0, 1))(A, B)
    np.testing.assert_allclose(np.asarray(gb), lam, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(ga), -np.outer(lam, x), rtol=1e-10)
    ta, tb = np.random.RandomState(3).standard_normal((2, 3, 3))
    _, tout = jvp(lambda a, b: _solve(a, b), (A, B), (ta, tb[0]))
    np.testing.assert_allclose(np.asarray(tout), np.linalg.solve(A, tb[0] - ta @ x), rtol=1e-10)
    check_grads(lambda a, b: _solve(a, b), (A, B))


@pytest.mark.usefixtures("x64")
def test_vmap_of_grad_through_custom_linear_solve_matches_a_loop() -> None:
    rng = np.random.default_rng(0)
    a_batch = rng.normal(size=(4, 3, 3)) + 5 * np.eye(3)
    b_batch = rng.normal(size=(4, 3))
    loss = lambda a, b: lax.reduce_sum(_solve(a, b), (0,))  # noqa: E731
    per_example = vmap(grad(loss, argnums=(0, 1)))(a_batch, b_batch)
    ga_all, gb_all = np.asarray(per_example[0]), np.asarray(per_example[1])
    for i in range(4):
        ga, gb = grad(loss, argnums=(0, 1))(a_batch[i], b_batch[i])
        np.testing.assert_allclose(ga_all[i], np.asarray(ga), rtol=1e-9)
        np.testing.assert_allclose(gb_all[i], np.asarray(gb), rtol=1e-9)
        lam = np.linalg.solve(a_batch[i].T, np.ones(3))
        np.testing.assert_allclose(np.asarray(gb), lam, rtol=1e-8)


@pytest.mark.usefixtures("x64")
def test_custom_linear_solve_symmetric() -> None:
    s = (A + A.T) / 2
    g = grad(lambda b: lax.reduce_sum(_solve(s, b, symmetric=True), (0,)))(B)
    np.testing.assert_allclose(np.asarray(g), np.linalg.solve(s, np.ones(3)), rtol=1e-10)


def test_custom_linear_solve_needs_transpose_solve_for_grad() -> None:
    a = A.astype(F)

    def f(b: Any) -> Any:
        return lax.custom_linear_solve(lambda v: lax.dot_general(a, v, DN), b, lambda m, r: r)

    jvp(f, (B.astype(F),), (B.astype(F),))
    with pytest.raises(TypeError, match="transpose_solve required"):
        grad(lambda b: lax.reduce_sum(f(b), (0,)))(B.astype(F))


def test_custom_linear_solve_grad_keeps_the_outer_jaxpr_clean() -> None:
    a = A.astype(F)
    closed = make_jaxpr(grad(lambda b: lax.reduce_sum(_solve(a, b), (0,))))(B.astype(F))
    prims = [e.primitive.name for e in closed.eqns]
    assert prims.count("custom_linear_solve") == 2
    vecmat = closed.eqns[prims.index("custom_linear_solve")].params["jaxprs"].vecmat
    assert [e.primitive.name for e in vecmat.eqns] == ["dot_general"]


def test_custom_root_text_and_grad() -> None:
    def f(x: Any) -> Any:
        return lax.custom_root(lambda y: lax.sub(lax.mul(y, y), x), 1.0,
                               lambda g, y0: y0, lambda g, y: lax.div(y, g(1.0)))  # fmt: skip

    assert str(make_jaxpr(f)(2.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = custom_jvp_call[\n"
        "      name=_custom_root\n"
        "      call_jaxpr={ lambda ; c:f32[] d:f32[] e:f32[]. let  in (e,) }\n"
        "      jvp=_root_jvp\n"
        "      symbolic_zeros=False\n"
        "    ] a a 1.0:f32[]\n"
        "  in (b,) }"
    )

    def sqrt(x: Any) -> Any:
        def newton(f: Any, y0: Any) -> Any:
            return lax.fori_loop(0, 30, lambda i, y: lax.sub(y, lax.div(f(y), lax.mul(2.0, y))), y0)

        return lax.custom_root(lambda y: lax.sub(lax.mul(y, y), x), 1.0, newton,
                               lambda g, y: lax.div(y, g(1.0)))  # fmt: skip

    np.testing.assert_allclose(float(sqrt(2.0)), np.sqrt(2.0), rtol=1e-6)
    np.testing.assert_allclose(float(grad(sqrt)(2.0)), 0.5 / np.sqrt(2.0), rtol=1e-6)
    np.testing.assert_allclose(float(grad(grad(sqrt))(2.0)), -0.25 * 2.0**-1.5, rtol=1e-5)


def test_tokens_have_zero_tangents_and_do_not_block_grad() -> None:
    def f(x: Any) -> Any:
        lax.after_all(lax.create_token(), lax.create_token())
        return lax.mul(x, x)

    assert float(grad(f)(F(3.0))) == 6.0
    (_, _), (t_tok, t_y) = jvp(lambda x: (lax.create_token(), f(x)), (F(2.0),), (F(1.0),))
    assert float(t_y) == 4.0
    assert np.asarray(t_tok).shape == (0,)


def test_copy_is_linear_as_jax() -> None:
    x = np.array([1.0, -2.0, 3.0], F)
    _, tout = jvp(lambda v: P.copy_p.bind(v), (x,), (2 * x,))
    np.testing.assert_array_equal(np.asarray(tout), 2 * x)
    g = grad(lambda v: lax.reduce_sum(lax.mul(P.copy_p.bind(v), v), (0,)))(x)
    np.testing.assert_array_equal(np.asarray(g), 2 * x)
    text = str(make_jaxpr(grad(lambda v: lax.mul(P.copy_p.bind(v), 2.0)))(F(1.0)))
    assert text == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = copy a\n"
        "    _:f32[] = mul b 2.0:f32[]\n"
        "    c:f32[] = mul 1.0:f32[] 2.0:f32[]\n"
        "    d:f32[] = copy c\n"
        "  in (d,) }"
    )
