"""digitize, histogram, interp, partition and puts against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

data = hnp.arrays(np.float32, (8,), elements=st.floats(-4, 4, width=32, allow_subnormal=False))


@settings(max_examples=6)
@given(data)
def test_binning_matches_numpy(x: np.ndarray) -> None:
    edges = np.float32([-2.0, 0.0, 0.5, 3.0])
    np.testing.assert_array_equal(tnp.digitize(x, edges), np.digitize(x, edges))
    np.testing.assert_array_equal(
        tnp.digitize(x, edges[::-1], True), np.digitize(x, edges[::-1], True)
    )
    counts, got_edges = tnp.histogram(x, bins=4, range=(-3, 3))
    want, want_edges = np.histogram(x, bins=4, range=(-3, 3))
    np.testing.assert_allclose(counts, want)
    np.testing.assert_allclose(got_edges, want_edges, rtol=1e-6)
    fp = np.float32([1.0, -1.0, 2.0, 0.0])
    np.testing.assert_allclose(
        tnp.interp(x, edges, fp), np.interp(x, edges, fp), rtol=1e-5, atol=1e-6
    )
    part = np.asarray(tnp.partition(x, 3))
    assert np.all(part[:3] <= part[3]) and np.all(part[4:] >= part[3])
    assert part[3] == np.sort(x)[3]
    np.testing.assert_array_equal(np.sort(np.asarray(tnp.argpartition(x, 3))), np.arange(8))


def test_puts_require_inplace_false() -> None:
    with pytest.raises(ValueError, match="inplace=False"):
        tnp.put(np.zeros(3), 1, 2.0)
    with pytest.raises(ValueError, match="inplace=False"):
        tnp.put_along_axis(np.zeros(3), np.array([1]), 2.0, axis=0)
    a = np.zeros((2, 3), np.float32)
    idx = np.array([[2], [0]])
    want = a.copy()
    np.put_along_axis(want, idx, 5.0, axis=1)
    np.testing.assert_array_equal(tnp.put_along_axis(a, idx, 5.0, axis=1, inplace=False), want)
    keys = (np.array([1, 2, 1, 0]), np.array([0, 0, 1, 1]))
    np.testing.assert_array_equal(tnp.lexsort(keys), np.lexsort(keys))
