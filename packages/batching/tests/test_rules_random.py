"""Batching of random_wrap and random_unwrap: a batch of keys is a batch of key data."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_batching import vmap
from tessela_tracer import lax
from tessela_tracer.dtypes import key_fry
from tessela_tracer.extend import random_unwrap, random_wrap

DATA = np.arange(24, dtype=np.uint32).reshape(3, 4, 2)


def _data(keys) -> np.ndarray:
    return np.asarray(random_unwrap(keys))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_vmap_of_wrap_over_any_data_axis_matches_a_loop(axis: int) -> None:
    data = np.moveaxis(DATA, 0, axis)
    keys = vmap(random_wrap, in_axes=axis)(data)
    assert keys.dtype == key_fry and keys.shape == (3, 4)
    np.testing.assert_array_equal(_data(keys), DATA)


@pytest.mark.parametrize("out_axis", [0, 1])
def test_vmap_of_unwrap_keeps_the_mapped_axis(out_axis: int) -> None:
    keys = random_wrap(DATA)
    out = vmap(random_unwrap, out_axes=out_axis)(keys)
    np.testing.assert_array_equal(np.asarray(out), np.moveaxis(DATA, 0, out_axis))


def test_vmap_over_keys_of_a_key_function_matches_a_loop() -> None:
    keys = random_wrap(DATA)

    def f(k):  # keys in, keys out: reverse each row of keys
        return lax.rev(k, (0,))

    got = vmap(f, in_axes=1, out_axes=1)(keys)
    want = np.stack([_data(f(keys[:, j])) for j in range(4)], axis=1)
    np.testing.assert_array_equal(_data(got), want)
