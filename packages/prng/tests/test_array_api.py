"""The samplers run unchanged on array-API-strict arrays and give the same bits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_strict as xps
import numpy as np
import pytest
import tessela_prng as tr


def strict_key(seed: int) -> tr.KeyArray:
    return tr.wrap_key_data(xps.asarray(np.asarray(tr.key_data(tr.key(seed)))))


P = np.asarray([0.1, 0.2, 0.3, 0.4], dtype=np.float32)

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "bits32": lambda k, xp: tr.bits(k, (4, 5)),
    "bits8": lambda k, xp: tr.bits(k, (7,), np.uint8),
    "bits16": lambda k, xp: tr.bits(k, (5,), np.uint16),
    "split": lambda k, xp: tr.key_data(tr.split(k, 3)),
    "fold_in": lambda k, xp: tr.key_data(tr.fold_in(k, 12)),
    "uniform": lambda k, xp: tr.uniform(k, (50,), minval=-1.0, maxval=2.0),
    "normal": lambda k, xp: tr.normal(k, (50,)),
    "randint": lambda k, xp: tr.randint(k, (50,), -5, 1000),
    "randint8": lambda k, xp: tr.randint(k, (50,), 0, 100, np.int8),
    "bernoulli": lambda k, xp: tr.bernoulli(k, 0.3, (50,)),
    "categorical": lambda k, xp: tr.categorical(k, xp.asarray(np.log(P)), shape=(20,)),
    "choice": lambda k, xp: tr.choice(k, 10, (4,), replace=False),
    "choice_p": lambda k, xp: tr.choice(k, 4, (6,), p=xp.asarray(P)),
    "choice_p_norep": lambda k, xp: tr.choice(k, 4, (2,), replace=False, p=xp.asarray(P)),
    "permutation": lambda k, xp: tr.permutation(k, 16),
    "gamma": lambda k, xp: tr.gamma(k, xp.asarray(np.float32([0.3, 1.0, 4.0]))),
    "beta": lambda k, xp: tr.beta(k, 2.0, 3.0, (4,)),
    "dirichlet": lambda k, xp: tr.dirichlet(k, xp.asarray(P)),
    "poisson": lambda k, xp: tr.poisson(k, xp.asarray(np.float32([0.5, 4.0, 30.0]))),
    "binomial": lambda k, xp: tr.binomial(k, xp.asarray(np.float32([3.0, 40.0])), 0.4),
    "multinomial": lambda k, xp: tr.multinomial(k, 30.0, xp.asarray(P)),
    "truncated_normal": lambda k, xp: tr.truncated_normal(k, -1.0, 1.5, (10,)),
    "gumbel": lambda k, xp: tr.gumbel(k, (10,)),
    "gumbel_highest": lambda k, xp: tr.gumbel(k, (10,), mode="highest"),
    "exponential": lambda k, xp: tr.exponential(k, (10,)),
    "laplace": lambda k, xp: tr.laplace(k, (10,)),
    "logistic": lambda k, xp: tr.logistic(k, (10,)),
    "cauchy": lambda k, xp: tr.cauchy(k, (10,)),
    "pareto": lambda k, xp: tr.pareto(k, 2.0, (10,)),
    "rayleigh": lambda k, xp: tr.rayleigh(k, 2.0, (10,)),
    "wald": lambda k, xp: tr.wald(k, 1.0, (10,)),
    "triangular": lambda k, xp: tr.triangular(k, 0.0, 0.2, 1.0, (10,)),
    "lognormal": lambda k, xp: tr.lognormal(k, 0.5, (10,)),
    "weibull_min": lambda k, xp: tr.weibull_min(k, 1.0, 2.0, (10,)),
    "maxwell": lambda k, xp: tr.maxwell(k, (10,)),
    "double_sided_maxwell": lambda k, xp: tr.double_sided_maxwell(k, 0.0, 1.0, (10,)),
    "rademacher": lambda k, xp: tr.rademacher(k, (10,)),
    "geometric": lambda k, xp: tr.geometric(k, 0.3, (10,)),
    "chisquare": lambda k, xp: tr.chisquare(k, 3.0, (5,)),
    "f": lambda k, xp: tr.f(k, 3.0, 4.0, (5,)),
    "t": lambda k, xp: tr.t(k, 3.0, (5,)),
    "loggamma": lambda k, xp: tr.loggamma(k, 0.5, (5,)),
    "generalized_normal": lambda k, xp: tr.generalized_normal(k, 1.5, (5,)),
    "ball": lambda k, xp: tr.ball(k, 3, shape=(2,)),
    "multivariate_normal": lambda k, xp: tr.multivariate_normal(
        k, xp.asarray(np.float32([0.0, 1.0])), xp.asarray(np.float32([[2.0, 0.3], [0.3, 1.0]]))
    ),
    "orthogonal": lambda k, xp: tr.orthogonal(k, 3),
}


@pytest.mark.parametrize("scheme", [True, False])
@pytest.mark.parametrize("name", list(CASES))
def test_same_results_on_array_api_strict(name: str, scheme: bool) -> None:
    tr.config.update("jax_threefry_partitionable", scheme)
    fn = CASES[name]
    want = np.asarray(fn(tr.key(7), np))
    got_strict = fn(strict_key(7), xps)
    assert got_strict.__array_namespace__() is xps
    got = np.asarray(got_strict)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def test_raw_strict_keys_are_accepted() -> None:
    raw = xps.asarray(np.asarray(tr.PRNGKey(3)))
    out = tr.split(raw)
    assert out.__array_namespace__() is xps
    np.testing.assert_array_equal(np.asarray(out), np.asarray(tr.split(tr.PRNGKey(3))))
