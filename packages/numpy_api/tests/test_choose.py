"""compress, choose and ptp against NumPy, eager and under jit, with JAX's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import jit
from tessela_tracer.errors import ConcretizationTypeError

shapes = st.sampled_from([(5,), (2, 3), (3, 1, 4)])
arrays = shapes.flatmap(lambda s: hnp.arrays(np.float32, s, elements=st.integers(-9, 9).map(float)))


def _same(got: Any, want: Any) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=15)
@given(arrays, st.data())
def test_compress_matches_numpy(x: np.ndarray, data: st.DataObject) -> None:
    axis = data.draw(st.sampled_from([None, *range(-x.ndim, x.ndim)]))
    n = x.size if axis is None else x.shape[axis]
    length = data.draw(st.integers(0, n))
    cond = data.draw(hnp.arrays(np.bool_, (length,)))
    _same(tnp.compress(cond, x, axis), np.compress(cond, x, axis))


@settings(max_examples=15)
@given(arrays, st.data())
def test_compress_with_size_pads_after_the_selected_slices(
    x: np.ndarray, data: st.DataObject
) -> None:
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    cond = data.draw(hnp.arrays(np.bool_, (x.shape[axis],)))
    size = data.draw(st.integers(0, x.shape[axis]))
    f = jit(lambda c, a: tnp.compress(c, a, axis, size=size, fill_value=-100))
    got = np.asarray(f(cond, x))
    kept = np.compress(cond, x, axis)
    want = np.full(got.shape, -100, np.float32)
    k = min(size, kept.shape[axis])
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, k)
    want[tuple(index)] = np.take(kept, np.arange(k), axis)
    np.testing.assert_array_equal(got, want)


def test_compress_errors() -> None:
    x = np.arange(4.0, dtype=np.float32)
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.compress(np.array([False] * 4 + [True]), x)
    _same(tnp.compress(np.array([True] + [False] * 5), x), x[:1])  # false extras are fine
    with pytest.raises(ValueError, match="1D"):
        tnp.compress(np.ones((2, 2), bool), x)
    with pytest.raises(ValueError, match="size must be positive"):
        tnp.compress(np.ones(4, bool), x, size=5)
    with pytest.raises(TypeError):
        tnp.compress([True, False], x)
    with pytest.raises(NotImplementedError):
        tnp.compress(np.ones(4, bool), x, out=x)  # type: ignore[arg-type]


@settings(max_examples=15)
@given(st.data())
def test_choose_matches_numpy(data: st.DataObject) -> None:
    shape = data.draw(st.sampled_from([(4,), (2, 3)]))
    k = data.draw(st.integers(1, 4))
    idx = data.draw(hnp.arrays(np.int32, shape, elements=st.integers(-6, 6)))
    choices = [
        np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * (i + 1) for i in range(k)
    ]
    choices.append(np.float32(-1.0) * np.ones(shape[-1:], np.float32))  # broadcasts
    for mode in ("wrap", "clip"):
        _same(tnp.choose(idx, choices, mode=mode), np.choose(idx, choices, mode=mode))
        _same(
            jit(lambda i, c, m=mode: tnp.choose(i, c, mode=m))(idx, choices),
            np.choose(idx, choices, mode=mode),
        )
    inside = np.clip(idx, 0, len(choices) - 1)
    _same(tnp.choose(inside, choices), np.choose(inside, choices))


def test_choose_errors() -> None:
    choices = [np.zeros(3, np.float32), np.ones(3, np.float32)]
    with pytest.raises(ValueError, match="invalid entry"):
        tnp.choose(np.array([0, 2, 1]), choices)
    with pytest.raises(ValueError, match="integer typed"):
        tnp.choose(np.array([0.0, 1.0, 0.0]), choices)
    with pytest.raises(ValueError, match="not understood"):
        tnp.choose(np.array([0, 1, 0]), choices, mode="bogus")
    with pytest.raises(ConcretizationTypeError, match="mode='wrap' or mode='clip'"):
        jit(lambda i: tnp.choose(i, choices))(np.array([0, 1, 0]))


@settings(max_examples=15)
@given(arrays, st.data(), st.booleans())
def test_ptp_matches_numpy(x: np.ndarray, data: st.DataObject, keepdims: bool) -> None:
    axis = data.draw(st.sampled_from([None, 0, -1, (0, -1)]))
    _same(tnp.ptp(x, axis, keepdims=keepdims), np.ptp(x, axis, keepdims=keepdims))
    ints = x.astype(np.int32)
    _same(tnp.ptp(ints, axis), np.ptp(ints, axis))
