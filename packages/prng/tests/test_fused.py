"""The fused NumPy kernels agree with the step-by-step formulas they replace."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tessela_prng as tr
from tessela_prng._namespace import _erf_inv32, _erf_inv_numpy, numpy_xp
from tessela_prng._sampling import normal_data, uniform_data

F32 = np.dtype("float32")


@pytest.fixture(autouse=True)
def _restore_scheme() -> object:
    before = tr.config.threefry_partitionable
    yield None
    tr.config.update("jax_threefry_partitionable", before)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    return np.abs(ia - ib)


def stepwise_normal(data: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    lo = float(np.nextafter(np.float32(-1.0), np.float32(0.0)))
    u = uniform_data(data, shape, F32, lo, 1.0)
    with np.errstate(all="ignore"):
        out = _erf_inv32(numpy_xp, u)
    return np.asarray(out * np.float32(math.sqrt(2.0)))


@pytest.mark.parametrize("partitionable", [True, False])
def test_fused_normal_matches_stepwise_formula(partitionable: bool) -> None:
    tr.config.update("jax_threefry_partitionable", partitionable)
    data = tr.key_data(tr.key(11))
    got = normal_data(data, (300_001,), F32)
    want = stepwise_normal(data, (300_001,))
    assert got.dtype == np.float32 and got.shape == (300_001,)
    dist = ulp_distance(got, want)
    assert dist.max() <= 3
    assert (dist == 0).mean() > 0.995


@pytest.mark.parametrize("partitionable", [True, False])
def test_fused_normal_batched_equals_per_key(partitionable: bool) -> None:
    tr.config.update("jax_threefry_partitionable", partitionable)
    keys = tr.key_data(tr.split(tr.key(4), 3))
    both = normal_data(keys, (5000,), F32)
    assert both.shape == (3, 5000)
    for i in range(3):
        np.testing.assert_array_equal(both[i], normal_data(keys[i], (5000,), F32))


def test_blocked_erf_inv_matches_generic() -> None:
    x = np.linspace(-0.99999994, 0.99999994, 200_003, dtype=np.float32)
    got = _erf_inv_numpy(x)
    with np.errstate(all="ignore"):
        want = np.asarray(_erf_inv32(numpy_xp, x))
    dist = ulp_distance(got, want)
    assert dist.max() <= 3
    assert (dist == 0).mean() > 0.995


def test_split_pairs_match_hash_words() -> None:
    data = tr.key_data(tr.key(9))
    pairs = tr.key_data(tr.split(tr.key(9), 100_000))
    ops = tr.backend_ops(data)
    y0, y1 = ops.threefry2x32_iota(data[0], data[1], (100_000,))
    np.testing.assert_array_equal(pairs[:, 0], y0)
    np.testing.assert_array_equal(pairs[:, 1], y1)
    assert pairs.flags["C_CONTIGUOUS"]
