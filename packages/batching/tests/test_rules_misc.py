"""vmap of reduce_precision, optimization_barrier, the general reduce and
custom_linear_solve against Python loops, and JAX's vmapped jaxpr text."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import check
from tessela_batching import vmap
from tessela_batching._core import _batching_rules
from tessela_tracer import lax, make_jaxpr
from tessela_tracer import primitives as P

F = np.float32
DN = (((1,), (0,)), ((), ()))
RNG = np.random.default_rng(0)


def test_reduce_precision_batches_elementwise() -> None:
    x = RNG.uniform(-300, 300, (4, 5)).astype(F)
    check(lambda v: lax.reduce_precision(v, 5, 2), 1, x)


def test_optimization_barrier_keeps_batch_axes_as_jax() -> None:
    x = np.ones((2, 3), F)
    closed = make_jaxpr(vmap(lambda v: lax.optimization_barrier(lax.mul(v, 2.0))))(x)
    assert str(closed) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[2,3] = mul a 2.0:f32[]\n"
        "    c:f32[2,3] = optimization_barrier b\n"
        "  in (c,) }"
    )
    y = RNG.normal(size=(3, 4)).astype(F)
    check(lambda a, b: lax.optimization_barrier((lax.sin(a), b)), (1, None), y, y[0])


def _argmax(x: Any, i: Any) -> Any:
    def comp(a: Any, b: Any) -> Any:
        (av, ai), (bv, bi) = a, b
        pick = lax.bitwise_or(lax.gt(av, bv), lax.bitwise_and(lax.eq(av, bv), lax.lt(ai, bi)))
        return lax.select(pick, av, bv), lax.select(pick, ai, bi)

    return lax.reduce((x, i), (F(-np.inf), np.int32(2**31 - 1)), comp, (1,))


@pytest.mark.parametrize("axes", [(0, 0), (2, None), (1, 1)])
def test_variadic_reduce_matches_a_loop(axes: tuple[Any, Any]) -> None:
    x = RNG.integers(-3, 4, (3, 4, 5)).astype(F)
    shape = [3, 4, 5]
    if axes[0] is not None:
        del shape[axes[0]]
    idx = np.indices(shape)[1].astype(np.int32)
    if axes[1] is not None:
        idx = np.stack([idx] * x.shape[axes[0]], axes[1])
    check(_argmax, axes, x, idx)


def test_reduce_with_batched_init_is_refused() -> None:
    f = lambda x, i: lax.reduce(x, i, lambda a, b: lax.add(a, lax.mul(b, b)), (0,))  # noqa: E731
    with pytest.raises(NotImplementedError, match="batched initial values"):
        vmap(f)(np.ones((2, 3), F), np.zeros(2, F))


def _solve(a: Any, b: Any) -> Any:
    d = lax.reduce_sum(lax.mul(a, np.eye(3, dtype=F)), (1,))

    def jacobi(apply: Any, r: Any) -> Any:
        x = lax.div(r, d)
        for _ in range(40):
            x = lax.add(x, lax.div(lax.sub(r, apply(x)), d))
        return x

    # symmetric=True: a transpose solve is built with the autodiff package, which
    # this package's tests do not have; the forward solve is the same either way.
    return lax.custom_linear_solve(lambda v: lax.dot_general(a, v, DN), b, jacobi, symmetric=True)


A = (RNG.normal(size=(4, 3, 3)) + 5 * np.eye(3)).astype(F)
B = RNG.normal(size=(4, 3)).astype(F)


@pytest.mark.parametrize(
    ("axes", "args"), [((0, 0), (A, B)), ((None, 0), (A[0], B)), ((0, None), (A, B[0]))]
)
def test_custom_linear_solve_matches_a_loop(axes: Any, args: Any) -> None:
    check(_solve, axes, *args, rtol=1e-4)


def test_vmap_of_custom_linear_solve_solves_each_system() -> None:
    # vmap of its grad is tested with the autodiff package (test_rules_misc.py).
    out = vmap(_solve)(A, B)
    want = np.stack([np.linalg.solve(A[i].astype(np.float64), B[i]) for i in range(4)])
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-4, atol=1e-5)


def test_tokens_inside_vmap_stay_unbatched() -> None:
    def f(x: Any) -> Any:
        tok = lax.after_all(lax.create_token(), lax.create_token())
        return tok, lax.mul(x, 2.0)

    closed = make_jaxpr(vmap(f, out_axes=(None, 0)))(np.ones(3, F))
    assert str(closed) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:Tok = create_token \n"
        "    c:Tok = create_token \n"
        "    d:Tok = after_all b c\n"
        "    e:f32[3] = mul a 2.0:f32[]\n"
        "  in (d, e) }"
    )


def test_vmap_refuses_batched_tokens() -> None:
    rule = _batching_rules[P.after_all_p]
    with pytest.raises(TypeError, match="vmap cannot batch the tokens of after_all"):
        rule([lax.create_token()], [0])
