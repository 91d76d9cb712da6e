"""interval(f) encloses f, and composes with jit, grad and vmap in every order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela.errors import TracerBoolConversionError, UnexpectedTracerError
from tessela_interval import Interval, IntervalError, IntervalTracer, interval
from tessela_tracer import lax


def f(x: Any) -> Any:
    return tnp.sin(x) * x - tnp.exp(x) / (1.0 + x**2) + tnp.tanh(2.0 * x)


def f_np(x: np.ndarray) -> np.ndarray:
    return np.sin(x) * x - np.exp(x) / (1.0 + x**2) + np.tanh(2.0 * x)


def df_np(x: np.ndarray) -> np.ndarray:
    q = 1.0 + x**2
    return (
        np.cos(x) * x + np.sin(x) - np.exp(x) * (q - 2 * x) / q**2 + 2 * (1 - np.tanh(2 * x) ** 2)
    )


def bounds(iv: Interval) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(iv.lo, np.float64), np.asarray(iv.hi, np.float64)


def assert_encloses(iv: Interval, values: np.ndarray, tol: float = 1e-4) -> None:
    lo, hi = bounds(iv)
    slack = tol * (1.0 + np.abs(values))
    assert np.all(lo <= values + slack), (lo, values.min())
    assert np.all(values - slack <= hi), (hi, values.max())


def f32(v: float) -> np.float32:
    return np.float32(v)


LO = np.array([-2.0, -0.5, 0.1, 1.0, 2.5], np.float32)
HI = LO + np.array([0.5, 1.0, 0.05, 2.0, 0.3], np.float32)


# ----------------------------------------------------------------- enclosure


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.floats(-3.0, 3.0, width=32), st.floats(0.0, 2.0, width=32))
def test_bounds_enclose_every_value(lo: float, width: float) -> None:
    hi = lo + width
    out = interval(f)(Interval(f32(lo), f32(hi)))
    assert_encloses(out, f_np(np.linspace(lo, hi, 201)))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.floats(-3.0, 3.0, width=32), st.floats(0.0, 2.0, width=32), st.floats(0.0, 1.0))
def test_a_narrower_input_gives_narrower_bounds(lo: float, width: float, t: float) -> None:
    hi = lo + width
    inner = interval(f)(Interval(f32(lo + t * width / 2), f32(hi - t * width / 2)))
    outer = interval(f)(Interval(f32(lo), f32(hi)))
    (ilo, ihi), (olo, ohi) = bounds(inner), bounds(outer)
    assert olo <= ilo + 1e-5 and ihi <= ohi + 1e-5


def test_a_point_interval_is_the_value() -> None:
    out = interval(f)(Interval(f32(0.7), f32(0.7)))
    lo, hi = bounds(out)
    np.testing.assert_allclose([lo, hi], [f_np(0.7)] * 2, rtol=1e-5)


def test_sin_and_square_are_tight() -> None:
    out = interval(lambda x: (tnp.sin(x), x**2, x * x))(Interval(f32(-1.0), f32(2.0)))
    assert bounds(out[0]) == (pytest.approx(np.sin(-1.0)), 1.0)
    assert bounds(out[1]) == (0.0, 4.0)
    assert bounds(out[2]) == (-2.0, 4.0)  # x * x does not know both factors are one x


def test_matrix_product_encloses_samples() -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 4)).astype(np.float32)
    x = rng.normal(size=4).astype(np.float32)
    eps = np.float32(0.05)
    out = interval(lambda w, x: tnp.tanh(w @ x))(Interval(w - eps, w + eps), x)
    for _ in range(50):
        ws = w + rng.uniform(-eps, eps, size=w.shape)
        assert_encloses(out, np.tanh(ws.astype(np.float64) @ x), tol=1e-5)


def test_division_by_an_interval_containing_zero_is_unbounded() -> None:
    out = interval(lambda x: 1.0 / x)(Interval(f32(-1.0), f32(2.0)))
    assert bounds(out) == (-np.inf, np.inf)
    out = interval(lambda x: 1.0 / x)(Interval(f32(0.5), f32(2.0)))
    assert bounds(out) == (0.5, 2.0)


def test_cond_and_where_take_the_hull_of_possible_branches() -> None:
    def g(x: Any) -> Any:
        return lax.cond(x > 0, lambda y: y + 10.0, lambda y: y - 10.0, x)

    assert bounds(interval(g)(Interval(f32(1.0), f32(2.0)))) == (11.0, 12.0)
    assert bounds(interval(g)(Interval(f32(-1.0), f32(2.0)))) == (-11.0, 12.0)
    # where does not know that x > 0 on the branch that returns x: the hull.
    relu = interval(lambda x: tnp.where(x > 0, x, 0.0))
    assert bounds(relu(Interval(f32(-1.0), f32(2.0)))) == (-1.0, 2.0)
    assert bounds(relu(Interval(f32(-3.0), f32(-1.0)))) == (0.0, 0.0)
    assert bounds(interval(lambda x: tnp.maximum(x, 0.0))(Interval(f32(-1.0), f32(2.0)))) == (
        0.0,
        2.0,
    )


# ----------------------------------------------------------------- jit


def test_interval_of_jit_stays_staged_and_matches() -> None:
    iv = Interval(LO, HI)
    want = bounds(interval(f)(iv))
    np.testing.assert_allclose(bounds(interval(tx.jit(f))(iv)), want, rtol=1e-6)
    names = [e.primitive.name for e in tx.make_jaxpr(interval(tx.jit(f)))(iv).eqns]
    assert names == ["jit"]


def test_jit_of_interval_matches() -> None:
    iv = Interval(LO, HI)
    np.testing.assert_allclose(bounds(tx.jit(interval(f))(iv)), bounds(interval(f)(iv)), rtol=1e-6)


# ----------------------------------------------------------------- grad and vmap


def _per_element(g: Callable[[Interval], Interval]) -> tuple[np.ndarray, np.ndarray]:
    outs = [bounds(g(Interval(lo, hi))) for lo, hi in zip(LO, HI, strict=True)]
    return np.array([o[0] for o in outs]), np.array([o[1] for o in outs])


DF = tx.grad(f)

# Every order of interval, jit, grad (inside) and vmap on a batch of intervals.
DERIVATIVE_BOUNDS: dict[str, Callable[[Interval], Any]] = {
    "vmap(interval(grad))": tx.vmap(interval(DF)),
    "interval(vmap(grad))": interval(tx.vmap(DF)),
    "jit(vmap(interval(grad)))": tx.jit(tx.vmap(interval(DF))),
    "vmap(jit(interval(grad)))": tx.vmap(tx.jit(interval(DF))),
    "interval(jit(vmap(grad)))": interval(tx.jit(tx.vmap(DF))),
    "vmap(interval(jit(grad)))": tx.vmap(interval(tx.jit(DF))),
    "interval(vmap(jit(grad)))": interval(tx.vmap(tx.jit(DF))),
}


@pytest.mark.parametrize("name", list(DERIVATIVE_BOUNDS))
def test_derivative_bounds_in_every_order(name: str) -> None:
    want = _per_element(interval(DF))
    got = bounds(DERIVATIVE_BOUNDS[name](Interval(LO, HI)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_derivative_bounds_enclose_the_derivative() -> None:
    lo, hi = _per_element(interval(DF))
    for i in range(len(LO)):
        xs = np.linspace(LO[i], HI[i], 101, dtype=np.float64)
        assert_encloses(Interval(lo[i], hi[i]), df_np(xs))
        assert_encloses(Interval(lo[i], hi[i]), np.asarray(tx.vmap(DF)(xs.astype(np.float32))))


RADIUS = np.float32(0.1)


def upper(c: Any) -> Any:
    return interval(f)(Interval(c - RADIUS, c + RADIUS)).hi


def upper_of_jit(c: Any) -> Any:
    return interval(tx.jit(f))(Interval(c - RADIUS, c + RADIUS)).hi


CENTERS = np.array([-1.3, 0.35, 1.2], np.float32)

# Every order of grad (outside), jit and vmap around a bound.
BOUND_SLOPES: dict[str, Callable[[Any], Any]] = {
    "vmap(grad(interval))": tx.vmap(tx.grad(upper)),
    "jit(vmap(grad(interval)))": tx.jit(tx.vmap(tx.grad(upper))),
    "vmap(jit(grad(interval)))": tx.vmap(tx.jit(tx.grad(upper))),
    "vmap(grad(jit(interval)))": tx.vmap(tx.grad(tx.jit(upper))),
    "vmap(grad(interval(jit)))": tx.vmap(tx.grad(upper_of_jit)),
    "grad(sum(vmap(interval)))": tx.grad(lambda cs: tnp.sum(tx.vmap(upper)(cs))),
}


@pytest.mark.parametrize("name", list(BOUND_SLOPES))
def test_slope_of_a_bound_in_every_order_matches_finite_differences(name: str) -> None:
    got = np.asarray(BOUND_SLOPES[name](CENTERS))
    c64 = CENTERS.astype(np.float64)
    h = 1e-3
    fd = [
        (float(upper(np.float32(c + h))) - float(upper(np.float32(c - h)))) / (2 * h) for c in c64
    ]
    np.testing.assert_allclose(got, fd, rtol=2e-2, atol=2e-2)


def test_grad_of_bound_composes_with_interval_of_grad() -> None:
    # d/dc of the upper bound of f' on [c - r, c + r]: grad outside, grad inside.
    def upper_slope(c: Any) -> Any:
        return interval(DF)(Interval(c - RADIUS, c + RADIUS)).hi

    got = float(tx.grad(upper_slope)(np.float32(0.35)))
    h = 1e-3
    fd = (float(upper_slope(np.float32(0.35 + h))) - float(upper_slope(np.float32(0.35 - h)))) / (
        2 * h
    )
    assert got == pytest.approx(fd, rel=2e-2, abs=2e-2)


# ----------------------------------------------------------------- errors and naming


def branchy(x: Any) -> Any:
    if x > 0:
        return x
    return -x


def test_python_control_flow_works_when_the_bounds_decide() -> None:
    assert bounds(interval(branchy)(Interval(f32(1.0), f32(2.0)))) == (1.0, 2.0)
    assert bounds(interval(branchy)(Interval(f32(-2.0), f32(-1.0)))) == (1.0, 2.0)


def test_undecided_control_flow_names_the_function_and_transformation() -> None:
    with pytest.raises(TracerBoolConversionError) as info:
        interval(branchy)(Interval(f32(-1.0), f32(2.0)))
    msg = str(info.value)
    assert "tracing the function branchy at" in msg and "for interval" in msg
    assert "lax.cond" in msg


def test_tracers_print_their_transformation() -> None:
    seen: list[str] = []

    def look(x: Any) -> Any:
        assert isinstance(x, IntervalTracer)
        seen.append(repr(x))
        return x

    interval(look)(Interval(LO, HI))
    assert seen == ["IntervalTracer<float32[5]>"]


def test_escaped_tracer_names_the_function() -> None:
    box: list[Any] = []

    def leak(x: Any) -> Any:
        box.append(x)
        return x

    interval(leak)(Interval(f32(0.0), f32(1.0)))
    with pytest.raises(UnexpectedTracerError, match=r"leak at .* traced for interval"):
        tx.jit(lambda y: y + box[0])(1.0)


def test_unsupported_primitive_names_the_fix() -> None:
    def loop(x: Any) -> Any:
        return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)

    with pytest.raises(NotImplementedError, match="register_interval_rule"):
        interval(loop)(Interval(f32(1.0), f32(2.0)))


def test_an_interval_index_is_refused() -> None:
    def pick(i: Any) -> Any:
        return lax.dynamic_slice(np.arange(5, dtype=np.float32), (i,), (1,))

    with pytest.raises(IntervalError, match="dynamic_slice"):
        interval(pick)(Interval(np.int32(0), np.int32(2)))
    assert bounds(interval(pick)(np.int32(2))) == (2.0, 2.0)


def test_discovered_through_entry_point() -> None:
    assert tx.plugins()["interval"] == "tessela_interval"
