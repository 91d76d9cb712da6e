"""Key construction, key-array behaviour, configuration and argument errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import tessela_prng as tr
from hypothesis import given, settings
from hypothesis import strategies as st


def data(k: object) -> list[int]:
    return np.asarray(tr.key_data(k)).tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_seed_words_follow_32_bit_rule(seed: int) -> None:
    # Without x64, the seed is taken as an int32 (mod 2**32): high word 0.
    assert data(tr.key(seed)) == [0, seed % 2**32]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_seed_words_follow_64_bit_rule(seed: int) -> None:
    tr.config.update("jax_enable_x64", True)
    assert data(tr.key(seed)) == [(seed % 2**64) >> 32, seed % 2**32]


def test_numpy_integer_seeds() -> None:
    assert data(tr.key(np.int64(-3))) == [0, 2**32 - 3]
    assert data(tr.key(np.uint32(7))) == [0, 7]
    assert data(tr.key(np.uint64(2**63 + 1))) == [0, 1]
    assert data(tr.key(True)) == [0, 1]


def test_prngkey_is_raw_uint32() -> None:
    raw = tr.PRNGKey(42)
    assert isinstance(raw, np.ndarray)
    assert raw.dtype == np.uint32 and raw.shape == (2,)
    assert raw.tolist() == data(tr.key(42))


@pytest.mark.parametrize("seed", [1.0, np.float32(2.0), "3"])
def test_float_seed_is_type_error(seed: object) -> None:
    with pytest.raises(TypeError, match="seed must be an integer"):
        tr.key(seed)


def test_array_seed_is_type_error() -> None:
    with pytest.raises(TypeError, match="scalar seed"):
        tr.key(np.array([1, 2]))


def test_too_wide_seed_overflows() -> None:
    with pytest.raises(OverflowError, match="seed"):
        tr.key(2**64)


def test_unknown_impl() -> None:
    with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
        tr.key(0, impl="rbg")
    assert tr.key_impl(tr.key(0, impl="threefry2x32")) == "threefry2x32"


def test_typed_and_raw_keys_agree() -> None:
    typed, raw = tr.key(5), tr.PRNGKey(5)
    assert np.array_equal(tr.key_data(tr.split(typed, 4)), tr.split(raw, 4))
    assert np.array_equal(tr.key_data(tr.fold_in(typed, 9)), tr.fold_in(raw, 9))
    assert np.array_equal(tr.normal(typed, (5,)), tr.normal(raw, (5,)))
    assert isinstance(tr.split(typed), tr.KeyArray)
    assert isinstance(tr.split(raw), np.ndarray)


def test_key_array_shape_iteration_and_indexing() -> None:
    keys = tr.split(tr.key(0), (2, 3))
    assert keys.shape == (2, 3) and keys.ndim == 2 and keys.size == 6
    assert keys.dtype == "key<fry>"
    assert len(keys) == 2
    rows = list(keys)
    assert all(r.shape == (3,) for r in rows)
    assert data(keys[1, 2]) == np.asarray(tr.key_data(keys))[1, 2].tolist()
    assert keys.reshape(6).shape == (6,)
    assert bool((keys[0] == keys[0]).all()) and not bool((keys[0] != keys[0]).any())
    with pytest.raises(TypeError, match="len"):
        len(tr.key(0))


def test_wrap_key_data_roundtrip_and_clone() -> None:
    keys = tr.split(tr.key(3), 5)
    again = tr.wrap_key_data(tr.key_data(keys))
    assert bool((again == keys).all())
    assert bool((tr.clone(keys) == keys).all())
    with pytest.raises(TypeError, match="already a key array"):
        tr.wrap_key_data(keys)  # type: ignore[arg-type]


def test_split_shapes_and_count() -> None:
    assert tr.split(tr.key(0), 0).shape == (0,)
    assert tr.split(tr.key(0), (2, 2)).shape == (2, 2)
    with pytest.raises(ValueError, match="non-negative"):
        tr.split(tr.key(0), -1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.booleans())
def test_split_of_shape_equals_reshaped_split_of_count(seed: int, n: int, scheme: bool) -> None:
    tr.config.update("jax_threefry_partitionable", scheme)
    k = tr.key(seed)
    flat = np.asarray(tr.key_data(tr.split(k, 2 * n)))
    shaped = np.asarray(tr.key_data(tr.split(k, (2, n))))
    np.testing.assert_array_equal(shaped, flat.reshape(2, n, 2))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.integers(0, 40))
def test_partitionable_bits_are_prefix_consistent(seed: int, n: int, m: int) -> None:
    # The partitionable counter depends only on the flat index.
    k = tr.key(seed)
    a = tr.bits(k, (n + m,))
    np.testing.assert_array_equal(tr.bits(k, (n,)), a[:n])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([np.uint8, np.uint16, np.uint32]))
def test_bits_dtype_and_range(seed: int, dtype: type) -> None:
    out = tr.bits(tr.key(seed), (17,), dtype)
    assert out.dtype == np.dtype(dtype) and out.shape == (17,)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(-(2**31), 2**31 - 2),
    st.integers(1, 2**31),
    st.booleans(),
)
def test_randint_in_range(seed: int, lo: int, width: int, scheme: bool) -> None:
    tr.config.update("jax_threefry_partitionable", scheme)
    hi = min(lo + width, 2**31 - 1)
    out = tr.randint(tr.key(seed), (64,), lo, hi)
    assert out.dtype == np.int32
    assert ((out >= lo) & (out < max(hi, lo + 1))).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30))
def test_permutation_is_a_permutation(seed: int, n: int) -> None:
    out = tr.permutation(tr.key(seed), n)
    assert sorted(out.tolist()) == list(range(n))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(-5, 5), st.floats(0.01, 5))
def test_uniform_within_bounds(seed: int, lo: float, width: float) -> None:
    out = tr.uniform(tr.key(seed), (32,), minval=lo, maxval=lo + width)
    lo32, hi32 = np.float32(lo), np.float32(lo + width)
    assert ((out >= lo32) & (out <= hi32)).all()


def test_config_names_and_env_spellings() -> None:
    tr.config.update("tessela_threefry_partitionable", False)
    assert tr.config.read("jax_threefry_partitionable") is False
    assert tr.config.jax_threefry_partitionable is False
    tr.config.update("threefry_partitionable", True)
    assert tr.config.threefry_partitionable is True
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        tr.config.update("jax_no_such_flag", True)
    with pytest.raises(TypeError, match="must be a bool"):
        tr.config.update("jax_enable_x64", "yes")


def test_environment_sets_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_THREEFRY_PARTITIONABLE", "0")
    monkeypatch.setenv("TESSELA_ENABLE_X64", "true")
    fresh = tr.Config()
    assert fresh.threefry_partitionable is False and fresh.enable_x64 is True
    monkeypatch.setenv("JAX_ENABLE_X64", "maybe")
    monkeypatch.delenv("TESSELA_ENABLE_X64")
    with pytest.raises(ValueError, match="not a boolean"):
        tr.Config()


def test_default_dtypes_follow_x64() -> None:
    k = tr.key(0)
    assert tr.normal(k).dtype == np.float32
    assert tr.randint(k, (), 0, 3).dtype == np.int32
    assert tr.bits(k).dtype == np.uint32
    tr.config.update("jax_enable_x64", True)
    assert tr.normal(k).dtype == np.float64
    assert tr.randint(k, (), 0, 3).dtype == np.int64
    assert tr.bits(k).dtype == np.uint64
    assert tr.poisson(k, 3.0).dtype == np.int64


def test_explicit_64_bit_request_without_x64_warns() -> None:
    with pytest.warns(UserWarning, match="truncated to dtype uint32"):
        assert tr.bits(tr.key(0), (2,), np.uint64).dtype == np.uint32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tr.normal(tr.key(0), (2,), np.float32)


# ---------------------------------------------------------------------------
# errors


def test_non_key_is_type_error() -> None:
    with pytest.raises(TypeError, match="normal: unexpected PRNG key type list"):
        tr.normal([0, 0], (1,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected PRNG key type float32"):
        tr.normal(np.float32(3.0), (1,))
    with pytest.raises(TypeError, match="trailing dimension 2"):
        tr.uniform(np.zeros(3, np.uint32))


def test_batched_key_is_value_error() -> None:
    with pytest.raises(ValueError, match="normal accepts a single key"):
        tr.normal(tr.split(tr.key(0)), (1,))
    with pytest.raises(ValueError, match="split accepts a single key"):
        tr.split(tr.split(tr.key(0)))


def test_float_dtype_for_randint_is_type_error() -> None:
    with pytest.raises(TypeError, match="randint only accepts integer dtypes"):
        tr.randint(tr.key(0), (2,), 0, 1, dtype=np.float32)


def test_integer_dtype_for_float_sampler_is_value_error() -> None:
    with pytest.raises(ValueError, match="dtype argument to `normal` must be a float"):
        tr.normal(tr.key(0), (2,), np.int32)
    with pytest.raises(ValueError, match="must be an unsigned int dtype"):
        tr.bits(tr.key(0), (2,), np.int32)


@pytest.mark.parametrize("shape", [(-1,), (2, -3)])
def test_negative_shape_is_value_error(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="negative dimension"):
        tr.normal(tr.key(0), shape)
    with pytest.raises(ValueError, match="negative dimension"):
        tr.randint(tr.key(0), shape, 0, 5)


def test_non_integer_shape_is_type_error() -> None:
    with pytest.raises(TypeError, match="shape must contain only integers"):
        tr.uniform(tr.key(0), (2.5,))  # type: ignore[arg-type]


def test_incompatible_parameter_shapes() -> None:
    with pytest.raises(TypeError, match="minval of shape"):
        tr.uniform(tr.key(0), (3,), minval=np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="must equal the shape argument"):
        tr.gamma(tr.key(0), np.ones(3, np.float32), (4,))
    with pytest.raises(ValueError, match="not broadcast-compatible"):
        tr.beta(tr.key(0), np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match="must equal the shape argument"):
        tr.randint(tr.key(0), (3,), np.zeros(4, np.int32), 5)


def test_bernoulli_needs_float_p() -> None:
    with pytest.raises(TypeError, match="must have a floating dtype"):
        tr.bernoulli(tr.key(0), 1)
    with pytest.raises(ValueError, match="expected 'high' or 'low'"):
        tr.bernoulli(tr.key(0), 0.5, mode="mid")


def test_choice_errors() -> None:
    with pytest.raises(ValueError, match="Cannot take a larger sample"):
        tr.choice(tr.key(0), 3, (5,), replace=False)
    with pytest.raises(ValueError, match="p must be None or a 1D vector"):
        tr.choice(tr.key(0), 3, (2,), p=np.ones(4, np.float32) / 4)
    with pytest.raises(TypeError, match="must be a sequence"):
        tr.choice(tr.key(0), 3, 2)  # type: ignore[arg-type]
    assert tr.choice(tr.key(0), 3, (0,)).shape == (0,)


def test_fold_in_rejects_arrays() -> None:
    with pytest.raises(TypeError, match="fold_in accepts a scalar"):
        tr.fold_in(tr.key(0), np.arange(3))


def test_multivariate_normal_shape_errors() -> None:
    with pytest.raises(ValueError, match=r"cov.shape == \(..., n, n\)"):
        tr.multivariate_normal(tr.key(0), np.zeros(2), np.eye(3))
    with pytest.raises(ValueError, match="method must be one of"):
        tr.multivariate_normal(tr.key(0), np.zeros(2), np.eye(2), method="qr")


def test_register_backend_ops_rejects_unknown() -> None:
    with pytest.raises(TypeError, match="unknown op"):
        tr.register_backend_ops(np, not_an_op=abs)
