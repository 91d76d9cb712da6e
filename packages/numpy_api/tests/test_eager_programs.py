"""Eager binary functions and reductions run as one compiled program per signature.

Outside any trace, a binary function whose operands need promotion or
broadcasting, and a reduction without ``where``/``initial``, call a jitted
program instead of dispatching each step. These tests pin what a caller sees
at that boundary: the result's type is the traced path's (``result_type``),
values equal NumPy's in that dtype, each call compiles once per signature,
and the traced path (under ``make_jaxpr``) is unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_numpy import _reductions
from tessela_tracer import make_jaxpr

DTYPES = ["bool", "int8", "uint8", "int32", "float16", "float32", "complex64"]
KINDS = ["python", "numpy_scalar", "numpy_array", "array"]
OPS = ["add", "multiply", "subtract", "maximum"]


def _operand(kind: str, dtype: str, value: int) -> Any:
    if kind == "python":
        py = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[np.dtype(dtype).kind]
        return py(value)
    host = np.full((2, 3) if kind != "numpy_scalar" else (), value, dtype)
    if kind == "numpy_scalar":
        return host[()]
    return tl.device_put(host) if kind == "array" else host


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.sampled_from(OPS),
    st.sampled_from(KINDS),
    st.sampled_from(DTYPES),
    st.sampled_from(KINDS),
    st.sampled_from(DTYPES),
    st.integers(0, 3),
    st.integers(0, 3),
)
def test_binary_results_follow_result_type_and_numpy(
    op: str, k1: str, d1: str, k2: str, d2: str, v1: int, v2: int
) -> None:
    if op == "subtract" and "bool" in (d1, d2):
        return  # NumPy and JAX refuse bool subtraction; test_rejects covers it
    if op == "maximum" and "complex64" in (d1, d2):
        return
    x, y = _operand(k1, d1, v1), _operand(k2, d2, v2)
    fn = getattr(tnp, op)
    out = fn(x, y)
    # The traced path (no nested program) is the oracle for shape and dtype,
    # with the operands as the function's constants.
    traced = make_jaxpr(lambda: fn(x, y))().out_avals[0]
    assert (out.shape, out.dtype) == (traced.shape, traced.dtype)
    if "python" not in (k1, k2):
        assert not out.aval.weak_type
    elif k1 == k2 == "python" and out.dtype != np.bool_:
        assert out.aval.weak_type
    expected_dtype = tnp.result_type(x, y)
    assert out.dtype == expected_dtype
    as_np = [np.asarray(v, expected_dtype) for v in (x, y)]
    np.testing.assert_array_equal(np.asarray(out), getattr(np, op)(*as_np))


def test_a_python_int_wraps_into_a_narrow_dtype_as_in_jax() -> None:
    # JAX converts the weakly typed int at the program's edge: int8 1 + 300 is 45.
    out = tnp.add(tl.device_put(np.ones(3, np.int8)), 300)
    assert out.dtype == np.int8 and np.asarray(out).tolist() == [45, 45, 45]
    with pytest.raises(OverflowError):
        tnp.add(tl.device_put(np.ones(3, np.int8)), 2**40)


@pytest.mark.parametrize(
    "kwargs", [{}, {"axis": 0}, {"axis": (0, 1), "keepdims": True}, {"dtype": "int32"}]
)
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "any", "all"])
def test_eager_reductions_equal_numpy(name: str, kwargs: dict[str, Any]) -> None:
    if name in ("max", "min", "any", "all") and "dtype" in kwargs:
        return
    host = np.arange(6, dtype=np.int8).reshape(2, 3)
    out = getattr(tnp, name)(tl.device_put(host), **kwargs)
    want = getattr(np, name)(host.astype(np.int32) if name in ("sum", "prod") else host, **kwargs)
    assert out.shape == want.shape
    np.testing.assert_array_equal(np.asarray(out), want)


def test_each_reduction_signature_compiles_once() -> None:
    x = tl.device_put(np.ones((4, 5), np.float32))
    sizes = []
    for _ in range(3):
        tnp.sum(x, axis=1)
        tnp.sum(x, axis=(0,), keepdims=True)
        tnp.max(x)
        tnp.mean(x, axis=0)
        tnp.argmax(x, axis=1)
        sizes.append(len(_reductions._EAGER))
    assert sizes[0] == sizes[1] == sizes[2]
    assert {("sum", 1, None, False), ("mean", 0, None, False)} <= set(_reductions._EAGER)
    np.testing.assert_array_equal(np.asarray(tnp.argmax(x, axis=1)), np.zeros(4, np.int32))
    np.testing.assert_array_equal(np.asarray(tnp.mean(x, axis=0)), np.ones(5, np.float32))
    # An unhashable axis takes the op-by-op path, with its own checks.
    np.testing.assert_array_equal(np.asarray(tnp.sum(x, axis=[0, 1])), 20.0)


def test_the_traced_path_is_unchanged() -> None:
    # Under a trace no nested program appears: the jaxpr has the primitives.
    text = str(make_jaxpr(lambda a: tnp.sum(a * 2.0))(np.ones(3, np.float32)))
    assert "jit" not in text and "pjit" not in text
    assert "reduce_sum" in text and "mul" in text


@pytest.mark.parametrize(
    "sa,sb",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((5, 2, 3), (3, 4)), ((1, 2, 3), (4, 3, 2))],
)
def test_eager_matmul_equals_numpy(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    for x, y in [(a, b), (tl.device_put(a), b), (tl.device_put(a), tl.device_put(b))]:
        out = tnp.matmul(x, y, precision="highest")
        assert out.shape == want.shape and out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="rank >= 1"):
        tnp.matmul(tl.device_put(a), 2.0)


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": 1, "ddof": 1}, {"keepdims": True}])
@pytest.mark.parametrize("name", ["var", "std"])
def test_eager_moments_equal_numpy(name: str, kwargs: dict[str, Any]) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5
    out = getattr(tnp, name)(tl.device_put(host), **kwargs)
    want = getattr(np, name)(host.astype(np.float64), **kwargs)
    assert out.shape == want.shape and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5)
