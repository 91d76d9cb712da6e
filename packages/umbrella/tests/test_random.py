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


def test_samplers_needing_missing_ops_explain_under_jit() -> None:
    with pytest.raises(NotImplementedError, match="concrete key"):
        tx.jit(lambda k: random.multivariate_normal(k, tnp.zeros(2), tnp.eye(2)))(random.key(0))
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
