"""reduce_precision, optimization_barrier, the general reduce and custom_linear_solve,
compiled and eager, against NumPy (JAX's values are in the golden cases)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
import tessela_lowering as tl
from tessela_tracer import lax

F = np.float32


def _lowered(f: Any, *args: Any) -> str:
    return str(tl.jit(f).lower(*args).as_text())


@pytest.mark.parametrize(("e", "m", "narrow"), [(8, 7, ml_dtypes.bfloat16), (5, 10, np.float16)])
def test_reduce_precision_rounds_as_the_narrow_type(e: int, m: int, narrow: Any) -> None:
    rng = np.random.default_rng(0)
    # Normal values of the narrow type, ties included: rounding to nearest even.
    x = rng.uniform(-600, 600, 64).astype(F)
    x[:4] = [1.00390625, 1.005859375, 1.0009765625, 1.00048828125]
    want = x.astype(narrow).astype(F)
    f = lambda v: lax.reduce_precision(v, e, m)  # noqa: E731
    np.testing.assert_array_equal(np.asarray(tl.jit(f)(x)), want)
    np.testing.assert_array_equal(np.asarray(f(x)), want)
    assert "stablehlo.reduce_precision" in _lowered(f, x)
    assert f"format = e{e}m{m}" in _lowered(f, x)


def test_reduce_precision_keeps_specials_and_overflows_to_inf() -> None:
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e6], F)
    out = np.asarray(tl.jit(lambda v: lax.reduce_precision(v, 5, 10))(x))
    assert np.isnan(out[0]) and list(out[1:]) == [np.inf, -np.inf, 0.0, 0.0, np.inf]
    assert np.signbit(out[4])


def test_optimization_barrier_passes_a_pytree_through() -> None:
    x, i = np.arange(3, dtype=F), np.arange(4, dtype=np.int32)

    def f(x: Any, i: Any) -> Any:
        a, d = lax.optimization_barrier((lax.sin(x), {"i": i}))
        return lax.mul(a, 2.0), d["i"]

    for g in (f, tl.jit(f)):
        a, b = g(x, i)
        np.testing.assert_allclose(np.asarray(a), 2 * np.sin(x), rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(b), i)
    assert "stablehlo.optimization_barrier" in _lowered(f, x, i)
    assert lax.optimization_barrier(()) == ()


def _argmax_comp(a: Any, b: Any) -> Any:
    (av, ai), (bv, bi) = a, b
    pick = lax.bitwise_or(lax.gt(av, bv), lax.bitwise_and(lax.eq(av, bv), lax.lt(ai, bi)))
    return lax.select(pick, av, bv), lax.select(pick, ai, bi)


@pytest.mark.parametrize("axis", [0, 1])
def test_variadic_reduce_is_an_argmax(axis: int) -> None:
    rng = np.random.default_rng(axis)
    x = rng.integers(-3, 4, (5, 6)).astype(F)
    idx = np.indices(x.shape)[axis].astype(np.int32)
    init = (np.float32(-np.inf), np.int32(2**31 - 1))

    def f(x: Any, i: Any) -> Any:
        return lax.reduce((x, i), init, _argmax_comp, (axis,))

    for g in (f, tl.jit(f)):
        v, i = g(x, idx)
        np.testing.assert_array_equal(np.asarray(v), x.max(axis))
        np.testing.assert_array_equal(np.asarray(i), x.argmax(axis))
    assert "stablehlo.reduce" in _lowered(f, x, idx)


def test_reduce_with_a_pytree_and_a_closed_over_scalar() -> None:
    x = np.arange(24, dtype=F).reshape(2, 3, 4) / 10
    scale = np.float32(0.5)

    def comp(a: Any, b: Any) -> Any:
        return {"s": lax.add(a["s"], lax.mul(b["s"], scale)), "m": lax.max(a["m"], b["m"])}

    def f(x: Any) -> Any:
        init = {"s": np.float32(0), "m": np.float32(-np.inf)}
        return lax.reduce({"s": x, "m": lax.neg(x)}, init, comp, (0, 2))

    for g in (f, tl.jit(f)):
        out = g(x)
        np.testing.assert_allclose(np.asarray(out["s"]), x.sum((0, 2)) * 0.5, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(out["m"]), (-x).max((0, 2)))


def test_custom_linear_solve_runs_the_solver() -> None:
    a = np.array([[4.0, 1.0], [1.0, 3.0]], F)
    b = np.array([1.0, 2.0], F)
    dn = (((1,), (0,)), ((), ()))
    inv = np.linalg.inv(a).astype(F)

    def f(b: Any) -> Any:
        def solve(matvec: Any, r: Any) -> Any:
            return lax.dot_general(inv, r, dn), lax.reduce_sum(r, (0,))

        return lax.custom_linear_solve(lambda v: lax.dot_general(a, v, dn), b, solve,
                                       has_aux=True)  # fmt: skip

    for g in (f, tl.jit(f)):
        x, aux = g(b)
        np.testing.assert_allclose(np.asarray(x), np.linalg.solve(a, b), rtol=1e-5)
        np.testing.assert_allclose(float(aux), 3.0)
