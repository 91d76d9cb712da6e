"""polygamma and zeta compiled through CHLO: values against SciPy, jit against eager."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.special as sp
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import lax

# Relative tolerance against SciPy (float64 reference) per dtype; the float32
# bound covers digamma's root, where the absolute error is a few float32 ulps.
RTOL = {np.float32: 2e-5, np.float64: 1e-12}
ATOL = {np.float32: 1e-6, np.float64: 1e-13}


def _orders(rng: np.random.Generator, n: int, dtype: Any) -> np.ndarray:
    return rng.integers(0, 5, n).astype(dtype)


def test_polygamma_matches_scipy(dtype: Any) -> None:
    rng = np.random.default_rng(0)
    m, x = _orders(rng, 200, dtype), rng.uniform(0.05, 20.0, 200).astype(dtype)
    got = np.asarray(lax.polygamma(m, x))
    assert got.dtype == dtype
    want = sp.polygamma(m.astype(np.int64), x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=ATOL[dtype])


def test_zeta_matches_scipy(dtype: Any) -> None:
    rng = np.random.default_rng(1)
    x, q = rng.uniform(1.05, 10.0, 200).astype(dtype), rng.uniform(0.05, 20.0, 200).astype(dtype)
    got = np.asarray(lax.zeta(x, q))
    assert got.dtype == dtype
    want = sp.zeta(x.astype(np.float64), q.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=ATOL[dtype])


def test_edge_values() -> None:
    f = np.float32
    # polygamma: a non-integral or negative order is NaN; zeta: a pole at x = 1, NaN below.
    got = np.asarray(lax.polygamma(f([0.0, 1.5, -1.0]), f([1.0, 2.0, 2.0])))
    np.testing.assert_allclose(got[0], -np.euler_gamma, rtol=1e-6)
    assert np.isnan(got[1:]).all()
    got = np.asarray(lax.zeta(f([1.0, 0.5, 2.0]), f([1.0, 1.0, 1.0])))
    assert got[0] == np.inf and np.isnan(got[1])
    np.testing.assert_allclose(got[2], np.pi**2 / 6, rtol=1e-6)


def test_weak_scalars_stay_weak() -> None:
    out = lax.polygamma(1.0, 2.0)
    assert out.weak_type and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), np.pi**2 / 6 - 1, rtol=1e-6)


_SHAPES = hnp.array_shapes(min_dims=0, max_dims=2, max_side=4)


def _arrays(shape: tuple[int, ...], lo: float, hi: float) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(
        np.float32, shape, elements=st.floats(lo, hi, width=32, allow_subnormal=False)
    )


@pytest.mark.parametrize(
    ("fn", "lo", "hi"),
    [
        (lambda a, b: lax.polygamma(lax.floor(a), b), (0.0, 4.875), (-3.0, 8.0)),
        (lax.zeta, (0.5, 8.0), (-2.0, 8.0)),
    ],
    ids=["polygamma", "zeta"],
)
@given(data=st.data())
def test_jit_equals_eager(
    fn: Callable[[Any, Any], Any],
    lo: tuple[float, float],
    hi: tuple[float, float],
    data: st.DataObject,
) -> None:
    shape = data.draw(_SHAPES)
    a, b = data.draw(_arrays(shape, *lo)), data.draw(_arrays(shape, *hi))
    eager, jitted = np.asarray(fn(a, b)), np.asarray(tl.jit(fn)(a, b))
    np.testing.assert_allclose(jitted, eager, rtol=1e-6, equal_nan=True)
