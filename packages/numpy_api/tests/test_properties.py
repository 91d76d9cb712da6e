"""Property tests: traced results have NumPy's shapes; operators and methods agree with functions."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr

shapes = st.lists(st.integers(1, 4), max_size=3).map(tuple)
dtypes = st.sampled_from(["bool", "int8", "uint8", "int32", "float16", "float32"])

BINARY_OPS: list[tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = [
    (operator.add, tnp.add),
    (operator.sub, tnp.subtract),
    (operator.mul, tnp.multiply),
    (operator.truediv, tnp.true_divide),
    (operator.lt, tnp.less),
    (operator.eq, tnp.equal),
    (operator.and_, tnp.bitwise_and),
    (operator.floordiv, tnp.floor_divide),
]


def _sds(shape: tuple[int, ...], dtype: str) -> ShapeDtypeStruct:
    return ShapeDtypeStruct(shape, np.dtype(dtype))


@settings(max_examples=60, deadline=None)
@given(shapes, shapes, dtypes, dtypes, st.sampled_from(range(len(BINARY_OPS))))
def test_operators_match_functions_and_numpy_shapes(
    s1: tuple[int, ...], s2: tuple[int, ...], d1: str, d2: str, k: int
) -> None:
    op, fn = BINARY_OPS[k]
    try:
        expected_shape = np.broadcast_shapes(s1, s2)
    except ValueError:
        with pytest.raises(TypeError, match="incompatible shapes"):
            eval_shape(fn, _sds(s1, d1), _sds(s2, d2))
        return
    bitwise = fn is tnp.bitwise_and
    if bitwise and any(d.startswith("float") for d in (d1, d2)):
        return
    if fn in (tnp.subtract, tnp.floor_divide) and "bool" in (d1, d2):
        return
    via_op = make_jaxpr(op)(_sds(s1, d1), _sds(s2, d2))
    via_fn = make_jaxpr(fn)(_sds(s1, d1), _sds(s2, d2))
    assert str(via_op) == str(via_fn)
    (out,) = via_fn.out_avals
    assert out.shape == expected_shape
    if fn not in (tnp.less, tnp.equal, tnp.true_divide):
        assert out.dtype == tnp.result_type(np.dtype(d1), np.dtype(d2))


@settings(max_examples=60, deadline=None)
@given(shapes.filter(bool), st.data())
def test_reduction_methods_match_numpy(shape: tuple[int, ...], data: Any) -> None:
    nd = len(shape)
    axis = data.draw(st.none() | st.integers(-nd, nd - 1))
    keepdims = data.draw(st.booleans())
    name = data.draw(st.sampled_from(["sum", "prod", "max", "min", "mean", "std", "all"]))
    expected = getattr(np.ones(shape), name)(axis=axis, keepdims=keepdims).shape
    by_method = eval_shape(
        lambda x: getattr(x, name)(axis=axis, keepdims=keepdims), _sds(shape, "float32")
    )
    by_function = eval_shape(
        lambda x: getattr(tnp, name)(x, axis=axis, keepdims=keepdims), _sds(shape, "float32")
    )
    assert by_method.shape == by_function.shape == expected


@st.composite
def indices(draw: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    out: list[Any] = []
    for d in shape:
        kind = draw(st.sampled_from(["int", "slice", "array", "none", "stop"]))
        if kind == "stop":
            break
        if kind == "int":
            out.append(draw(st.integers(-d, d - 1)))
        elif kind == "slice":
            out.append(
                slice(
                    draw(st.none() | st.integers(-d, d)),
                    draw(st.none() | st.integers(-d, d)),
                    draw(st.none() | st.sampled_from([-2, -1, 1, 2])),
                )
            )
        elif kind == "array":
            ishape = draw(st.lists(st.integers(1, 3), max_size=2).map(tuple))
            out.append(draw(st.integers(-d, d - 1)) * np.ones(ishape, np.int32))
        else:
            out.extend([None, slice(None)])
    return tuple(out)


@settings(max_examples=100, deadline=None)
@given(shapes.filter(bool), st.data())
def test_getitem_shapes_match_numpy(shape: tuple[int, ...], data: Any) -> None:
    idx = data.draw(indices(shape))
    try:
        expected = np.zeros(shape)[idx].shape
    except IndexError:  # integer arrays that do not broadcast together
        with pytest.raises((IndexError, ValueError)):
            eval_shape(lambda x: x[idx], _sds(shape, "float32"))
        return
    assert eval_shape(lambda x: x[idx], _sds(shape, "float32")).shape == expected
    assert eval_shape(lambda x: x.at[idx].get(mode="fill"), _sds(shape, "float32")).shape == (
        expected
    )
    updated = eval_shape(lambda x: x.at[idx].add(1.0), _sds(shape, "float32"))
    assert updated.shape == shape


@settings(max_examples=40, deadline=None)
@given(shapes.filter(bool), st.data())
def test_shape_functions_match_numpy(shape: tuple[int, ...], data: Any) -> None:
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1))
    perm = tuple(data.draw(st.permutations(range(nd))))
    x = np.zeros(shape)
    cases: list[tuple[Callable[[Any, Any], Any], tuple[int, ...]]] = [
        (lambda m, v: m.transpose(v, perm), np.transpose(x, perm).shape),
        (lambda m, v: m.expand_dims(v, axis), np.expand_dims(x, axis).shape),
        (lambda m, v: m.flip(v, axis), x.shape),
        (lambda m, v: m.roll(v, 2, axis), x.shape),
        (lambda m, v: m.moveaxis(v, axis, 0), np.moveaxis(x, axis, 0).shape),
        (lambda m, v: m.repeat(v, 2, axis), np.repeat(x, 2, axis).shape),
        (lambda m, v: m.tile(v, (2,) * nd), np.tile(x, (2,) * nd).shape),
        (lambda m, v: m.concatenate([v, v], axis), np.concatenate([x, x], axis).shape),
        (lambda m, v: m.stack([v, v], axis), np.stack([x, x], axis).shape),
        (lambda m, v: m.cumsum(v, axis), x.shape),
        (lambda m, v: m.argmax(v, axis), np.argmax(x, axis).shape),
        (lambda m, v: m.pad(v, 1), np.pad(x, 1).shape),
    ]
    for build, expected in cases:
        assert eval_shape(lambda v, b=build: b(tnp, v), _sds(shape, "float32")).shape == expected


def test_list_operand_is_not_an_array() -> None:
    with pytest.raises(TypeError, match="unsupported operand"):
        eval_shape(lambda x: operator.add(x, [1, 2, 3]), _sds((3,), "float32"))


def test_methods_are_registered_on_tracers() -> None:
    def f(x: Any) -> Any:
        return x.T.reshape(-1).astype(tnp.int32).at[0].set(3).sum()

    out = eval_shape(f, _sds((2, 3), "float32"))
    assert (out.shape, out.dtype) == ((), np.int32)


def test_var_method_on_tracer() -> None:
    out = eval_shape(lambda x: x.var(axis=0), _sds((2, 3), "float32"))
    assert out.shape == (3,)
    by_method = make_jaxpr(lambda x: x.var(axis=0, ddof=1))(np.ones((2, 3), np.float32))
    by_function = make_jaxpr(lambda x: tnp.var(x, axis=0, ddof=1))(np.ones((2, 3), np.float32))
    assert str(by_method) == str(by_function)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from([1, 2, 3]), max_size=3).map(tuple),
    st.lists(st.sampled_from([1, 2, 3]), max_size=3).map(tuple),
    st.booleans(),
    st.booleans(),
)
def test_matmul_shapes_match_numpy(
    ba: tuple[int, ...], bb: tuple[int, ...], a_vec: bool, b_vec: bool
) -> None:
    sa = (4,) if a_vec else (*ba, 2, 4)
    sb = (4,) if b_vec else (*bb, 4, 5)
    try:
        expected = np.matmul(np.ones(sa), np.ones(sb)).shape
    except ValueError:
        with pytest.raises((ValueError, TypeError)):
            eval_shape(tnp.matmul, _sds(sa, "float32"), _sds(sb, "float32"))
        return
    assert eval_shape(tnp.matmul, _sds(sa, "float32"), _sds(sb, "float32")).shape == expected


SAME_AVAL_FUNCTIONS = [
    tnp.add, tnp.subtract, tnp.multiply, tnp.true_divide, tnp.maximum, tnp.arctan2,
    tnp.less, tnp.equal, tnp.bitwise_and, tnp.logaddexp, tnp.power, tnp.hypot,
]  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(shapes, dtypes, st.sampled_from(range(len(SAME_AVAL_FUNCTIONS))), st.integers(0, 2**16))
def test_same_aval_operands_take_the_same_result_as_mixed_ones(
    shape: tuple[int, ...], dtype: str, k: int, seed: int
) -> None:
    # Two arrays of one aval skip promotion; the result must be what promotion gives.
    fn = SAME_AVAL_FUNCTIONS[k]
    rng = np.random.default_rng(seed)
    a, b = (rng.uniform(1, 4, shape).astype(dtype) for _ in range(2))
    try:
        want = fn(tnp.asarray(a), b)
    except TypeError as err:  # e.g. bitwise_and of floats: the same error either way
        with pytest.raises(TypeError, match=str(err)[:30]):
            fn(tnp.asarray(a), tnp.asarray(b))
        return
    got = fn(tnp.asarray(a), tnp.asarray(b))
    assert (got.dtype, got.weak_type, got.shape) == (want.dtype, want.weak_type, want.shape)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_same_aval_weak_operands_stay_weak() -> None:
    w = tnp.asarray(2.0)
    assert w.weak_type and tnp.add(w, w).weak_type and (w * w).weak_type
    i = tnp.asarray(3)
    q = tnp.true_divide(i, i)
    assert q.dtype == np.float32 and q.weak_type == tnp.true_divide(i, 3).weak_type


@pytest.mark.parametrize(
    "dtype", ["float32", "bfloat16", "int8", "uint8", "int32", "uint32", "int4", "uint4", "bool"]
)
def test_fill_mode_default_is_nan_or_the_types_far_end(dtype: str) -> None:
    # As JAX: NaN for inexact types, a signed type's minimum, an unsigned
    # type's maximum, True for bool (uint8 filled 0, int4 raised before).
    dt = tnp.dtype(dtype)
    x = tnp.zeros(3, dt)
    got = np.asarray(x.at[tnp.array([0, 7])].get(mode="fill"))
    if tnp.issubdtype(dt, tnp.inexact):
        want = np.nan
    elif dt == np.bool_:
        want = True
    elif tnp.issubdtype(dt, tnp.signedinteger):
        want = tnp.iinfo(dt).min
    else:
        want = tnp.iinfo(dt).max
    np.testing.assert_array_equal(got.astype(np.float64), np.array([0, want], np.float64))
