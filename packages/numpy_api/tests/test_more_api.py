"""Set operations, edits, bit packing, polynomials, N-D histograms, index tricks and the
``linalg`` helpers: against JAX 0.10.2 golden data, NumPy, and under ``jit``."""

from __future__ import annotations

import io
import json
import pathlib
from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from generate_more import call
from generate_setops import _arg
from tessela_tracer import jit
from tessela_tracer.errors import ConcretizationTypeError

MORE = json.loads((pathlib.Path(__file__).parent / "golden" / "more.json").read_text())


def _want(out: dict[str, Any]) -> np.ndarray:
    if out["dtype"].startswith("complex"):
        data = [complex(re, im) for re, im in out["value"]]
    else:
        data = [np.nan if v is None else v for v in out["value"]]
    return np.array(data, dtype=out["dtype"]).reshape(out["shape"])


def _flat(r: Any) -> list[Any]:
    flat: list[Any] = []
    for e in r if isinstance(r, tuple | list) else [r]:
        flat.extend(e if isinstance(e, list) else [e])
    return flat


@pytest.mark.parametrize("case", MORE["cases"], ids=lambda c: c["fn"])
def test_match_jax_golden(case: dict[str, Any]) -> None:
    got = _flat(call(tnp, case))
    assert len(got) == len(case["outputs"])
    for g, out in zip(got, case["outputs"], strict=True):
        want = _want(out)
        g = np.asarray(g)
        assert (str(g.dtype), g.shape) == (str(want.dtype), want.shape)
        np.testing.assert_allclose(g, want, rtol=2e-5, atol=2e-5, equal_nan=True)


@pytest.mark.parametrize("fn", ["intersect1d", "setdiff1d", "setxor1d", "union1d"])
def test_setops_match_numpy_and_run_under_jit(fn: str) -> None:
    rng = np.random.RandomState(0)
    f = jit(lambda x, y: getattr(tnp, fn)(x, y, size=12, fill_value=-1))
    for _ in range(3):
        a = rng.randint(0, 8, size=7).astype(np.int32)
        b = rng.randint(0, 8, size=5).astype(np.int32)
        want = getattr(np, fn)(a, b)
        got = f(a, b)
        np.testing.assert_array_equal(got[: len(want)], want)
        np.testing.assert_array_equal(got[len(want) :], -1)
    np.testing.assert_array_equal(getattr(tnp, fn)(a, b), want)


def test_setops_without_size_need_concrete_values() -> None:
    with pytest.raises(ConcretizationTypeError, match="size="):
        jit(tnp.intersect1d)(np.arange(3), np.arange(2))


def test_delete_insert_match_numpy() -> None:
    x = np.arange(20).reshape(4, 5)
    for obj, axis in [(2, 0), (-1, 1), (slice(1, None, 2), 1), ([0, 3], 0), ([1, 1], None)]:
        idx = obj if not isinstance(obj, list) else np.array(obj)
        np.testing.assert_array_equal(tnp.delete(x, idx, axis=axis), np.delete(x, obj, axis=axis))
    for obj, vals, axis in [(2, 0, 0), (0, np.array([9, 8, 7, 6]), 1), (slice(None), -1, None)]:
        want = np.insert(x, obj, vals, axis=axis)
        np.testing.assert_array_equal(tnp.insert(x, obj, vals, axis=axis), want)
    with pytest.raises(ValueError, match="integer or bool"):
        tnp.delete(x, np.array([0.5]))
    with pytest.raises(ValueError, match="integer typed"):
        tnp.insert(x, np.array([0.5]), 1)


def test_place_and_mask_indices() -> None:
    with pytest.raises(ValueError, match="in-place"):
        tnp.place(np.zeros(3), np.ones(3, bool), 1.0)
    i, j = tnp.mask_indices(4, tnp.tril, -1)
    wi, wj = np.mask_indices(4, np.tril, -1)
    np.testing.assert_array_equal(i, wi)
    np.testing.assert_array_equal(j, wj)


def test_bits_roundtrip_and_numpy() -> None:
    bits = np.random.RandomState(1).randint(0, 2, size=(3, 13)).astype(np.uint8)
    for axis in (None, 0, 1):
        for order in ("big", "little"):
            packed = tnp.packbits(bits, axis=axis, bitorder=order)
            np.testing.assert_array_equal(packed, np.packbits(bits, axis=axis, bitorder=order))
            want = np.unpackbits(np.asarray(packed), axis=axis, bitorder=order)
            got = tnp.unpackbits(packed, axis=axis, bitorder=order)
            np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="unsigned byte"):
        tnp.unpackbits(np.array([1], np.int32))
    with pytest.raises(TypeError, match="integer or boolean"):
        tnp.packbits(np.array([1.0]))


def test_polyfit_matches_numpy_and_poly_of_matrix_is_refused() -> None:
    x = np.linspace(-1, 1, 9)
    y = 3 * x**3 - x + 0.5
    np.testing.assert_allclose(tnp.polyfit(x, y, 3), np.polyfit(x, y, 3), atol=1e-4)
    with pytest.raises(NotImplementedError, match="eigvals"):
        tnp.poly(np.eye(2))
    with pytest.raises(ValueError, match="deg >= 0"):
        tnp.polyfit(x, y, -1)


def test_histogramdd_matches_numpy() -> None:
    s = np.random.RandomState(2).rand(40, 3).astype(np.float32)
    hist, edges = tnp.histogramdd(s, bins=(2, 3, 4))
    want, want_edges = np.histogramdd(s, bins=(2, 3, 4))
    np.testing.assert_array_equal(hist, want)
    for g, w in zip(edges, want_edges, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_lstsq_matches_numpy_and_jit() -> None:
    rng = np.random.RandomState(3)
    a, b = rng.randn(7, 4).astype(np.float32), rng.randn(7, 2).astype(np.float32)
    x, resid, rank, s = jit(tnp.linalg.lstsq)(a, b)
    wx, wresid, wrank, ws = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(x, wx, atol=1e-4)
    np.testing.assert_allclose(resid, wresid, rtol=1e-4)
    assert int(rank) == wrank and str(rank.dtype) == "int32"
    np.testing.assert_allclose(s, ws, rtol=1e-5)
    with pytest.raises(ValueError, match="Leading dimensions"):
        tnp.linalg.lstsq(a, b[:3])


def test_linalg_helpers_refuse_bad_shapes() -> None:
    with pytest.raises(ValueError, match="one-dimensional"):
        tnp.linalg.outer(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        tnp.linalg.cross(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        tnp.linalg.matrix_transpose(np.ones(2))
    with pytest.raises(ValueError, match="at least two arrays"):
        tnp.linalg.multi_dot([np.ones((2, 2))])
    with pytest.raises(ValueError, match="must match"):
        tnp.linalg.tensorinv(np.ones((2, 3)), ind=1)


def test_index_tricks_and_host_io() -> None:
    np.testing.assert_array_equal(tnp.r_[np.array([1, 2]), 3:6], np.r_[np.array([1, 2]), 3:6])
    np.testing.assert_array_equal(tnp.c_[np.ones(2), np.zeros(2)], np.c_[np.ones(2), np.zeros(2)])
    np.testing.assert_allclose(tnp.mgrid[0:1:4j, 0:3], np.mgrid[0:1:4j, 0:3], rtol=1e-6)
    with pytest.raises(ValueError, match="beginning"):
        tnp.r_[np.ones(1), "r"]
    buf = io.BytesIO()
    tnp.save(buf, np.arange(4, dtype=np.int16))
    buf.seek(0)
    loaded = tnp.load(buf)
    assert isinstance(loaded, tnp.ndarray) and str(loaded.dtype) == "int16"
    assert tnp.frombuffer(b"\x01\x00\x02\x00", dtype=np.int16).tolist() == [1, 2]
    assert tnp.fromstring("1,2,3", dtype=np.int32, sep=",").tolist() == [1, 2, 3]
    assert tnp.from_dlpack(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
    for fn in (tnp.fromiter, tnp.fromfile):
        with pytest.raises(NotImplementedError, match="non-pure"):
            fn(iter([1]), int)
    assert tnp.array_str(tnp.arange(3)) == "[0 1 2]"
    with tnp.printoptions(precision=2):
        assert tnp.array_repr(np.array([1 / 3])) == "array([0.33])"


def test_einsum_path_and_apply_over_axes() -> None:
    ops = [np.ones((2, 30)), np.ones((30, 40)), np.ones((40, 2))]
    path, text = tnp.einsum_path("ij,jk,kl->il", *ops, optimize="greedy")
    assert path == [
        tuple(p) for p in np.einsum_path("ij,jk,kl->il", *ops, optimize="greedy")[0][1:]
    ]
    assert "Optimized" in text
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(
        tnp.apply_over_axes(tnp.sum, x, [0, 2]), np.apply_over_axes(np.sum, x, [0, 2])
    )


def test_narrow_dtype_names() -> None:
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                 "float8_e4m3b11fnuz", "int4", "uint4"):  # fmt: skip
        assert np.dtype(getattr(tnp, name)).name == name
    out = tnp.float8_e4m3fn(1.5)
    assert str(out.dtype) == "float8_e4m3fn" and float(out) == 1.5


def test_more_names_are_exported() -> None:
    for name in ("intersect1d", "r_", "mgrid", "packbits", "polyfit", "histogramdd", "int4"):
        assert name in tnp.__all__
    for name in ("lstsq", "matrix_norm", "tensorsolve", "multi_dot", "vecdot"):
        assert name in tnp.linalg.__all__
    _ = _arg


def test_fromfunction_matches_jax() -> None:
    # JAX 0.10.2: [[0, 10, 20], [1, 11, 21]] (int32); eye-like booleans; float32 by default.
    got = tnp.fromfunction(lambda i, j: i + 10 * j, (2, 3), dtype=int)
    assert str(got.dtype) == "int32"
    np.testing.assert_array_equal(got, [[0, 10, 20], [1, 11, 21]])
    np.testing.assert_array_equal(
        tnp.fromfunction(lambda i, j: i == j, (2, 2)), np.eye(2, dtype=bool)
    )
    out = tnp.fromfunction(lambda i: i * 2.5, (3,))
    assert str(out.dtype) == "float32" and out.tolist() == [0.0, 2.5, 5.0]
