"""Every primitive family: vmap equals a Python loop stacking per-example results."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import check
from hypothesis import given
from hypothesis import strategies as st
from tessela_tracer import lax

rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i32(*shape: int, hi: int = 5) -> np.ndarray:
    return rng.integers(0, hi, shape).astype(np.int32)


UNARY = [
    lax.sin, lax.exp, lax.neg, lax.abs, lax.floor, lax.is_finite, lax.logistic, lax.tanh,
    lambda x: lax.integer_pow(x, 3), lambda x: lax.convert_element_type(x, np.int32),
    lax.stop_gradient, lambda x: lax.sqrt(lax.abs(x)), lax.square, lax.sign,
]  # fmt: skip


@pytest.mark.parametrize("op", UNARY)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), data=st.data())
def test_unary(op, shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    check(op, axis, f32(*shape))


# Batch axes of a binary operand pair: moved (1 or -1), or unbatched (None).
AXIS_PAIRS = st.sampled_from([(0, 0), (0, None), (None, 0), (1, 0), (0, -1)])


def at_axes(x: np.ndarray, y: np.ndarray, ax: tuple[int | None, int | None]) -> tuple[Any, Any]:
    """``x`` and ``y``, stacked on axis 0, with x's batch at ``ax[0]`` (1, or None: member 0)
    and y's moved to the end when ``ax[1]`` is -1 (an unbatched y is left to the caller)."""
    if ax[0] == 1:
        x = np.moveaxis(x, 0, 1)
    if ax[0] is None:
        x = x[0]
    if ax[1] == -1:
        y = np.moveaxis(y, 0, -1)
    return x, y


BINARY = [lax.add, lax.sub, lax.mul, lax.div, lax.max, lax.min, lax.atan2, lax.lt, lax.eq]


@pytest.mark.parametrize("op", BINARY)
@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=2),
    ax=AXIS_PAIRS,
    scalar_y=st.booleans(),
)
def test_binary(op, shape, ax, scalar_y):
    x, y = at_axes(f32(3, *shape), f32(3, *shape), ax)
    if ax[1] is None:
        y = np.float32(2.0) if scalar_y else y[0]
    elif scalar_y:
        y = f32(3)
    if x.ndim == 0 and np.ndim(y) <= 1:
        return
    check(op, ax, x, y)


def _pos(*shape: int) -> np.ndarray:
    return rng.uniform(0.5, 4.0, shape).astype(np.float32)


SPECIAL = [
    lambda m, x: lax.polygamma(lax.floor(m), x),  # whole-number orders 0..3
    lambda x, q: lax.zeta(lax.add(x, 1.0), q),  # exponents above 1
]


@pytest.mark.parametrize("op", SPECIAL, ids=["polygamma", "zeta"])
@given(
    shape=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    ax=AXIS_PAIRS,
)
def test_special_binary(op, shape, ax):
    if not shape and (ax[0] == 1 or ax[1] == -1):
        return
    x, y = at_axes(_pos(3, *shape), _pos(3, *shape), ax)
    if ax[1] is None:
        y = y[0]
    check(op, ax, x, y)


def test_integer_ops():
    x, y = i32(4, 3), i32(4, 3, hi=3)
    for op in (lax.bitwise_and, lax.bitwise_or, lax.bitwise_xor, lax.shift_left, lax.rem):
        check(op, (0, 1), x, y.T.copy() + (op is lax.rem))
    check(lax.bitwise_not, 0, x)
    check(lax.population_count, 1, x)
    check(lambda x: lax.bitcast_convert_type(x, np.float32), 0, x)
    check(lambda x: lax.pow(x, 2), 0, f32(4, 3))


def test_select_n_and_clamp():
    p = rng.random((4, 3)) > 0.5
    check(lambda p, a, b: lax.select_n(p, a, b), (0, 0, None), p, f32(4, 3), f32(3))
    check(lambda p, a, b: lax.select_n(p, a, b), (None, 1, 0), p[0], f32(3, 4), f32(4, 3))
    check(lambda p, a, b: lax.select_n(p, a, b), (0, None, None), p[:, 0], f32(3), f32(3))
    check(lax.clamp, (None, 0, None), np.float32(-0.5), f32(4, 3), np.float32(0.5))
    check(lax.clamp, (0, 0, None), f32(4), f32(4, 3), np.float32(0.5))
    check(lax.clamp, (0, 1, 0), f32(4, 3), f32(3, 4), f32(4, 3) + 2)


SHAPE_CASES = [
    (lambda x: lax.broadcast_in_dim(x, (2, 3, 5), (1, 2)), 1, (3, 4, 5)),
    (lambda x: lax.reshape(x, (5, 3)), 2, (3, 5, 4)),
    (lambda x: lax.squeeze(x, (1,)), 0, (4, 3, 1)),
    (lambda x: lax.expand_dims(x, (0, 2)), 1, (3, 4)),
    (lambda x: lax.transpose(x, (2, 0, 1)), 1, (2, 4, 3, 5)),
    (lambda x: lax.rev(x, (0, 1)), 2, (2, 3, 4)),
    (lambda x: lax.slice(x, (1, 0), (3, 4), (1, 2)), 1, (3, 4, 5)),
    (lambda x: lax.pad(x, np.float32(0), ((1, 2, 1), (0, -1, 0))), 0, (4, 3, 3)),
    (lambda x: lax.reduce_sum(x, (0,)), 1, (3, 4, 2)),
    (lambda x: lax.reduce_max(x, (0, 1)), 2, (3, 2, 4)),
    (lambda x: lax.reduce_min(x, (1,)), 0, (4, 3, 2)),
    (lambda x: lax.reduce_prod(x, (0,)), 0, (4, 3)),
    (lambda x: lax.argmax(x, 1, np.int32), 1, (3, 4, 2)),
    (lambda x: lax.argmin(x, 0, np.int32), 0, (4, 3, 2)),
    (lambda x: lax.cumsum(x, 0), 1, (3, 4)),
    (lambda x: lax.cummax(x, 1, reverse=True), 0, (4, 2, 3)),
    (lambda x: lax.cumprod(x, 0), 0, (4, 3)),
    (lambda x: lax.cumlogsumexp(x, 0), 2, (3, 2, 4)),
    (lambda x: lax.sort(x, 0), 1, (3, 4)),
    (lambda x: lax.top_k(x, 2), 0, (4, 5)),
    (lambda x: lax.add(x, lax.iota(np.float32, 3)), 0, (4, 3)),
    (lambda x: lax.dynamic_slice(x, (1, np.int32(2)), (2, 2)), 1, (4, 3, 5)),
    (lambda x: lax.dynamic_update_slice(x, np.ones((1, 2), np.float32), (1, 0)), 2, (3, 4, 2)),
    (lambda x: lax.concatenate([x, np.ones((2, 3), np.float32)], 0), 1, (3, 4, 3)),
]  # fmt: skip


@pytest.mark.parametrize("case", range(len(SHAPE_CASES)))
def test_shape_and_reduce(case):
    f, axis, shape = SHAPE_CASES[case]
    check(f, axis, f32(*shape))


def test_reduce_bool_and_sort_multi():
    check(lambda x: lax.reduce_or(x, (0,)), 1, rng.random((3, 4)) > 0.5)
    check(lambda x: lax.reduce_and(x, (0,)), 0, rng.random((4, 3)) > 0.5)
    check(lambda k, v: lax.sort((k, v), 0, num_keys=1), (0, None), i32(4, 5), f32(5))
    check(lambda k, v: lax.sort((k, v), 0, num_keys=1), (1, 0), i32(5, 4), f32(4, 5))
    check(lambda a, b: lax.concatenate([a, b], 1), (0, 1), f32(4, 2, 3), f32(2, 4, 1))


def test_pad_batched_value():
    check(lambda x, v: lax.pad(x, v, ((1, 1, 1),)), (0, 0), f32(4, 3), f32(4))
    check(lambda x, v: lax.pad(x, v, ((1, 0, 0),)), (None, 0), f32(3), f32(4))


@pytest.mark.parametrize("ax", [(0, 0), (None, 0), (0, None), (1, 0)])
def test_dot_general(ax):
    lhs = f32(4, 2, 3) if ax[0] == 0 else (f32(2, 4, 3) if ax[0] == 1 else f32(2, 3))
    rhs = f32(4, 3, 5) if ax[1] == 0 else f32(3, 5)
    check(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))), ax, lhs, rhs, rtol=1e-4)
    lb = f32(4, 6, 2, 3) if ax[0] is not None else f32(6, 2, 3)
    if ax[0] == 1:
        lb = np.moveaxis(lb, 0, 1).copy()
    rb = f32(4, 6, 3, 5) if ax[1] is not None else f32(6, 3, 5)
    dn = (((2,), (1,)), ((0,), (0,)))
    check(lambda a, b: lax.dot_general(a, b, dn), ax, lb, rb, rtol=1e-4)


@pytest.mark.parametrize("ax", [(0, 0), (None, 0), (0, None)])
def test_dynamic_slicing_batched_indices(ax):
    x = f32(4, 5, 3) if ax[0] == 0 else f32(5, 3)
    i = i32(4, hi=6) if ax[1] == 0 else np.int32(3)
    check(lambda x, i: lax.dynamic_slice(x, (i, np.int32(1)), (2, 2)), ax, x, i)
    check(lambda x, i: lax.dynamic_update_slice(x, np.full((2, 1), 7, np.float32), (i, i)),
          ax, x, i)  # fmt: skip


def _gather(x, idx):
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))  # fmt: skip
    return lax.gather(x, idx, dn, (1, 3), mode="clip")


def _scatter_add(x, idx, upd):
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))  # fmt: skip
    return lax.scatter_add(x, idx, upd, dn, mode="clip")


@pytest.mark.parametrize("ax", [(0, 0), (None, 0), (0, None), (1, 1)])
def test_gather(ax):
    x = {0: f32(4, 5, 3), None: f32(5, 3), 1: f32(5, 4, 3)}[ax[0]]
    idx = {0: i32(4, 2, 1), None: i32(2, 1), 1: i32(2, 4, 1)}[ax[1]]
    check(_gather, ax, x, idx)


@pytest.mark.parametrize("ax", [(0, 0, 0), (None, 0, None), (0, None, 0), (None, None, 0)])
def test_scatter(ax):
    x = f32(4, 5, 3) if ax[0] == 0 else f32(5, 3)
    idx = i32(4, 2, 1) if ax[1] == 0 else i32(2, 1)
    upd = f32(4, 2, 3) if ax[2] == 0 else f32(2, 3)
    check(_scatter_add, ax, x, idx, upd)
    dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
    check(lambda x, i, u: lax.scatter(x, i, u, dn, mode="clip"), ax, x, idx, upd)
    check(lambda x, i, u: lax.scatter_max(x, i, u, dn, mode="clip"), ax, x, idx, upd)
