"""Properties of weighted quantiles and of ``pad``'s odd reflections, callable modes and constants.

The exact values of JAX 0.10.2 are in ``test_scan2.py``; these tests check
invariants on arbitrary inputs against NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# Dyadic quantiles: q * total is exact in float32 and float64 alike.
Q = np.array([0.0, 0.125, 0.25, 0.5, 0.75, 0.875, 1.0], np.float32)

values = hnp.arrays(
    np.float32,
    st.integers(1, 12),
    elements=st.integers(-20, 20).map(float),
)


@settings(max_examples=40)
@given(values, st.data())
def test_integer_weights_count_as_repeats(x: np.ndarray, data: Any) -> None:
    # A weight of k (>= 1) is k copies of the value: NumPy's unweighted
    # inverted_cdf of the repeated values.
    w = data.draw(hnp.arrays(np.int32, x.shape, elements=st.integers(1, 4)))
    want = np.quantile(np.repeat(x, w), Q.astype(np.float64), method="inverted_cdf")
    got = tnp.quantile(x, Q, method="inverted_cdf", weights=w)
    np.testing.assert_array_equal(np.asarray(got), want.astype(np.float32))
    got_pct = tnp.percentile(x, Q * 100, method="inverted_cdf", weights=w.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(got_pct), want.astype(np.float32))


@settings(max_examples=40)
@given(values, st.data())
def test_nanquantile_weights_skip_nans(x: np.ndarray, data: Any) -> None:
    # NaN values weigh nothing: the same quantiles as without them.
    mask = data.draw(hnp.arrays(np.bool_, x.shape))
    w = data.draw(hnp.arrays(np.float32, x.shape, elements=st.integers(0, 3).map(float)))
    with_nans = np.where(mask, np.float32(np.nan), x)
    got = np.asarray(tnp.nanquantile(with_nans, Q, method="inverted_cdf", weights=w))
    keep = ~mask
    if not keep.any():
        assert np.isnan(got).all()
        return
    want = np.asarray(tnp.quantile(x[keep], Q, method="inverted_cdf", weights=w[keep]))
    np.testing.assert_array_equal(got, want)


def test_unweighted_inverted_cdf_is_numpys() -> None:
    x = np.array([[3.0, -1.0, 4.0, 1.0, 5.0, 9.0], [2.0, 6.0, 5.0, 3.0, 5.0, 8.0]], np.float32)
    for axis in (None, 0, 1):
        want = np.quantile(x, Q.astype(np.float64), axis=axis, method="inverted_cdf")
        got = tnp.quantile(x, Q, axis=axis, method="inverted_cdf")
        np.testing.assert_array_equal(np.asarray(got), want.astype(np.float32))


def test_bad_weights_make_the_slice_nan() -> None:
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    w = np.ones((2, 4), np.float32)
    w[0, 1] = -1.0
    got = np.asarray(tnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=w))
    assert np.isnan(got[0]) and got[1] == 5.0


def test_weights_errors_name_the_fix() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(NotImplementedError, match="only method='inverted_cdf'"):
        tnp.quantile(x, 0.5, weights=np.ones((2, 3)))
    with pytest.raises(ValueError, match="reduction axes"):
        tnp.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=np.ones(2))
    with pytest.raises(ValueError, match="when axis is None"):
        tnp.nanquantile(x, 0.5, method="inverted_cdf", weights=np.ones(3))
    with pytest.raises(ValueError, match="complex"):
        tnp.percentile(x, 50, method="inverted_cdf", weights=np.ones((2, 3), np.complex64))
    with pytest.raises(ValueError, match="out and overwrite_input"):
        tnp.quantile(x, 0.5, out=np.zeros(()))


# ---------------------------------------------------------------- pad

small = hnp.arrays(
    np.float32,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4),
    elements=st.integers(-9, 9).map(float),
)


@settings(max_examples=40)
@given(small, st.data(), st.sampled_from(["reflect", "symmetric"]))
def test_odd_reflection_is_numpys(x: np.ndarray, data: Any, mode: str) -> None:
    widths = [data.draw(st.tuples(st.integers(0, 9), st.integers(0, 9))) for _ in x.shape]
    want = np.pad(x, widths, mode=mode, reflect_type="odd")
    got = tnp.pad(x, widths, mode=mode, reflect_type="odd")
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=30)
@given(small, st.data())
def test_per_axis_constants_are_numpys(x: np.ndarray, data: Any) -> None:
    widths = [data.draw(st.tuples(st.integers(0, 3), st.integers(0, 3))) for _ in x.shape]
    values = [data.draw(st.tuples(st.integers(-5, 5), st.integers(-5, 5))) for _ in x.shape]
    want = np.pad(x, widths, constant_values=values)
    got = tnp.pad(x, widths, constant_values=tuple(values))
    np.testing.assert_array_equal(np.asarray(got), want)


def _numpy_style(vector: Any, pad_width: Any, iaxis: int, kwargs: Any) -> Any:
    before, after = pad_width
    vector = vector.at[:before].set(kwargs["fill"] + iaxis) if before else vector
    n = vector.shape[0]
    return vector.at[n - after :].set(-kwargs["fill"]) if after else vector


def _numpy_inplace(vector: np.ndarray, pad_width: Any, iaxis: int, kwargs: Any) -> None:
    before, after = pad_width
    if before:
        vector[:before] = kwargs["fill"] + iaxis
    if after:
        vector[vector.shape[0] - after :] = -kwargs["fill"]


@settings(max_examples=20)
@given(small, st.data())
def test_callable_mode_is_numpys(x: np.ndarray, data: Any) -> None:
    # NumPy's function edits the vector in place; JAX's returns it.
    widths = [data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))) for _ in x.shape]
    want = np.pad(x, widths, _numpy_inplace, fill=7.0)
    got = tnp.pad(x, widths, _numpy_style, fill=7.0)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_documented_values() -> None:
    got = tnp.pad(np.array([1, 2, 4]), (2, 3), mode="reflect", reflect_type="odd")
    assert got.tolist() == [-2, 0, 1, 2, 4, 6, 7, 8]
    got = tnp.pad(np.ones((1, 2), np.int32), 1, constant_values=((7, 8), (5, 6)))
    assert got.tolist() == [[5, 7, 7, 6], [5, 1, 1, 6], [5, 8, 8, 6]]


def test_callable_mode_errors() -> None:
    x = np.ones((2, 2), np.float32)
    with pytest.raises(TypeError, match="returned None"):
        tnp.pad(x, 1, lambda v, w, i, kw: None)
    with pytest.raises(ValueError, match="1-D vector"):
        tnp.pad(x, 1, lambda v, w, i, kw: v.sum())
    with pytest.raises(ValueError, match="rank >= 1"):
        tnp.pad(np.float32(1), 1, lambda v, w, i, kw: v)
