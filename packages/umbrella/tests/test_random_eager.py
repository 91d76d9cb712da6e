"""Eager samplers run their compiled program: the bits of the same call under jit."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela_prng
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela import random

# (sampler, positional arguments after the key, keyword arguments); values the
# strategy below may turn into NumPy scalars, 0-d arrays or keywords.
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("normal", ((3,),), {}),
    ("uniform", ((2, 2),), {"minval": -1.5, "maxval": 2.0}),
    ("randint", ((5,), 0, 10), {}),
    ("bits", ((4,),), {}),
    ("bernoulli", (0.3, (6,)), {}),
    ("choice", (10, (3,)), {"replace": False}),
    ("permutation", (7,), {}),
    ("gamma", (2.0, (3,)), {}),
    ("exponential", ((3,),), {}),
    ("truncated_normal", (-1.0, 2.0, (4,)), {}),
    ("categorical", (np.log(np.array([0.2, 0.3, 0.5], np.float32)),), {"shape": (5,)}),
    ("ball", (3,), {"p": 1.5}),
    ("generalized_normal", (1.5, (3,)), {}),
    ("poisson", (3.0, (4,)), {}),
    ("split", (3,), {}),
    ("fold_in", (12345,), {}),
    ("gumbel", ((20,), np.float32, "highest"), {}),
]
# Samplers whose values come from the bits by exact arithmetic: the NumPy
# implementation gives the same bits.
EXACT = {"uniform", "randint", "bits", "bernoulli", "choice", "permutation", "split", "fold_in"}


def _data(x: Any) -> np.ndarray:
    return np.asarray(
        random.key_data(x) if tx.dtypes.issubdtype(x.dtype, tx.dtypes.prng_key) else x
    )


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    st.sampled_from(range(len(CALLS))),
    st.integers(0, 2**31 - 1),
    st.booleans(),
    st.sampled_from(["python", "numpy", "keyword"]),
)
def test_eager_equals_jit_bit_for_bit(case: int, seed: int, raw: bool, form: str) -> None:
    name, args, kwargs = CALLS[case]
    fn = getattr(random, name)
    key = random.PRNGKey(seed) if raw else random.key(seed)
    if form == "numpy":  # NumPy scalars where Python numbers were
        args = tuple(np.float32(a) if type(a) is float else a for a in args)
    elif form == "keyword":
        kwargs = {**kwargs, "key": key}
    call_args = args if form == "keyword" else (key, *args)
    if form == "keyword":
        with pytest.raises(TypeError):  # the key is positional-only, as in JAX
            fn(*call_args, **kwargs)
        return
    eager = fn(*call_args, **kwargs)
    jitted = tx.jit(lambda k: fn(k, *args, **kwargs))(key)
    assert isinstance(eager, tx.Array)
    assert eager.dtype == jitted.dtype and eager.shape == jitted.shape
    assert eager.weak_type == jitted.weak_type
    floats = [a for a in (*args, *kwargs.values()) if isinstance(a, (float, np.floating))]
    if floats and name not in EXACT:
        # Eager calls take these numbers as arguments; the jitted lambda folds
        # them in as constants, which XLA may round otherwise.
        np.testing.assert_allclose(_data(eager), _data(jitted), rtol=2e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(_data(eager), _data(jitted))
    if name in EXACT:
        std_key = tessela_prng.PRNGKey(seed) if raw else tessela_prng.key(seed)
        want = getattr(tessela_prng, name)(std_key, *args, **kwargs)
        if isinstance(want, tessela_prng.KeyArray):
            want = tessela_prng.key_data(want)
        np.testing.assert_array_equal(_data(eager), np.asarray(want))


def test_shapes_as_lists_and_arrays_of_parameters() -> None:
    key = random.key(3)
    np.testing.assert_array_equal(random.normal(key, [2, 3]), random.normal(key, (2, 3)))
    lam = np.array([1.0, 5.0, 20.0], np.float32)
    got = random.poisson(key, lam)
    np.testing.assert_array_equal(got, tx.jit(lambda k, lam: random.poisson(k, lam))(key, lam))
    # A count given as a 0-d array sets the output's shape: the host path takes it.
    np.testing.assert_array_equal(random.permutation(key, np.array(6)), random.permutation(key, 6))


def test_new_python_numbers_reuse_the_program_new_shapes_compile(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = random.key(0)
    first = random.uniform(key, (13, 3), minval=0.25, maxval=0.5)
    outs = []
    before = tx.config.read("jax_log_compiles")
    tx.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tessela_lowering"):
            for lo in (0.125, -3.0, 7.5):
                outs.append(random.uniform(key, (13, 3), minval=lo, maxval=lo + 1.0))
            assert "compilation" not in caplog.text
            random.uniform(key, (13, 4), minval=0.25, maxval=0.5)
        assert "Finished XLA compilation of jit(uniform)" in caplog.text
    finally:
        tx.config.update("jax_log_compiles", before)
    # The same bits, scaled to each interval.
    unit = (np.asarray(first) - 0.25) / 0.25
    for lo, out in zip((0.125, -3.0, 7.5), outs, strict=True):
        np.testing.assert_allclose(np.asarray(out), lo + unit, rtol=1e-5, atol=1e-5)


def test_threefry_layout_switch_traces_again() -> None:
    key = random.key(5)
    jitted = tx.jit(lambda k: random.bits(k, (6,)))
    before = tx.config.read("jax_threefry_partitionable")
    try:
        for layout in (True, False, True):
            tx.config.update("jax_threefry_partitionable", layout)
            std = tessela_prng.bits(tessela_prng.key(5), (6,))
            np.testing.assert_array_equal(random.bits(key, (6,)), std)
            for _ in range(3):  # the dispatch fast path too
                np.testing.assert_array_equal(jitted(key), std)
    finally:
        tx.config.update("jax_threefry_partitionable", before)


@pytest.mark.parametrize("partitionable", [True, False])
def test_gumbel_highest_is_the_standalone_value_under_jit(partitionable: bool) -> None:
    # It takes a 64-bit fraction of two words of bits; programs without 64-bit
    # types once lost its high bits.
    key = random.key(11)
    before = tx.config.read("jax_threefry_partitionable")
    tx.config.update("jax_threefry_partitionable", partitionable)
    try:
        want = tessela_prng.gumbel(tessela_prng.key(11), (64,), np.float32, "highest")
        got = tx.jit(lambda k: random.gumbel(k, (64,), np.float32, "highest"))(key)
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, atol=1e-7)
    finally:
        tx.config.update("jax_threefry_partitionable", before)


def test_bad_calls_raise_as_before() -> None:
    key = random.key(0)
    with pytest.raises(TypeError):
        random.normal(key, (2,), jnp_dtype=None)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        random.normal(key, (2,), np.float32, 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        random.randint(key, (2,), 0)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="dtype"):
        random.normal(key, (2,), np.int32)
