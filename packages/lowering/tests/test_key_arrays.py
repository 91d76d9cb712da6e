"""Concrete key arrays: a uint32 buffer under a key aval, lowered as its data."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import tessela_lowering as tl
from tessela_tracer import lax
from tessela_tracer.dtypes import key_fry
from tessela_tracer.extend import random_unwrap, random_wrap

DATA = np.arange(12, dtype=np.uint32).reshape(6, 2)


def _data(keys) -> np.ndarray:
    return np.asarray(random_unwrap(keys))


def test_a_key_array_holds_its_data_and_reports_the_key_dtype() -> None:
    keys = random_wrap(DATA)
    assert isinstance(keys, tl.Array)
    assert keys.shape == (6,) and keys.dtype == key_fry and keys.ndim == 1
    np.testing.assert_array_equal(_data(keys), DATA)
    assert _data(keys).dtype == np.uint32


def test_key_arrays_print_as_jax_and_refuse_numpy_conversion() -> None:
    key = random_wrap(np.array([0, 43], np.uint32))
    assert repr(key) == "Array((), dtype=key<fry>) overlaying:\n[ 0 43]"
    assert str(key) == repr(key)
    # format() of a key, scalar or not, is its text (as JAX's f"{key}" is).
    assert f"{key}" == format(key, "") == repr(key)
    assert f"{key:>60}".endswith(repr(key)) and len(f"{key:>60}") == 60
    keys = random_wrap(np.zeros((2, 2), np.uint32))
    assert f"{keys}" == str(keys)
    with pytest.raises(TypeError, match="key_data"):
        np.asarray(key)


def test_jit_takes_and_returns_key_arrays() -> None:
    keys = random_wrap(DATA)
    out = tl.jit(lambda k: lax.rev(lax.reshape(k, (2, 3)), (1,)))(keys)
    assert out.shape == (2, 3) and out.dtype == key_fry
    np.testing.assert_array_equal(_data(out), DATA.reshape(2, 3, 2)[:, ::-1])


@pytest.mark.parametrize(
    ("fn", "want"),
    [
        (lambda k: lax.slice(k, (1,), (5,), (2,)), DATA[1:5:2]),
        (
            lambda k: lax.transpose(lax.reshape(k, (2, 3)), (1, 0)),
            DATA.reshape(2, 3, 2).transpose(1, 0, 2),
        ),
        (lambda k: lax.broadcast_in_dim(k, (2, 6), (1,)), np.broadcast_to(DATA, (2, 6, 2))),
        (lambda k: lax.concatenate([k, k], 0), np.concatenate([DATA, DATA])),
        (lambda k: lax.squeeze(lax.reshape(k, (1, 6)), (0,)), DATA),
        (lambda k: lax.dynamic_slice(k, (np.int32(2),), (3,)), DATA[2:5]),
        (lambda k: lax.dynamic_index_in_dim(k, np.int32(4), keepdims=False), DATA[4]),
    ],
)
def test_shape_ops_on_keys_move_whole_keys(fn, want) -> None:
    keys = random_wrap(DATA)
    np.testing.assert_array_equal(_data(fn(keys)), want)
    np.testing.assert_array_equal(_data(tl.jit(fn)(keys)), want)


def test_gather_of_keys_picks_whole_keys() -> None:
    keys = random_wrap(DATA)
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    idx = np.array([[5], [0], [2]], np.int32)
    out = tl.jit(lambda k: lax.gather(k, idx, dn, (1,)))(keys)
    np.testing.assert_array_equal(_data(out), DATA[[5, 0, 2]])


def test_scan_carries_and_stacks_keys() -> None:
    keys = random_wrap(DATA)

    def body(carry, k):
        return k, carry

    carry, ys = tl.jit(lambda ks: lax.scan(body, ks[0], ks[1:]))(keys)
    assert carry.dtype == key_fry and ys.dtype == key_fry and ys.shape == (5,)
    np.testing.assert_array_equal(_data(carry), DATA[5])
    np.testing.assert_array_equal(_data(ys), DATA[:5])


def test_a_closed_over_key_is_embedded_as_its_data() -> None:
    key = random_wrap(np.array([7, 9], np.uint32))
    out = tl.jit(lambda x: (random_unwrap(key), x))(1.0)[0]
    np.testing.assert_array_equal(np.asarray(out), [7, 9])


def test_device_put_keeps_key_arrays() -> None:
    keys = random_wrap(DATA)
    moved = tl.device_put(keys, tl.devices()[0])
    assert moved.dtype == key_fry and moved.committed
    np.testing.assert_array_equal(_data(moved), DATA)


def test_keys_compare_equal_word_for_word() -> None:
    keys = random_wrap(DATA)
    flipped = lax.rev(keys, (0,))
    for fn in (lambda a, b: lax.eq(a, b), tl.jit(lambda a, b: lax.eq(a, b))):
        np.testing.assert_array_equal(np.asarray(fn(keys, keys)), np.ones(6, bool))
        np.testing.assert_array_equal(np.asarray(fn(keys, flipped)), np.zeros(6, bool))
    ne = tl.jit(lambda a, b: lax.ne(a, b))(keys, lax.slice(keys, (0,), (1,)))
    np.testing.assert_array_equal(np.asarray(ne), [False, True, True, True, True, True])


def test_select_tile_and_scatter_move_whole_keys() -> None:
    keys = random_wrap(DATA)
    which = np.array([True, False, True, False, False, True])
    picked = tl.jit(lambda a, b: lax.select(which, a, b))(keys, lax.rev(keys, (0,)))
    np.testing.assert_array_equal(_data(picked), np.where(which[:, None], DATA, DATA[::-1]))
    tiled = tl.jit(lambda k: lax.tile(k, (2,)))(keys)
    np.testing.assert_array_equal(_data(tiled), np.concatenate([DATA, DATA]))
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    one = random_wrap(np.array([[100, 200]], np.uint32))
    out = tl.jit(lambda k, u: lax.scatter(k, np.array([[2]], np.int32), u, dn))(keys, one)
    want = DATA.copy()
    want[2] = [100, 200]
    np.testing.assert_array_equal(_data(out), want)


def test_key_arrays_pickle_and_copy_as_key_arrays() -> None:
    keys = random_wrap(DATA)
    for again in (pickle.loads(pickle.dumps(keys)), copy.deepcopy(keys), keys.copy()):
        assert again.dtype == key_fry and again.shape == (6,)
        np.testing.assert_array_equal(_data(again), DATA)
