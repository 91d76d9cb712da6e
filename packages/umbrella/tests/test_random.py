"""tessela.random gives the standalone PRNG's bits eagerly and under transformations."""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela_prng
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela import random

seeds = st.integers(0, 2**31 - 1)


def data(k) -> np.ndarray:
    return np.asarray(tessela_prng.key_data(k))


@settings(max_examples=8, deadline=None, derandomize=True)
@given(seeds)
def test_eager_keys_split_fold_in_bits_equal_standalone(seed: int) -> None:
    k, ref = random.key(seed), tessela_prng.key(seed)
    np.testing.assert_array_equal(data(random.split(k, 3)), data(tessela_prng.split(ref, 3)))
    np.testing.assert_array_equal(data(random.fold_in(k, 7)), data(tessela_prng.fold_in(ref, 7)))
    out = random.bits(k, (5,))
    assert isinstance(out, tx.Array)
    np.testing.assert_array_equal(np.asarray(out), tessela_prng.bits(ref, (5,)))


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seeds)
def test_jit_gives_the_same_bits(seed: int) -> None:
    k, ref = random.key(seed), tessela_prng.key(seed)

    @tx.jit
    def draw(k):
        a, b = random.split(k)
        return random.bits(a, (4,)), random.uniform(b, (3,)), random.randint(b, (6,), 0, 10), a

    bits, unif, ints, a = draw(k)
    ra, rb = tessela_prng.split(ref)
    np.testing.assert_array_equal(np.asarray(bits), tessela_prng.bits(ra, (4,)))
    np.testing.assert_array_equal(np.asarray(unif), tessela_prng.uniform(rb, (3,)))
    np.testing.assert_array_equal(np.asarray(ints), tessela_prng.randint(rb, (6,), 0, 10))
    np.testing.assert_array_equal(data(a), data(ra))
    normal = tx.jit(lambda k: random.normal(k, (64,)))(k)
    np.testing.assert_allclose(np.asarray(normal), tessela_prng.normal(ref, (64,)), rtol=2e-6)


def test_vmap_over_keys_equals_loop() -> None:
    keys = random.split(random.key(3), 5)
    ref_keys = tessela_prng.split(tessela_prng.key(3), 5)
    got = tx.vmap(lambda k: random.bits(k, (2,)))(keys)
    want = np.stack([tessela_prng.bits(k, (2,)) for k in ref_keys])
    np.testing.assert_array_equal(np.asarray(got), want)
    split = tx.vmap(random.split)(keys)
    want_split = np.stack([data(tessela_prng.split(k)) for k in ref_keys])
    np.testing.assert_array_equal(data(split), want_split)


def test_grad_through_reparameterised_samples() -> None:
    k = random.key(11)
    eps = tessela_prng.normal(tessela_prng.key(11), (1000,))

    def objective(mu, k):
        return tnp.mean((mu + random.normal(k, (1000,))) ** 2)

    g = tx.jit(tx.grad(objective))(0.5, k)
    assert np.isclose(float(g), float(np.mean(2 * (0.5 + eps))), rtol=1e-4)


def test_seed_can_be_traced_and_keys_print_like_jax() -> None:
    k = tx.jit(random.key)(5)
    np.testing.assert_array_equal(data(k), data(tessela_prng.key(5)))
    assert str(random.key(43)) == "Array((), dtype=key<fry>) overlaying:\n[ 0 43]"
    raw = random.PRNGKey(43)
    assert isinstance(raw, tx.Array) and raw.tolist() == [0, 43]


def test_eager_permutation_matches_standalone() -> None:
    eager = random.permutation(random.key(0), 6)
    np.testing.assert_array_equal(
        np.asarray(eager), tessela_prng.permutation(tessela_prng.key(0), 6)
    )


def test_permutation_and_choice_under_jit_and_vmap_match_standalone() -> None:
    key, std = random.key(3), tessela_prng.key(3)
    x = np.arange(10, dtype=np.float32)
    np.testing.assert_array_equal(
        np.asarray(tx.jit(lambda k: random.permutation(k, 10))(key)),
        tessela_prng.permutation(std, 10),
    )
    np.testing.assert_array_equal(
        np.asarray(tx.jit(lambda k: random.permutation(k, x))(key)),
        tessela_prng.permutation(std, x),
    )
    for replace in (True, False):
        got = tx.jit(lambda k, r=replace: random.choice(k, x, (4,), replace=r))(key)
        np.testing.assert_array_equal(
            np.asarray(got), tessela_prng.choice(std, x, (4,), replace=replace)
        )
    p = np.linspace(1.0, 2.0, 10, dtype=np.float32)
    p = p / p.sum()
    got = tx.jit(lambda k: random.choice(k, x, (3,), p=p, replace=False))(key)
    np.testing.assert_array_equal(
        np.asarray(got), tessela_prng.choice(std, x, (3,), p=p, replace=False)
    )
    keys = random.split(key, 3)
    batched = tx.vmap(lambda k: random.permutation(k, 10))(keys)
    for i, k in enumerate(tessela_prng.split(std, 3)):
        np.testing.assert_array_equal(np.asarray(batched[i]), tessela_prng.permutation(k, 10))


MEAN = np.array([1.0, -2.0, 0.5], np.float32)
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]], np.float32)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
@pytest.mark.parametrize("shape", [(), (4,)])
def test_multivariate_normal_under_jit_and_vmap_matches_standalone(
    shape: tuple[int, ...], method: str
) -> None:
    key, std = random.key(7), tessela_prng.key(7)
    want = tessela_prng.multivariate_normal(std, MEAN, COV, shape, method=method)
    eager = random.multivariate_normal(key, MEAN, COV, shape, method=method)
    # The normals are the standalone bits; the factor is XLA's (cholesky) or
    # LAPACK's through XLA (eigh, svd), equal to NumPy's to rounding. Eager
    # calls run the same compiled program as jit: equal bit for bit.
    jitted = tx.jit(lambda k: random.multivariate_normal(k, MEAN, COV, shape, method=method))(key)
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(jitted))
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=1e-5, atol=1e-5)
    keys = random.split(key, 3)
    batched = tx.vmap(lambda k: random.multivariate_normal(k, MEAN, COV, shape, method=method))(
        keys
    )
    for i, k in enumerate(tessela_prng.split(std, 3)):
        np.testing.assert_allclose(
            np.asarray(batched[i]),
            tessela_prng.multivariate_normal(k, MEAN, COV, shape, method=method),
            rtol=1e-5, atol=1e-5,
        )  # fmt: skip


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_is_differentiable_in_mean_and_cov(method: str) -> None:
    key = random.key(1)

    def loss(mean, cov):
        return tnp.sum(random.multivariate_normal(key, mean, cov, (8,), method=method))

    g_mean, g_cov = tx.jit(tx.grad(loss, argnums=(0, 1)))(MEAN, COV)
    np.testing.assert_allclose(np.asarray(g_mean), np.full(3, 8.0), rtol=1e-6)
    assert np.isfinite(np.asarray(g_cov)).all()


@pytest.mark.parametrize(("n", "m", "shape"), [(3, None, ()), (4, 2, (2,)), (2, 5, ())])
def test_orthogonal_under_jit_and_vmap_matches_standalone(
    n: int, m: int | None, shape: tuple[int, ...]
) -> None:
    key, std = random.key(5), tessela_prng.key(5)
    want = tessela_prng.orthogonal(std, n, shape, m=m)
    got = np.asarray(tx.jit(lambda k: random.orthogonal(k, n, shape, m=m))(key))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    cols = n if m is None else m
    small = min(n, cols)
    np.testing.assert_allclose(
        np.swapaxes(got, -1, -2) @ got if n >= cols else got @ np.swapaxes(got, -1, -2),
        np.broadcast_to(np.eye(small), (*shape, small, small)), atol=1e-5,
    )  # fmt: skip
    keys = random.split(key, 2)
    batched = tx.vmap(lambda k: random.orthogonal(k, n, shape, m=m))(keys)
    for i, k in enumerate(tessela_prng.split(std, 2)):
        np.testing.assert_allclose(
            np.asarray(batched[i]), tessela_prng.orthogonal(k, n, shape, m=m), atol=1e-5
        )
