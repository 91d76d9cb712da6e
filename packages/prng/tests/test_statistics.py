"""Distributional sanity of every sampler, with fixed keys (deterministic)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_prng as tr
from scipy import stats

N = 20_000
ALPHA = 1e-3
K = tr.key(2024)

KS_CASES: dict[str, tuple[Callable[[], Any], Any]] = {
    "uniform": (lambda: tr.uniform(K, (N,), minval=-2.0, maxval=3.0), stats.uniform(-2, 5).cdf),
    "normal": (lambda: tr.normal(K, (N,)), stats.norm.cdf),
    "truncated_normal": (
        lambda: tr.truncated_normal(K, -1.0, 2.0, (N,)),
        stats.truncnorm(-1, 2).cdf,
    ),
    "exponential": (lambda: tr.exponential(K, (N,)), stats.expon.cdf),
    "gumbel": (lambda: tr.gumbel(K, (N,)), stats.gumbel_r.cdf),
    "gumbel_high": (lambda: tr.gumbel(K, (N,), mode="high"), stats.gumbel_r.cdf),
    "laplace": (lambda: tr.laplace(K, (N,)), stats.laplace.cdf),
    "logistic": (lambda: tr.logistic(K, (N,)), stats.logistic.cdf),
    "cauchy": (lambda: tr.cauchy(K, (N,)), stats.cauchy.cdf),
    "pareto": (lambda: tr.pareto(K, 3.0, (N,)), stats.pareto(3.0).cdf),
    "rayleigh": (lambda: tr.rayleigh(K, 2.0, (N,)), stats.rayleigh(scale=2.0).cdf),
    "wald": (lambda: tr.wald(K, 1.5, (N,)), stats.invgauss(1.5).cdf),
    "triangular": (lambda: tr.triangular(K, 0.0, 0.3, 1.0, (N,)), stats.triang(0.3).cdf),
    "lognormal": (lambda: tr.lognormal(K, 0.5, (N,)), stats.lognorm(0.5).cdf),
    "weibull_min": (lambda: tr.weibull_min(K, 2.0, 1.5, (N,)), stats.weibull_min(1.5, scale=2).cdf),
    "maxwell": (lambda: tr.maxwell(K, (N,)), stats.maxwell.cdf),
    "gamma_small": (lambda: tr.gamma(K, 0.4, (N,)), stats.gamma(0.4).cdf),
    "gamma_large": (lambda: tr.gamma(K, 7.5, (N,)), stats.gamma(7.5).cdf),
    "loggamma": (lambda: np.exp(tr.loggamma(K, 2.0, (N,))), stats.gamma(2.0).cdf),
    "beta": (lambda: tr.beta(K, 2.0, 5.0, (N,)), stats.beta(2.0, 5.0).cdf),
    "chisquare": (lambda: tr.chisquare(K, 4.0, (N,)), stats.chi2(4.0).cdf),
    "f": (lambda: tr.f(K, 5.0, 8.0, (N,)), stats.f(5.0, 8.0).cdf),
    "t": (lambda: tr.t(K, 5.0, (N,)), stats.t(5.0).cdf),
    "generalized_normal": (lambda: tr.generalized_normal(K, 1.5, (N,)), stats.gennorm(1.5).cdf),
    "double_sided_maxwell": (
        lambda: np.abs(tr.double_sided_maxwell(K, 0.0, 1.0, (N,))),
        stats.maxwell.cdf,
    ),
}


@pytest.mark.parametrize("name", list(KS_CASES))
def test_kolmogorov_smirnov(name: str) -> None:
    sample, cdf = KS_CASES[name]
    x = np.asarray(sample(), dtype=np.float64)
    assert x.shape == (N,)
    assert stats.kstest(x, cdf).pvalue > ALPHA


def chi_square_p(observed: np.ndarray, probs: np.ndarray) -> float:
    probs = np.asarray(probs, dtype=np.float64)
    expected = probs / probs.sum() * observed.sum()
    return float(stats.chisquare(observed, expected).pvalue)


def counts(x: Any, k: int) -> np.ndarray:
    return np.bincount(np.asarray(x).ravel(), minlength=k)[:k]


def test_randint_chi_square() -> None:
    x = tr.randint(K, (N,), 3, 13)
    assert chi_square_p(counts(x - 3, 10), np.ones(10)) > ALPHA


def test_bernoulli_frequency() -> None:
    x = np.asarray(tr.bernoulli(K, 0.3, (N,)))
    assert stats.binomtest(int(x.sum()), N, 0.3).pvalue > ALPHA


def test_rademacher_frequency() -> None:
    x = np.asarray(tr.rademacher(K, (N,)))
    assert set(np.unique(x).tolist()) == {-1, 1}
    assert stats.binomtest(int((x > 0).sum()), N, 0.5).pvalue > ALPHA


def test_categorical_chi_square() -> None:
    p = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    x = tr.categorical(K, np.log(p), shape=(N,))
    assert chi_square_p(counts(x, 4), p) > ALPHA


def test_choice_with_weights_chi_square() -> None:
    p = np.array([0.5, 0.1, 0.4], dtype=np.float32)
    x = tr.choice(K, 3, (N,), p=p)
    assert chi_square_p(counts(x, 3), p) > ALPHA


def test_choice_without_replacement_is_distinct() -> None:
    x = np.asarray(tr.choice(K, 50, (50,), replace=False))
    assert sorted(x.tolist()) == list(range(50))


@pytest.mark.parametrize("lam", [0.7, 4.0, 35.0])
def test_poisson_chi_square(lam: float) -> None:
    x = np.asarray(tr.poisson(K, lam, (N,)))
    top = int(stats.poisson(lam).ppf(0.999))
    obs = np.append(counts(np.minimum(x, top), top + 1)[:top], (x >= top).sum())
    pmf = stats.poisson(lam).pmf(np.arange(top))
    assert chi_square_p(obs, np.append(pmf, 1 - pmf.sum())) > ALPHA


@pytest.mark.parametrize(("n", "p"), [(8, 0.3), (200, 0.4), (60, 0.9)])
def test_binomial_chi_square(n: int, p: float) -> None:
    x = np.asarray(tr.binomial(K, float(n), p, (N,))).astype(int)
    assert ((x >= 0) & (x <= n)).all()
    lo, hi = (int(v) for v in stats.binom(n, p).ppf([0.001, 0.999]))
    obs = np.array([(x <= lo).sum(), *[(x == v).sum() for v in range(lo + 1, hi)], (x >= hi).sum()])
    cdf = stats.binom(n, p).cdf
    probs = np.array(
        [cdf(lo), *[stats.binom(n, p).pmf(v) for v in range(lo + 1, hi)], 1 - cdf(hi - 1)]
    )
    assert chi_square_p(obs, probs) > ALPHA


def test_geometric_mean() -> None:
    x = np.asarray(tr.geometric(K, 0.25, (N,)))
    assert x.min() >= 1
    assert stats.ttest_1samp(x, 4.0).pvalue > ALPHA


def test_multinomial_counts() -> None:
    p = np.array([0.2, 0.3, 0.5], dtype=np.float32)
    x = np.asarray(tr.multinomial(K, 40.0, p, shape=(2000, 3)))
    assert (x.sum(-1) == 40).all()
    np.testing.assert_allclose(x.mean(0), 40 * p, rtol=0.03)


def test_dirichlet_mean_and_simplex() -> None:
    a = np.array([1.0, 2.0, 5.0], dtype=np.float32)
    x = np.asarray(tr.dirichlet(K, a, (5000,)))
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(x.mean(0), a / a.sum(), atol=0.01)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_covariance(method: str) -> None:
    cov = np.array([[2.0, 0.6], [0.6, 1.0]], dtype=np.float32)
    mean = np.array([1.0, -1.0], dtype=np.float32)
    x = np.asarray(tr.multivariate_normal(K, mean, cov, (N,), method=method))
    np.testing.assert_allclose(x.mean(0), mean, atol=0.05)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.08)


def test_orthogonal_is_orthogonal_and_haar_signs() -> None:
    q = np.asarray(tr.orthogonal(K, 4, (500,)), dtype=np.float64)
    eye = np.broadcast_to(np.eye(4), q.shape)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), eye, atol=1e-5)
    # Haar measure: each entry has mean zero.
    assert np.abs(q.mean(0)).max() < 0.1
    wide = np.asarray(tr.orthogonal(K, 2, (), np.float32, 5))
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)


def test_ball_radius_distribution() -> None:
    d = 3
    x = np.asarray(tr.ball(K, d, 2, (N,)), dtype=np.float64)
    r = np.linalg.norm(x, axis=-1)
    assert (r <= 1 + 1e-6).all()
    assert stats.kstest(r**d, stats.uniform.cdf).pvalue > ALPHA


def test_permutation_positions_are_uniform() -> None:
    keys = tr.split(K, 2000)
    first = [int(tr.permutation(k, 5)[0]) for k in keys]
    assert chi_square_p(np.bincount(first, minlength=5), np.ones(5)) > ALPHA


def test_split_keys_are_independent_streams() -> None:
    a, b = tr.split(K)
    x, y = np.asarray(tr.normal(a, (N,))), np.asarray(tr.normal(b, (N,)))
    assert abs(stats.pearsonr(x, y).statistic) < 0.03
