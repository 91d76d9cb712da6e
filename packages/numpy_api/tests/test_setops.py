"""nonzero, unique, bincount and the set operations: against NumPy, jit against eager, and JAX golden data."""

from __future__ import annotations

import json
import logging
import pathlib
from typing import Any

import numpy as np
import pytest
import tessela_lowering
import tessela_numpy as tnp
from generate_setops import _arg
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_numpy import _eager
from tessela_tracer import config, jit
from tessela_tracer.errors import ConcretizationTypeError

SETOPS = json.loads((pathlib.Path(__file__).parent / "golden" / "setops.json").read_text())

small = st.sampled_from([-1.0, 0.0, 2.0, 3.5]) | st.just(np.nan)
floats = hnp.arrays(np.float32, st.sampled_from([(6,), (2, 3)]), elements=small)
ints = hnp.arrays(np.int32, st.sampled_from([(0,), (7,)]), elements=st.integers(-1, 6))


tl_put = tessela_lowering.device_put


def _same(got: Any, want: Any) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, equal_nan=True, rtol=1e-6)


def _from_case(out: dict[str, Any]) -> np.ndarray:
    data = [np.nan if v is None else v for v in out["value"]]
    return np.array(data, dtype=out["dtype"]).reshape(out["shape"])


@pytest.mark.parametrize("case", SETOPS["cases"], ids=lambda c: c["fn"])
def test_match_jax_golden(case: dict[str, Any]) -> None:
    got = getattr(tnp, case["fn"])(*(_arg(a) for a in case["args"]), **case["kw"])
    got = tuple(got) if case["tuple"] else (got,)
    assert len(got) == len(case["outputs"])
    for g, want in zip(got, case["outputs"], strict=True):
        assert str(np.asarray(g).dtype) == want["dtype"]
        _same(g, _from_case(want))


@settings(max_examples=8)
@given(floats)
def test_nonzero_matches_numpy_and_jit(x: np.ndarray) -> None:
    for g, w in zip(tnp.nonzero(x), np.nonzero(x), strict=True):
        _same(g, w)
    _same(tnp.flatnonzero(x), np.flatnonzero(x))
    _same(tnp.argwhere(x), np.argwhere(x))
    size = 4
    got = jit(lambda a: tnp.nonzero(a, size=size, fill_value=-1))(x)
    for g, w in zip(got, np.nonzero(x), strict=True):
        want = np.full(size, -1)
        want[: min(size, len(w))] = w[:size]
        _same(g, want)


@settings(max_examples=8)
@given(floats, st.booleans())
def test_unique_matches_numpy_and_jit(x: np.ndarray, equal_nan: bool) -> None:
    kw = {"return_index": True, "return_inverse": True, "return_counts": True}
    got = tnp.unique(x, equal_nan=equal_nan, **kw)
    want = np.unique(x, equal_nan=equal_nan, **kw)
    for g, w in zip(got, want, strict=True):
        _same(g, np.reshape(w, x.shape) if w.size == x.size and g.ndim == x.ndim else w)
    n = len(want[0])
    jitted = jit(lambda a: tnp.unique(a, equal_nan=equal_nan, size=6, fill_value=7.0, **kw))(x)
    _same(jitted[0][:n], want[0])
    _same(jitted[0][n:], np.full(6 - n, 7.0))
    _same(jitted[1][:n], want[1])
    _same(jitted[2], got[2])
    _same(jitted[3], np.concatenate([want[3], np.zeros(6 - n)]))


@settings(max_examples=8)
@given(ints, st.integers(0, 9))
def test_bincount_matches_numpy_and_jit(x: np.ndarray, minlength: int) -> None:
    clipped = np.maximum(x, 0)
    _same(tnp.bincount(x, minlength=minlength), np.bincount(clipped, minlength=minlength))
    w = np.linspace(0, 1, x.size, dtype=np.float32)
    want = np.bincount(clipped, w, minlength=8)[:8]
    _same(jit(lambda a, b: tnp.bincount(a, b, length=8))(x, w), want)


def test_unique_along_axis_matches_numpy() -> None:
    rows = np.array([[3, 1], [0, 2], [3, 1], [0, 1]], np.int32)
    for axis in (0, 1, -1):
        got = tnp.unique(rows, axis=axis, return_index=True, return_counts=True)
        want = np.unique(rows, axis=axis, return_index=True, return_counts=True)
        for g, w in zip(got, want, strict=True):
            _same(g, w)


def test_traced_without_size_raises() -> None:
    x = np.arange(4)
    for f, arg in ((tnp.nonzero, "size"), (tnp.unique, "size"), (tnp.bincount, "length")):
        with pytest.raises(ConcretizationTypeError, match=arg):
            jit(f)(x)
    with pytest.raises(ValueError, match="0d arrays"):
        tnp.nonzero(np.float32(1))
    with pytest.raises(TypeError, match="integer type"):
        tnp.bincount(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="fill_value must be specified"):
        tnp.unique(np.zeros(0), size=2)


SET_OPS = {
    "union1d": (tnp.union1d, np.union1d),
    "intersect1d": (lambda a, b: tnp.intersect1d(a, b, return_indices=True),
                    lambda a, b: np.intersect1d(a, b, return_indices=True)),
    "setdiff1d": (tnp.setdiff1d, np.setdiff1d),
    "setxor1d": (tnp.setxor1d, np.setxor1d),
}  # fmt: skip


def _flat(out: Any) -> list[Any]:
    return list(out) if isinstance(out, tuple) else [out]


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(sorted(SET_OPS)),
    hnp.arrays(np.int32, st.integers(0, 6), elements=st.integers(-2, 4)),
    hnp.arrays(np.int32, st.integers(0, 5), elements=st.integers(-2, 4)),
)
def test_eager_set_operations_match_numpy_and_their_own_steps(
    name: str, a: np.ndarray, b: np.ndarray
) -> None:
    fn, np_fn = SET_OPS[name]
    want = _flat(np_fn(a, b))
    got = _flat(fn(tl_put(a), tl_put(b)))  # one program for the masks
    for g, w in zip(got, want, strict=True):
        _same(g, w)
    saved = _eager.run_compiled  # what run_whole calls
    _eager.run_compiled = lambda *args: None
    try:
        steps = _flat(fn(a, b))  # every step dispatched on its own
    finally:
        _eager.run_compiled = saved
    for g, s in zip(got, steps, strict=True):
        assert g.dtype == s.dtype
        _same(g, s)


def test_eager_intersect1d_compiles_its_masks_as_one_program() -> None:
    a = tl_put(np.array([5, 1, 4, 1, 3, 9, 2, 6, 5, 3, 5], np.int32))  # a length no other test uses
    b = tl_put(np.array([3, 5, 8, 9, 7, 9, 3, 2, 3], np.int32))
    logged: list[str] = []

    class Handler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "Finished XLA compilation" in record.getMessage():
                logged.append(record.getMessage())

    logger, handler = logging.getLogger("tessela_lowering"), Handler()
    before = config.read("jax_log_compiles")
    logger.addHandler(handler)
    config.update("jax_log_compiles", True)
    try:
        values, i1, i2 = tnp.intersect1d(a, b, return_indices=True)
        first = list(logged)
        tnp.intersect1d(a, b, return_indices=True)
    finally:
        config.update("jax_log_compiles", before)
        logger.removeHandler(handler)
    np.testing.assert_array_equal(np.asarray(values), [2, 3, 5, 9])
    np.testing.assert_array_equal(np.asarray(i1), [6, 4, 0, 5])
    np.testing.assert_array_equal(np.asarray(i2), [7, 0, 1, 3])
    assert sum("jit(intersect1d)" in m for m in first) == 1
    assert len(first) <= 4, first  # the masks, then the picks on the host's indices
    assert logged == first  # the second call compiles nothing
