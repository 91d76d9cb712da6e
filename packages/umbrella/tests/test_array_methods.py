"""Array and tracer methods with JAX's signatures, against NumPy; operators without imports.

The twelve methods that forward to ``tessela.numpy`` (argsort, sort, take,
diagonal, searchsorted, nonzero, ptp, trace, view, compress, choose,
argpartition) run on concrete arrays and on tracers; ``item``/``tolist`` give
Python values on arrays and raise JAX's ConcretizationTypeError on tracers.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela.errors import ConcretizationTypeError

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, database=None)

matrices = st.sampled_from([(4,), (2, 5), (3, 2, 4)]).flatmap(
    lambda s: hnp.arrays(np.float32, s, elements=st.integers(-5, 5).map(float))
)


def _same(got: Any, want: Any) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def test_operators_on_a_jvp_tracer_work_without_importing_the_numpy_layer() -> None:
    script = textwrap.dedent(
        """
        import sys
        import tessela_autodiff
        import tessela_lowering
        assert "tessela_numpy" not in sys.modules and "tessela" not in sys.modules
        primal, tangent = tessela_autodiff.jvp(lambda x: x * x, (3.0,), (1.0,))
        print(float(primal), float(tangent), "tessela_numpy" in sys.modules)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["9.0", "6.0", "True"]


JAX_SIGNATURES = {
    "argpartition": "(self, kth, axis=-1)",
    "argsort": "(self, axis=-1, *, kind=None, order=None, stable=True, descending=False)",
    "choose": "(self, choices, out=None, mode='raise')",
    "compress": "(self, condition, axis=None, *, out=None, size=None, fill_value=0)",
    "diagonal": "(self, offset=0, axis1=0, axis2=1)",
    "nonzero": "(self, *, fill_value=None, size=None)",
    "ptp": "(self, axis=None, out=None, keepdims=False)",
    "searchsorted": "(self, v, side='left', sorter=None, *, method='scan')",
    "sort": "(self, axis=-1, *, kind=None, order=None, stable=True, descending=False)",
    "take": (
        "(self, indices, axis=None, out=None, mode=None, unique_indices=False, "
        "indices_are_sorted=False, fill_value=None)"
    ),
    "trace": "(self, offset=0, axis1=0, axis2=1, dtype=None, out=None)",
    "view": "(self, dtype=None, type=None)",
}


@pytest.mark.parametrize("name", sorted(JAX_SIGNATURES))
def test_methods_have_jax_signatures(name: str) -> None:
    method = getattr(tnp.ndarray, name)
    sig = inspect.signature(method).replace(return_annotation=inspect.Signature.empty)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    assert str(sig.replace(parameters=params)) == JAX_SIGNATURES[name]
    assert method.__doc__


@SETTINGS
@given(matrices, st.booleans())
def test_sort_and_argsort_match_numpy(x: np.ndarray, descending: bool) -> None:
    a = tnp.asarray(x)
    for axis in (-1, 0, None):
        want = np.sort(x, axis=axis, kind="stable")
        if descending:
            want = np.flip(want, axis=-1 if axis is None else axis)
        _same(a.sort(axis, descending=descending), want)
        idx = np.argsort(-x if descending else x, axis=axis, kind="stable")
        _same(a.argsort(axis, descending=descending), idx.astype(np.int32))
    _same(tx.jit(lambda v: v.argsort())(x), np.argsort(x, kind="stable").astype(np.int32))


@SETTINGS
@given(matrices, st.data())
def test_take_matches_numpy(x: np.ndarray, data: st.DataObject) -> None:
    axis = data.draw(st.sampled_from([None, 0, -1]))
    n = x.size if axis is None else x.shape[axis]
    idx = data.draw(hnp.arrays(np.int32, (3,), elements=st.integers(-n, n - 1)))
    _same(tnp.asarray(x).take(idx, axis), np.take(x, idx, axis))
    _same(tx.jit(lambda v, i: v.take(i, axis))(x, idx), np.take(x, idx, axis))
    wide = idx * 3
    _same(tnp.asarray(x).take(wide, axis, mode="clip"), np.take(x, wide, axis, mode="clip"))


@SETTINGS
@given(matrices.filter(lambda x: x.ndim >= 2), st.integers(-3, 3))
def test_diagonal_and_trace_match_numpy(x: np.ndarray, offset: int) -> None:
    for axis1, axis2 in ((0, 1), (1, 0), (-1, 0)):
        want = np.diagonal(x, offset, axis1, axis2)
        _same(tnp.asarray(x).diagonal(offset, axis1, axis2), want)
        _same(tnp.asarray(x).trace(offset, axis1, axis2), np.trace(x, offset, axis1, axis2))
    _same(tx.jit(lambda v: v.diagonal(offset))(x), np.diagonal(x, offset))


@SETTINGS
@given(hnp.arrays(np.float32, (6,), elements=st.integers(-4, 4).map(float)), st.data())
def test_searchsorted_matches_numpy(x: np.ndarray, data: st.DataObject) -> None:
    a = np.sort(x)
    v = data.draw(hnp.arrays(np.float32, (4,), elements=st.integers(-5, 5).map(float)))
    for side in ("left", "right"):
        want = np.searchsorted(a, v, side).astype(np.int32)
        _same(tnp.asarray(a).searchsorted(v, side), want)
        _same(tnp.asarray(a).searchsorted(v, side, method="sort"), want)
    sorter = np.argsort(x, kind="stable")
    want = np.searchsorted(x, v, sorter=sorter).astype(np.int32)
    _same(tnp.asarray(x).searchsorted(v, sorter=sorter), want)


@SETTINGS
@given(matrices)
def test_nonzero_matches_numpy(x: np.ndarray) -> None:
    got = tnp.asarray(x).nonzero()
    want = np.nonzero(x)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        _same(g, w.astype(np.int32))
    size = x.size
    padded = tx.jit(lambda v: v.nonzero(size=size, fill_value=-1))(x)
    for g, w in zip(padded, want, strict=True):
        _same(np.asarray(g)[: len(w)], w.astype(np.int32))
        assert (np.asarray(g)[len(w) :] == -1).all()


@SETTINGS
@given(matrices, st.booleans())
def test_ptp_matches_numpy(x: np.ndarray, keepdims: bool) -> None:
    for axis in (None, 0, -1):
        _same(tnp.asarray(x).ptp(axis, keepdims=keepdims), np.ptp(x, axis, keepdims=keepdims))
    _same(tx.jit(lambda v: v.ptp())(x), np.ptp(x))


VIEW_DTYPES = [np.uint8, np.int8, np.int16, np.float16, np.int32, np.float32, np.uint32, bool]


@SETTINGS
@given(hnp.arrays(np.uint8, (2, 8), elements=st.integers(0, 255)), st.data())
def test_view_matches_numpy_bit_for_bit(raw: np.ndarray, data: st.DataObject) -> None:
    src = data.draw(st.sampled_from(VIEW_DTYPES[:-1]))
    dst = data.draw(st.sampled_from(VIEW_DTYPES))
    x = raw.view(src)
    # JAX reads any nonzero byte as True
    want = x.view(np.uint8) != 0 if dst is bool else x.view(dst)
    got = np.asarray(tnp.asarray(x).view(dst))
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    traced = np.asarray(tx.jit(lambda v: v.view(dst))(x))
    assert traced.tobytes() == want.tobytes()


def test_view_complex_bool_and_scalars_match_numpy() -> None:
    c = np.array([1 + 2j, -3 - np.inf * 1j], np.complex64)
    _same(tnp.asarray(c).view(np.float32), c.view(np.float32))
    f = np.array([[0.0, 1.0, np.inf, -2.0]], np.float32)
    _same(tnp.asarray(f).view(np.complex64), f.view(np.complex64))
    b = np.array([True, False, True, True])
    _same(tnp.asarray(b).view(np.int8), b.view(np.int8))
    _same(tnp.asarray(np.float32(1.5)).view(np.int32), np.float32(1.5).view(np.int32))
    _same(tnp.asarray(f).view(), f)
    with pytest.raises(ValueError, match="0d array"):
        tnp.asarray(np.float32(1.5)).view(np.int8)
    with pytest.raises(ValueError, match="divisor"):
        tnp.asarray(np.zeros(3, np.int8)).view(np.int16)


@SETTINGS
@given(matrices, st.data())
def test_compress_matches_numpy(x: np.ndarray, data: st.DataObject) -> None:
    axis = data.draw(st.sampled_from([None, 0, -1]))
    n = x.size if axis is None else x.shape[axis]
    cond = data.draw(hnp.arrays(np.bool_, (n,)))
    _same(tnp.asarray(x).compress(cond, axis), np.compress(cond, x, axis))
    k = int(cond.sum())
    got = tx.jit(lambda v, c: v.compress(c, axis, size=k))(x, cond)
    _same(got, np.compress(cond, x, axis))


@SETTINGS
@given(hnp.arrays(np.int32, (2, 3), elements=st.integers(-4, 4)))
def test_choose_matches_numpy(idx: np.ndarray) -> None:
    choices = [
        np.full((2, 3), 10.0 * k, np.float32) + np.arange(3, dtype=np.float32) for k in range(3)
    ]
    for mode in ("wrap", "clip"):
        _same(tnp.asarray(idx).choose(choices, mode=mode), idx.choose(choices, mode=mode))
    ok = np.clip(idx, 0, 2)
    _same(tnp.asarray(ok).choose(choices), ok.choose(choices))


@SETTINGS
@given(hnp.arrays(np.float32, (3, 7), elements=st.integers(-9, 9).map(float)), st.integers(0, 6))
def test_argpartition_partitions_like_numpy(x: np.ndarray, kth: int) -> None:
    idx = np.asarray(tnp.asarray(x).argpartition(kth))
    assert (np.sort(idx, axis=-1) == np.arange(7)).all()  # a permutation of each row
    part = np.take_along_axis(x, idx, -1)
    pivot = np.sort(x, axis=-1)[:, kth : kth + 1]
    assert (part[:, kth : kth + 1] == pivot).all()
    assert (part[:, :kth] <= pivot).all() and (part[:, kth + 1 :] >= pivot).all()
    want = np.take_along_axis(x, np.argpartition(x, kth), -1)[:, kth]
    _same(part[:, kth], want)


def test_item_and_tolist_give_python_values_on_arrays() -> None:
    x = np.array([[1.5, -2.0], [3.0, 4.25]], np.float32)
    a = tnp.asarray(x)
    assert a.tolist() == x.tolist() and a.item(3) == x.item(3) == 4.25
    assert type(a.item(1, 0)) is float
    assert tnp.asarray(np.int32(7)).item() == 7 and type(tnp.asarray(np.int32(7)).item()) is int
    assert tnp.asarray(True).item() is True
    assert tnp.asarray(np.complex64(1 + 2j)).tolist() == 1 + 2j


@pytest.mark.parametrize("method", ["item", "tolist"])
def test_item_and_tolist_on_tracers_raise_concretization_errors(method: str) -> None:
    def f(x: Any) -> Any:
        getattr(x, method)()
        return x

    # Under grad the primal is concrete: item() gives it, as in JAX; tolist() never does.
    transforms = (tx.jit, tx.vmap) if method == "item" else (tx.jit, tx.grad, tx.vmap)
    for transform in transforms:
        with pytest.raises(ConcretizationTypeError, match=rf"{method}\(\) method.*static"):
            transform(f)(np.ones(3, np.float32) if transform is tx.vmap else 2.0)


def test_methods_on_tracers_differentiate() -> None:
    x = np.array([3.0, 1.0, 2.0], np.float32)
    g = tx.grad(lambda v: (v.sort() * np.arange(3.0, dtype=np.float32)).sum())(x)
    _same(g, np.array([2.0, 0.0, 1.0], np.float32))
    g = tx.grad(lambda v: v.ptp())(x)
    _same(g, np.array([1.0, -1.0, 0.0], np.float32))


@pytest.mark.parametrize("transform", [lambda f: f, tx.jit, tx.vmap, tx.grad])
def test_array_namespace_is_tessela_numpy_on_arrays_and_tracers(transform: Any) -> None:
    seen: list[object] = []

    def f(x: Any) -> Any:
        seen.append(x.__array_namespace__(api_version="2024.12"))
        return (x * 2.0).sum()

    transform(f)(tnp.ones(3))
    assert seen == [tnp]
    with pytest.raises(ValueError, match=r"pass None or '2024\.12'"):
        tnp.ones(2).__array_namespace__(api_version="2022.12")
