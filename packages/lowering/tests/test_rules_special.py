"""The incomplete gamma and beta functions and the scaled Bessel functions, compiled.

Values against SciPy (float32 and float64), jit against eager, half precision
computed in float32, and the edge values of JAX's kernels.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sp
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import lax

RTOL = {np.float32: 5e-5, np.float64: 1e-11}


def _ax(dtype: Any, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.uniform(0.05, 30.0, n).astype(dtype), rng.uniform(0.0, 40.0, n).astype(dtype)


@pytest.mark.parametrize(("op", "ref"), [(lax.igamma, sp.gammainc), (lax.igammac, sp.gammaincc)])
def test_incomplete_gamma_matches_scipy(dtype: Any, op: Any, ref: Any) -> None:
    a, x = _ax(dtype)
    got = np.asarray(op(a, x))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref(a, x), rtol=RTOL[dtype], atol=RTOL[dtype] * 1e-2)


@pytest.mark.usefixtures("x64")
def test_igamma_grad_a_matches_a_central_difference() -> None:
    a, x = _ax(np.float64, 32)
    h = 1e-6
    want = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(a, x)), want, rtol=1e-6, atol=1e-9)


def test_betainc_matches_scipy(dtype: Any) -> None:
    rng = np.random.default_rng(4)
    a, b = rng.uniform(0.1, 20, (2, 64)).astype(dtype)
    x = rng.uniform(0, 1, 64).astype(dtype)
    got = np.asarray(lax.betainc(a, b, x))
    np.testing.assert_allclose(got, sp.betainc(a, b, x), rtol=RTOL[dtype] * 4, atol=1e-6)


@pytest.mark.parametrize(("op", "ref"), [(lax.bessel_i0e, sp.i0e), (lax.bessel_i1e, sp.i1e)])
def test_bessel_matches_scipy(dtype: Any, op: Any, ref: Any) -> None:
    x = np.linspace(-60, 60, 241).astype(dtype)
    np.testing.assert_allclose(np.asarray(op(x)), ref(x), rtol=RTOL[dtype] * 2, atol=1e-7)


def test_edge_values() -> None:
    nan, inf = np.nan, np.inf
    a = np.array([0.0, -1.0, 2.0, 2.0, 1.0, nan], np.float32)
    x = np.array([0.0, 1.0, 0.0, inf, -1.0, 1.0], np.float32)
    np.testing.assert_array_equal(np.asarray(lax.igamma(a, x)), [nan, nan, 0, 1, nan, nan])
    np.testing.assert_array_equal(np.asarray(lax.igammac(a, x)), [nan, nan, 1, 0, nan, nan])
    b = np.array([0.0, 2.0, 2.0, 1.0, 1.0], np.float32)
    xs = np.array([0.5, 0.0, 1.0, 1.5, 0.5], np.float32)
    one = np.float32(1)
    np.testing.assert_array_equal(
        np.asarray(lax.betainc(np.array([0, 1, 1, 1, 0], np.float32), b, xs)),
        [nan, 0, 1, nan, 1],
    )
    assert float(lax.betainc(one, one, np.float32(0.25))) == pytest.approx(0.25)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_is_computed_in_float32(dt: str) -> None:
    dtype = np.dtype(ml_dtypes.bfloat16) if dt == "bfloat16" else np.dtype(dt)
    a, x = np.array([0.5, 2.0, 7.0], dtype), np.array([0.25, 3.0, 5.0], dtype)
    got = lax.igamma(a, x)
    assert np.asarray(got).dtype == dtype
    want = sp.gammainc(a.astype(np.float32), x.astype(np.float32)).astype(dtype)
    np.testing.assert_array_equal(np.asarray(got), want)


@given(st.lists(st.floats(0.125, 25.0, width=32), min_size=2, max_size=6))
@settings(max_examples=10, deadline=None, derandomize=True)
def test_jit_equals_eager(values: list[float]) -> None:
    a = np.array(values, np.float32)
    x = a[::-1].copy()
    f = lambda a, x: lax.add(lax.igammac(a, x), lax.bessel_i0e(x))  # noqa: E731
    np.testing.assert_array_equal(np.asarray(tl.jit(f)(a, x)), np.asarray(f(a, x)))
