"""polygamma and zeta: JAX's dtype, weak-type and broadcasting rules, and its errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import eval_shape, lax, make_jaxpr
from tessela_tracer import primitives as P

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
OPS: list[Callable[[Any, Any], Any]] = [lax.polygamma, lax.zeta]


def _out(fn: Callable[..., Any], *args: Any) -> Any:
    (aval,) = make_jaxpr(fn)(*args).out_avals
    return aval


@pytest.mark.parametrize("fn", OPS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, ml_dtypes.bfloat16])
def test_result_has_the_operands_dtype(fn: Callable[..., Any], dtype: Any) -> None:
    aval = _out(fn, np.ones(3, dtype), np.ones(3, dtype))
    assert (aval.shape, aval.dtype, aval.weak_type) == ((3,), np.dtype(dtype), False)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("fn", OPS)
def test_float64_under_x64(fn: Callable[..., Any]) -> None:
    aval = _out(fn, np.ones(2), 1.5)
    assert (aval.dtype, aval.weak_type) == (np.float64, False)


@pytest.mark.parametrize("fn", OPS)
def test_weak_only_when_both_operands_are(fn: Callable[..., Any]) -> None:
    assert _out(fn, 1.0, 2.0).weak_type
    assert not _out(fn, np.float32(1.0), 2.0).weak_type
    assert not _out(fn, 1.0, np.float32(2.0)).weak_type


@pytest.mark.parametrize("fn", OPS)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    ones=st.lists(st.booleans(), min_size=3, max_size=3),
    scalar=st.sampled_from([None, 0, 1]),
)
@SETTINGS
def test_shapes_broadcast_as_binary_lax_ops(
    fn: Callable[..., Any], shape: list[int], ones: list[bool], scalar: int | None
) -> None:
    a_shape = tuple(1 if o else d for d, o in zip(shape, ones, strict=False))
    args = [np.ones(a_shape, np.float32), np.ones(shape, np.float32)]
    if scalar is not None:
        args[scalar] = np.float32(2.0)
    want = np.broadcast_shapes(*(np.shape(a) for a in args))
    assert eval_shape(fn, *args).shape == want
    assert _out(lax.add, *args).shape == _out(fn, *args).shape


@pytest.mark.parametrize(("fn", "name"), [(lax.polygamma, "polygamma"), (lax.zeta, "zeta")])
@pytest.mark.parametrize("dtype", [np.int32, np.complex64, np.bool_])
def test_non_real_float_operands_are_rejected(
    fn: Callable[..., Any], name: str, dtype: Any
) -> None:
    x = np.ones(2, dtype)
    with pytest.raises(TypeError, match=rf"{name} does not accept dtype {np.dtype(dtype).name}"):
        make_jaxpr(fn)(x, x)


@pytest.mark.parametrize(("fn", "name"), [(lax.polygamma, "polygamma"), (lax.zeta, "zeta")])
def test_mixed_dtypes_are_rejected(fn: Callable[..., Any], name: str) -> None:
    with pytest.raises(TypeError, match=rf"lax.{name} requires arguments to have the same dtypes"):
        make_jaxpr(fn)(np.float32(1.0), np.float16(2.0))


def test_incompatible_shapes_are_rejected() -> None:
    with pytest.raises(TypeError, match="incompatible shapes"):
        make_jaxpr(lax.zeta)(np.ones(2, np.float32), np.ones(3, np.float32))


def test_wrappers_bind_their_primitives() -> None:
    jaxpr = make_jaxpr(lambda m, x: lax.zeta(lax.polygamma(m, x), x))(1.0, 2.0).jaxpr
    assert [e.primitive for e in jaxpr.eqns] == [P.polygamma_p, P.zeta_p]
