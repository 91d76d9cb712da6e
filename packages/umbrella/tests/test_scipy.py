"""tessela.scipy and tessela.ops eagerly, against SciPy/NumPy, and under jit, vmap and grad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as sst
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela import ops
from tessela.scipy import special, stats

FLOATS = st.floats(-30, 30, width=32, allow_nan=False, allow_subnormal=False)
SETTINGS = settings(max_examples=10, deadline=None)


def test_special_matches_scipy_eagerly() -> None:
    x = np.linspace(0.1, 8.0, 9, dtype=np.float32)
    u = np.linspace(0.02, 0.98, 9, dtype=np.float32)
    pairs = [
        (special.gammaln(x), sps.gammaln(x)), (special.digamma(x), sps.digamma(x)),
        (special.erf(x - 4), sps.erf(x - 4)), (special.erfinv(2 * u - 1), sps.erfinv(2 * u - 1)),
        (special.ndtri(u), sps.ndtri(u)), (special.log_ndtr(x - 6), sps.log_ndtr(x - 6)),
        (special.xlogy(x, u), sps.xlogy(x, u)), (special.betaln(x, 2 * x), sps.betaln(x, 2 * x)),
        (special.entr(u), sps.entr(u)), (special.kl_div(u, u[::-1]), sps.kl_div(u, u[::-1])),
        (special.multigammaln(x + 2, 2), sps.multigammaln(x + 2, 2)),
        (special.polygamma(2, x), sps.polygamma(2, x)), (special.zeta(x + 1.5, 2.0), sps.zeta(x + 1.5, 2.0)),
    ]  # fmt: skip
    for got, want in pairs:
        np.testing.assert_allclose(np.asarray(got), want, rtol=3e-5, atol=1e-6)


def test_stats_match_scipy_eagerly() -> None:
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    np.testing.assert_allclose(
        stats.norm.logsf(x, 1.0, 2.0), sst.norm.logsf(x, 1.0, 2.0), rtol=1e-5
    )
    np.testing.assert_allclose(stats.t.pdf(x, 3.0), sst.t.pdf(x, 3.0), rtol=1e-5)
    np.testing.assert_allclose(
        stats.poisson.pmf(np.arange(5.0), 2.0), sst.poisson.pmf(np.arange(5), 2.0), rtol=1e-5
    )
    cov = np.array([[2.0, 0.3], [0.3, 1.0]], np.float32)
    got = stats.multivariate_normal.logpdf(np.stack([x, x[::-1]], -1), np.zeros(2, np.float32), cov)
    want = sst.multivariate_normal.logpdf(np.stack([x, x[::-1]], -1), np.zeros(2), cov)
    np.testing.assert_allclose(got, want, rtol=1e-5)  # fmt: skip


@SETTINGS
@given(hnp.arrays(np.float32, (3, 4), elements=FLOATS), st.sampled_from([None, 0, 1, (0, 1)]))
def test_logsumexp_matches_float64(a: np.ndarray, axis: int | tuple[int, int] | None) -> None:
    want = np.log(np.sum(np.exp(a.astype(np.float64)), axis=axis))
    np.testing.assert_allclose(special.logsumexp(a, axis=axis), want, rtol=2e-6, atol=2e-6)


@SETTINGS
@given(hnp.arrays(np.float32, 6, elements=st.floats(-5, 3, width=32, allow_subnormal=False)))
def test_ndtri_inverts_ndtr(x: np.ndarray) -> None:
    np.testing.assert_allclose(special.ndtri(special.ndtr(x)), x, rtol=1e-3, atol=2e-3)


@SETTINGS
@given(hnp.arrays(np.float32, 8, elements=FLOATS))
def test_cdfs_are_monotone(x: np.ndarray) -> None:
    x = np.sort(x)
    for cdf in [stats.norm.cdf, stats.logistic.cdf, stats.cauchy.cdf, stats.laplace.cdf]:
        assert np.all(np.diff(np.asarray(cdf(x, 0.5, 2.0))) >= 0)
    assert np.all(np.diff(np.asarray(special.log_ndtr(x))) >= 0)


@SETTINGS
@given(
    hnp.arrays(np.float32, (9, 2), elements=st.floats(-10, 10, width=32, allow_subnormal=False)),
    hnp.arrays(np.int32, 9, elements=st.integers(-1, 5)),
)
def test_segment_sum_and_max_match_a_numpy_loop(data: np.ndarray, ids: np.ndarray) -> None:
    want_sum = np.zeros((5, 2), np.float64)
    want_max = np.full((5, 2), -np.inf, np.float32)
    for row, seg in zip(data, ids, strict=True):
        if 0 <= seg < 5:
            want_sum[seg] += row
            want_max[seg] = np.maximum(want_max[seg], row)
    np.testing.assert_allclose(ops.segment_sum(data, ids, 5), want_sum, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(ops.segment_max(data, ids, 5), want_max)


def _central(f: Callable[[Any], Any], x: float, h: float = 1e-2) -> float:
    return (float(f(np.float32(x + h))) - float(f(np.float32(x - h)))) / (2 * h)


@pytest.mark.parametrize(
    ("name", "fn", "x"),
    [
        ("log_ndtr", special.log_ndtr, -3.0), ("logit", special.logit, 0.3),
        ("entr", special.entr, 0.4), ("norm.logcdf", lambda v: stats.norm.logcdf(v, 1.0, 2.0), 0.5),
        ("betaln", lambda v: special.betaln(v, 3.0), 2.5),
    ],
)  # fmt: skip
def test_grads_match_central_differences(name: str, fn: Callable[[Any], Any], x: float) -> None:
    got = float(tx.grad(fn)(np.float32(x)))
    np.testing.assert_allclose(got, _central(fn, x), rtol=2e-3, err_msg=name)


def test_jit_and_vmap_agree_with_eager() -> None:
    x = np.linspace(-4, 4, 6, dtype=np.float32)
    for fn in [special.log_ndtr, special.ndtr, lambda v: stats.norm.logpdf(v, 0.5, 2.0),
               lambda v: special.logsumexp(tnp.stack([v, 2 * v]), axis=0)]:  # fmt: skip
        eager = np.asarray(fn(x))
        np.testing.assert_allclose(tx.jit(fn)(x), eager, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(tx.vmap(fn)(x), eager, rtol=1e-6, atol=1e-7)
    seg = tx.jit(ops.segment_sum, static_argnums=2)(
        np.ones(4, np.float32), np.array([0, 1, 1, 2]), 3
    )
    assert seg.tolist() == [1.0, 2.0, 1.0]


def test_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="integer type"):
        special.polygamma(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="q != None"):
        special.zeta(2.0)
    with pytest.raises(TypeError, match="float32 or float64"):
        special.ndtr(np.arange(3))
    with pytest.raises(ValueError, match="series_order"):
        special.log_ndtr(1.0, series_order=31)
    with pytest.raises(ValueError, match="incompatible shapes"):
        stats.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(3))
    with pytest.raises(ValueError, match="non-negative"):
        ops.segment_sum(np.ones(2), np.zeros(2, np.int32), -1)
    with pytest.raises(TypeError, match="num_segments"):
        tx.jit(lambda ids: ops.segment_sum(np.ones(2), ids))(np.zeros(2, np.int32))
