"""Values of sorting, searching, ``take``, ``linalg.norm`` and scalar types against NumPy, eagerly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (registers the eager backend)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import jit

rng = np.random.default_rng(0)
X = rng.integers(-3, 4, (4, 5)).astype(np.float32)  # many ties, to test stability
XN = X.copy()
XN[0, 1] = XN[2, 3] = np.nan
XN[1, :] = np.nan


def _close(got: Any, want: Any) -> None:
    got = np.asarray(got)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-5, equal_nan=True)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_sort_and_argsort_match_numpy_stable(axis: int | None) -> None:
    _close(tnp.sort(tnp.asarray(XN), axis=axis), np.sort(XN, axis=axis))
    got = np.asarray(tnp.argsort(tnp.asarray(X), axis=axis))
    np.testing.assert_array_equal(got, np.argsort(X, axis=axis, kind="stable"))


@pytest.mark.parametrize("axis", [-1, 0])
def test_descending_is_stable_like_numpy(axis: int) -> None:
    want = np.flip(np.argsort(np.flip(X, axis), axis=axis, kind="stable"), axis)
    want = X.shape[axis] - 1 - want
    np.testing.assert_array_equal(
        np.asarray(tnp.argsort(tnp.asarray(X), axis, descending=True)), want
    )
    _close(tnp.sort(tnp.asarray(X), axis, descending=True), -np.sort(-X, axis))


def test_argsort_under_jit_and_unstable_sorts() -> None:
    x = tnp.asarray(X)
    idx = jit(lambda v: tnp.argsort(v, stable=False))(x)
    _close(np.take_along_axis(X, np.asarray(idx), -1), np.sort(X, -1))


@pytest.mark.parametrize("mode", [None, "fill", "clip", "wrap"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_matches_numpy_modes(mode: str | None, axis: int | None) -> None:
    idx = np.array([[0, -1, 7], [2, -9, 3]], np.int32)
    got = np.asarray(tnp.take(tnp.asarray(X), tnp.asarray(idx), axis=axis, mode=mode))
    size = X.size if axis is None else X.shape[axis]
    if mode in (None, "fill"):
        # Out-of-bounds reads give NaN: point them at a NaN slot appended to the axis.
        src = X.ravel() if axis is None else X
        ax = 0 if axis is None else axis
        pad = [(0, 0)] * src.ndim
        pad[ax] = (0, 1)
        src = np.pad(src, pad, constant_values=np.nan)
        ok = (idx >= -size) & (idx < size)
        want = np.take(src, np.where(ok, idx % size, size), axis=ax)
    else:
        want = np.take(X, idx, axis=axis, mode=mode)
    _close(got, want)


def test_take_fill_value_and_integer_fill() -> None:
    x = np.arange(5, dtype=np.int32)
    idx = np.array([1, 9, -6], np.int32)
    got = tnp.take(tnp.asarray(x), tnp.asarray(idx))
    assert np.asarray(got).tolist() == [1, np.iinfo(np.int32).min, np.iinfo(np.int32).min]
    got = tnp.take(tnp.asarray(x), tnp.asarray(idx), fill_value=-7)
    assert np.asarray(got).tolist() == [1, -7, -7]


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis_matches_numpy(axis: int | None) -> None:
    if axis is None:
        idx = np.array([0, 19, -1, 5], np.int32)
    else:
        idx = np.argsort(X, axis=axis).astype(np.int32)
    got = tnp.take_along_axis(tnp.asarray(X), tnp.asarray(idx), axis=axis)
    _close(got, np.take_along_axis(X, idx, axis=axis))


def test_take_along_axis_broadcasts_and_fills() -> None:
    idx = np.array([[4, 0, 9]], np.int32)
    got = np.asarray(tnp.take_along_axis(tnp.asarray(X), tnp.asarray(idx), axis=1))
    want = np.take_along_axis(X, np.broadcast_to(np.minimum(idx, 4), (4, 3)), axis=1)
    want[:, 2] = np.nan
    _close(got, want)
    got = tnp.take_along_axis(tnp.asarray(X), tnp.asarray(idx), axis=1, mode="clip")
    _close(got, np.take_along_axis(X, np.broadcast_to(np.minimum(idx, 4), (4, 3)), axis=1))


METHODS = ["scan", "scan_unrolled", "sort", "compare_all"]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from([-1.5, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan]), max_size=9),
    st.lists(
        st.sampled_from([-2.0, -0.0, 0.0, 1.0, 2.0, 3.0, np.inf, np.nan]), min_size=1, max_size=6
    ),
    st.sampled_from(["left", "right"]),
    st.sampled_from(METHODS),
)
def test_searchsorted_matches_numpy(a: list[float], v: list[float], side: str, method: str) -> None:
    sa = np.sort(np.array(a, np.float32))
    va = np.array(v, np.float32)
    got = tnp.searchsorted(tnp.asarray(sa), tnp.asarray(va), side=side, method=method)  # type: ignore[arg-type]
    want = np.searchsorted(sa, va, side=side)  # type: ignore[call-overload]
    assert np.asarray(got).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("method", METHODS)
def test_searchsorted_sorter_ints_and_complex(method: str) -> None:
    a = np.array([4, 3, 5, 1, 2], np.int32)
    v = np.array([[0, 3], [8, 2]], np.int32)
    s = np.argsort(a).astype(np.int32)
    got = tnp.searchsorted(tnp.asarray(a), tnp.asarray(v), sorter=tnp.asarray(s), method=method)
    np.testing.assert_array_equal(np.asarray(got), np.searchsorted(a, v, sorter=s))
    c = np.sort(np.array([1 + 2j, 1 + 1j, 0 + 5j, 2 + 0j], np.complex64))
    q = np.array([1 + 1j, 1 + 1.5j, 3 + 0j], np.complex64)
    got = tnp.searchsorted(tnp.asarray(c), tnp.asarray(q), side="right", method=method)
    np.testing.assert_array_equal(np.asarray(got), np.searchsorted(c, q, side="right"))


SPECIAL_PARTS = [-1.5, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan, -np.nan]


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.sampled_from(SPECIAL_PARTS), max_size=10),
    st.sampled_from([np.float32, np.float16]),
)
def test_sort_argsort_of_special_floats_match_numpy_stable(
    values: list[float], dtype: type[np.floating[Any]]
) -> None:
    # -0.0 equals 0.0 and NaNs of either sign are equal and last, so the stable
    # sort's permutation, and the sorted values bit for bit, are NumPy's.
    x = np.array(values, dtype)
    got = np.asarray(tnp.argsort(tnp.asarray(x)))
    np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))
    got_sorted = np.asarray(tnp.sort(tnp.asarray(x)))
    np.testing.assert_array_equal(_bits(got_sorted), _bits(np.sort(x, kind="stable")))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(SPECIAL_PARTS), st.sampled_from(SPECIAL_PARTS)), max_size=10)
)
def test_sort_argsort_of_complex_match_numpy_lexicographic(
    parts: list[tuple[float, float]],
) -> None:
    x = np.array([complex(re, im) for re, im in parts], np.complex64)
    # Real part, then imaginary part, each with NumPy's float order.
    want = np.lexsort((x.imag, x.real))
    got = np.asarray(tnp.argsort(tnp.asarray(x)))
    np.testing.assert_array_equal(got, want)
    got_sorted = np.asarray(tnp.sort(tnp.asarray(x)))
    np.testing.assert_array_equal(
        _bits(got_sorted.view(np.float32)), _bits(x[want].view(np.float32))
    )
    if not (~np.isnan(x.real) & np.isnan(x.imag)).any():
        # NumPy's own complex order puts ``r + nan j`` after every number with both
        # parts defined; without such entries it is the lexicographic order.
        np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_nanargmin_nanargmax_match_numpy_with_minus_one_for_all_nan(
    axis: int | None, keepdims: bool
) -> None:
    for tfn, nfn in ((tnp.nanargmin, np.nanargmin), (tnp.nanargmax, np.nanargmax)):
        got = np.asarray(tfn(tnp.asarray(XN), axis=axis, keepdims=keepdims))
        if axis == 1:
            rows = [nfn(r) if not np.isnan(r).all() else -1 for r in XN]
            want = np.array(rows).reshape((4, 1) if keepdims else (4,))
        else:
            want = nfn(XN, axis=axis, keepdims=keepdims)
        np.testing.assert_array_equal(got, want)
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert np.asarray(tnp.nanargmax(tnp.asarray(i), axis=1)).tolist() == [2, 2]


VECTOR_ORDS = [None, 2, 1, 0, 3, 0.5, np.inf, -np.inf, -1]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms_match_numpy(ord: Any) -> None:
    _close(tnp.linalg.norm(tnp.asarray(X), ord=ord, axis=1), np.linalg.norm(X, ord=ord, axis=1))
    v = X[0]
    _close(tnp.linalg.norm(tnp.asarray(v), ord=ord), np.linalg.norm(v, ord=ord))


@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("axis", [None, (1, 0), (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms_match_numpy(ord: Any, axis: Any, keepdims: bool) -> None:
    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    if axis is None:
        x = x[:, :, 0]
    got = tnp.linalg.norm(tnp.asarray(x), ord=ord, axis=axis, keepdims=keepdims)
    _close(got, np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims))


def test_norm_of_complex_and_int_and_any_rank() -> None:
    c = np.array([3 + 4j, 1 - 1j], np.complex64)
    got = tnp.linalg.norm(tnp.asarray(c))
    assert np.asarray(got).dtype == np.float32
    _close(got, np.linalg.norm(c))
    i = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    _close(tnp.linalg.norm(tnp.asarray(i)), np.linalg.norm(i.astype(np.float64)))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_singular_value_norms_match_numpy(ord: Any, keepdims: bool) -> None:
    _close(tnp.linalg.norm(tnp.asarray(X), ord=ord), np.linalg.norm(X, ord=ord))
    x3 = np.stack([X, X * X - 1, X[::-1] + 0.5])  # full rank along every pair of axes
    for axis in ((1, 2), (2, 0)):
        got = tnp.linalg.norm(tnp.asarray(x3), ord=ord, axis=axis, keepdims=keepdims)
        _close(got, np.linalg.norm(x3, ord=ord, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize(
    ("name", "value", "text"),
    [
        ("float32", 3, "Array(3., dtype=float32)"),
        ("int32", 3.7, "Array(3, dtype=int32)"),
        ("uint8", 7, "Array(7, dtype=uint8)"),
        ("bool_", 2, "Array(True, dtype=bool)"),
        ("float16", [1, 2], "Array([1., 2.], dtype=float16)"),
        ("bfloat16", 1.5, "Array(1.5, dtype=bfloat16)"),
    ],
)
def test_scalar_types_construct_arrays(name: str, value: Any, text: str) -> None:
    assert repr(getattr(tnp, name)(value)) == text


def test_scalar_types_are_dtypes() -> None:
    assert np.dtype(tnp.float32) == np.float32
    assert tnp.float32 == np.float32 and hash(tnp.float32) == hash(np.float32)
    assert tnp.zeros(3, tnp.float16).dtype == np.float16
    assert tnp.ones(2).astype(tnp.int8).dtype == np.int8
    assert tnp.asarray(np.ones(2), dtype=tnp.bfloat16).dtype == tnp.bfloat16
    assert tnp.issubdtype(tnp.float32, np.floating)
    assert isinstance(np.float32(1), tnp.float32)
    assert not isinstance(np.float64(1), tnp.float32)
    assert {np.dtype(np.int32): "i"}[np.dtype(tnp.int32)] == "i"
    assert tnp.float32.dtype == np.dtype("float32")
    x = jit(lambda v: tnp.float32(v) * 2)(tnp.asarray(np.arange(3, dtype=np.int32)))
    assert repr(x) == "Array([0., 2., 4.], dtype=float32)"
