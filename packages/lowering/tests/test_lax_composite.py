"""The composed lax functions (full, *_in_dim, sort_key_val, batch_matmul,
associative_scan) computed eagerly and under jit, against NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering import jit
from tessela_tracer import lax

SETTINGS = settings(max_examples=15, deadline=None)
floats = st.floats(-4, 4, width=32, allow_subnormal=False)


def _both(fun: Any, *args: Any) -> list[Any]:
    """``fun`` run eagerly and under jit; both results as NumPy trees."""
    return [np.asarray(fun(*args)), np.asarray(jit(fun)(*args))]


@SETTINGS
@given(hnp.arrays(np.float32, st.integers(1, 17), elements=floats), st.booleans())
def test_associative_scan_add_is_cumsum(x: np.ndarray, reverse: bool) -> None:
    want = np.cumsum(x[::-1])[::-1] if reverse else np.cumsum(x)
    for got in _both(lambda v: lax.associative_scan(lax.add, v, reverse=reverse), x):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(hnp.arrays(np.int32, st.tuples(st.integers(1, 4), st.integers(1, 9)),
                  elements=st.integers(-50, 50)), st.integers(0, 1))  # fmt: skip
def test_associative_scan_max_along_an_axis(x: np.ndarray, axis: int) -> None:
    want = np.maximum.accumulate(x, axis=axis)
    for got in _both(lambda v: lax.associative_scan(lax.max, v, axis=axis), x):
        np.testing.assert_array_equal(got, want)


@SETTINGS
@given(st.integers(1, 11), st.booleans(), st.integers(0, 2**31 - 1))
def test_associative_scan_non_commutative_matches_a_loop(n: int, reverse: bool, seed: int) -> None:
    # Matrix products are associative but not commutative: the operand order
    # matters. Reversed, entry i is m[n-1] @ ... @ m[i] (JAX's order).
    m = np.random.default_rng(seed).uniform(-1, 1, (n, 2, 2)).astype(np.float64)
    want = np.empty_like(m)
    acc = np.eye(2)
    for i in range(n - 1, -1, -1) if reverse else range(n):
        acc = acc @ m[i]
        want[i] = acc

    def matmul(a: Any, b: Any) -> Any:
        return lax.batch_matmul(a, b)

    got = lax.associative_scan(matmul, m.astype(np.float32), reverse=reverse)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)


def test_associative_scan_on_pytrees_and_bools() -> None:
    # (count, total) pairs: a pytree of two arrays scanned together.
    xs = {"n": np.ones(6, np.int32), "s": np.arange(6, dtype=np.float32)}
    out = lax.associative_scan(
        lambda a, b: {"n": lax.add(a["n"], b["n"]), "s": lax.add(a["s"], b["s"])}, xs
    )
    np.testing.assert_array_equal(np.asarray(out["n"]), np.arange(1, 7))
    np.testing.assert_array_equal(np.asarray(out["s"]), np.cumsum(np.arange(6.0)))
    flags = np.array([False, False, True, False, True])
    got = lax.associative_scan(lax.bitwise_or, flags)
    np.testing.assert_array_equal(np.asarray(got), np.logical_or.accumulate(flags))


def test_associative_scan_errors() -> None:
    with pytest.raises(ValueError, match="same first dimension"):
        lax.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="out of bounds"):
        lax.associative_scan(lax.add, np.ones(3), axis=1)
    with pytest.raises(TypeError, match="structure"):
        lax.associative_scan(lambda a, b: (a, b), np.ones(3))


@SETTINGS
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(1, 5)), elements=floats),
       st.integers(-5, 5), st.integers(-5, 5), st.integers(1, 3), st.integers(0, 1))  # fmt: skip
def test_slice_in_dim_matches_python_slicing(
    x: np.ndarray, start: int, limit: int, stride: int, axis: int
) -> None:
    size = x.shape[axis]
    lo, hi = (start + size if start < 0 else start), (limit + size if limit < 0 else limit)
    if not 0 <= lo <= hi <= size:
        return  # lax.slice's own bounds error covers the rest
    index = [slice(None)] * 2
    index[axis] = slice(lo, hi, stride)
    got = lax.slice_in_dim(x, start, limit, stride, axis)
    np.testing.assert_array_equal(np.asarray(got), x[tuple(index)])


@SETTINGS
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(1, 5)), elements=floats),
       st.integers(-6, 6), st.integers(0, 1), st.booleans())  # fmt: skip
def test_index_helpers_match_numpy(x: np.ndarray, i: int, axis: int, keepdims: bool) -> None:
    size = x.shape[axis]
    clamped = min(max(i + size if i < 0 else i, 0), size - 1)  # dynamic indices clamp
    want = np.take(x, [clamped], axis=axis)
    want = want if keepdims else np.squeeze(want, axis)
    for got in _both(lambda v, j: lax.dynamic_index_in_dim(v, j, axis, keepdims), x, np.int32(i)):
        np.testing.assert_array_equal(got, want)
    if -size <= i < size:
        static = lax.index_in_dim(x, i, axis, keepdims)
        np.testing.assert_array_equal(np.asarray(static), want)
    else:
        with pytest.raises(IndexError, match="out of bounds"):
            lax.index_in_dim(x, i, axis, keepdims)


@SETTINGS
@given(hnp.arrays(np.float32, (4, 5), elements=floats), st.integers(-6, 6), st.integers(1, 5))
def test_dynamic_slice_and_update_in_dim(x: np.ndarray, i: int, size: int) -> None:
    start = min(max(i + 5 if i < 0 else i, 0), 5 - size)
    for got in _both(lambda v, j: lax.dynamic_slice_in_dim(v, j, size, axis=1), x, np.int32(i)):
        np.testing.assert_array_equal(got, x[:, start : start + size])
    update = -np.ones((4, size), np.float32)
    want = x.copy()
    want[:, start : start + size] = update
    for got in _both(lambda v, u, j: lax.dynamic_update_slice_in_dim(v, u, j, 1), x, update,
                     np.int32(i)):  # fmt: skip
        np.testing.assert_array_equal(got, want)
    row = np.full(5, 7.0, np.float32)
    r = min(max(i + 4 if i < 0 else i, 0), 3)
    want = x.copy()
    want[r] = row
    for upd in (row, row[None]):  # the axis may be left out of the update
        for got in _both(lambda v, u, j: lax.dynamic_update_index_in_dim(v, u, j, 0), x, upd,
                         np.int32(i)):  # fmt: skip
            np.testing.assert_array_equal(got, want)


def test_dynamic_update_index_in_dim_rank_error() -> None:
    with pytest.raises(TypeError, match="update rank"):
        lax.dynamic_update_index_in_dim(np.ones((2, 3)), np.ones((1, 1, 3)), 0, 0)


@pytest.mark.parametrize(
    ("fill", "dtype", "want_dtype", "weak"),
    [(1.0, None, np.float32, True), (1, None, np.int32, True), (np.float32(1), None,
     np.float32, False), (2, np.float32, np.float32, False), (True, None, np.bool_, False)],
)  # fmt: skip
def test_full_dtypes_and_weak_types(fill: Any, dtype: Any, want_dtype: Any, weak: bool) -> None:
    out = lax.full((2, 3), fill, dtype)
    assert out.shape == (2, 3)
    assert out.dtype == want_dtype
    assert out.weak_type is weak
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), fill, want_dtype))


def test_full_like_follows_x() -> None:
    x = np.ones((2, 3), np.int8)
    out = lax.full_like(x, 5)
    assert (out.dtype, out.shape, out.weak_type) == (np.int8, (2, 3), False)
    assert lax.full_like(x, 5, dtype=np.float32, shape=(4,)).dtype == np.float32
    weak = lax.full_like(lax.full((2,), 1.0), 3)
    assert (weak.dtype, weak.weak_type) == (np.float32, True)
    with pytest.raises(TypeError, match="scalar fill_value"):
        lax.full((2,), np.ones(2))


@SETTINGS
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 4), st.integers(1, 6)),
                  elements=st.integers(-3, 3).map(float)))  # fmt: skip
def test_sort_key_val_is_a_stable_argsort(keys: np.ndarray) -> None:
    values = np.arange(keys.size, dtype=np.int32).reshape(keys.shape)
    order = np.argsort(keys, axis=-1, kind="stable")
    k, v = lax.sort_key_val(keys, values)
    np.testing.assert_array_equal(np.asarray(k), np.take_along_axis(keys, order, -1))
    np.testing.assert_array_equal(np.asarray(v), np.take_along_axis(values, order, -1))


@SETTINGS
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))
def test_batch_matmul_matches_numpy(b: int, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(b * 100 + m * 10 + k)
    x = rng.uniform(-1, 1, (b, m, k)).astype(np.float32)
    y = rng.uniform(-1, 1, (b, k, n)).astype(np.float32)
    for got in _both(lax.batch_matmul, x, y):
        np.testing.assert_allclose(got, x @ y, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="same ndim"):
        lax.batch_matmul(x, y[0])
    with pytest.raises(ValueError, match="at least 2D"):
        lax.batch_matmul(x[0, 0], y[0, 0])
