"""Every differentiable primitive: gradients vs central differences, jvp/vjp consistency."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _checks import check_grads, draw
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import lax

SETTINGS = settings(max_examples=3, deadline=None, derandomize=True)
shapes = st.sampled_from([(), (3,), (2, 3)])
seeds = st.integers(0, 2**16)


def each_name_shape_seed(table: dict[str, Any]) -> Callable[[Any], Any]:
    """Parametrize a test over ``table``'s names, with hypothesis shapes and seeds."""

    def wrap(test: Any) -> Any:
        return pytest.mark.parametrize("name", sorted(table))(
            given(shape=shapes, seed=seeds)(SETTINGS(test))
        )

    return wrap


pytestmark = pytest.mark.usefixtures("x64_module")


UNARY: dict[str, tuple[Callable[[Any], Any], float, float]] = {
    "sin": (lax.sin, -2, 2), "cos": (lax.cos, -2, 2), "tan": (lax.tan, -1, 1),
    "tanh": (lax.tanh, -2, 2), "exp": (lax.exp, -2, 2), "exp2": (lax.exp2, -2, 2),
    "log": (lax.log, 0.5, 3), "log1p": (lax.log1p, -0.5, 2), "expm1": (lax.expm1, -2, 2),
    "logistic": (lax.logistic, -3, 3), "sqrt": (lax.sqrt, 0.5, 3), "rsqrt": (lax.rsqrt, 0.5, 3),
    "cbrt": (lax.cbrt, 0.5, 3), "square": (lax.square, -2, 2), "asin": (lax.asin, -0.8, 0.8),
    "acos": (lax.acos, -0.8, 0.8), "atan": (lax.atan, -2, 2), "sinh": (lax.sinh, -2, 2),
    "cosh": (lax.cosh, -2, 2), "asinh": (lax.asinh, -2, 2), "acosh": (lax.acosh, 1.5, 3),
    "atanh": (lax.atanh, -0.8, 0.8), "erf": (lax.erf, -2, 2), "erfc": (lax.erfc, -2, 2),
    "erf_inv": (lax.erf_inv, -0.8, 0.8), "lgamma": (lax.lgamma, 0.5, 3),
    "abs": (lax.abs, 0.5, 2), "neg": (lax.neg, -2, 2),
    "integer_pow": (lambda x: lax.integer_pow(x, 3), -2, 2),
}  # fmt: skip


@each_name_shape_seed(UNARY)
def test_unary(name: str, shape: tuple[int, ...], seed: int) -> None:
    f, lo, hi = UNARY[name]
    check_grads(f, [draw(shape, seed, lo, hi)], seed=seed)


BINARY: dict[str, tuple[Callable[[Any, Any], Any], float, float]] = {
    "add": (lax.add, -2, 2), "sub": (lax.sub, -2, 2), "mul": (lax.mul, -2, 2),
    "div": (lax.div, 0.5, 2), "pow": (lax.pow, 0.5, 2), "atan2": (lax.atan2, 0.5, 2),
    "max": (lax.max, -2, 2), "min": (lax.min, -2, 2), "rem": (lax.rem, 0.5, 2),
}  # fmt: skip


@each_name_shape_seed(BINARY)
def test_binary(name: str, shape: tuple[int, ...], seed: int) -> None:
    f, lo, hi = BINARY[name]
    check_grads(f, [draw(shape, seed, lo, hi), draw(shape, seed + 1, lo, hi)], seed=seed)


def test_binary_broadcasts_scalar() -> None:
    check_grads(lax.mul, [np.float64(1.5), draw((2, 3), 0, -1, 1)])
    check_grads(lax.add, [draw((2, 1), 1, -1, 1), draw((2, 3), 0, -1, 1)])


ARRAY_OPS: dict[str, Callable[[Any], Any]] = {
    "reduce_sum": lambda x: lax.reduce_sum(x, (1,)),
    "reduce_prod": lambda x: lax.reduce_prod(x, (0, 1)),
    "reduce_max": lambda x: lax.reduce_max(x, (1,)),
    "reduce_min": lambda x: lax.reduce_min(x, (0,)),
    "cumsum": lambda x: lax.cumsum(x, 1),
    "cumprod": lambda x: lax.cumprod(x, 1, reverse=True),
    "cummax": lambda x: lax.cummax(x, 1),
    "cummin": lambda x: lax.cummin(x, 0),
    "cumlogsumexp": lambda x: lax.cumlogsumexp(x, 1),
    "sort": lambda x: lax.sort(x, 1),
    "top_k": lambda x: lax.top_k(x, 2)[0],
    "broadcast_in_dim": lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
    # Dimensions out of order transpose as they broadcast.
    "broadcast_in_dim_transposing": lambda x: lax.broadcast_in_dim(x, (3, 4, 2), (2, 0)),
    "reshape": lambda x: lax.reshape(x, (3, 2)),
    "transpose": lambda x: lax.transpose(x, (1, 0)),
    "rev": lambda x: lax.rev(x, (0, 1)),
    "concatenate": lambda x: lax.concatenate([x, lax.sin(x)], 1),
    "pad": lambda x: lax.pad(x, np.float64(0.5), [(1, -1, 1), (0, 2, 0)]),
    "slice": lambda x: lax.slice(x, (0, 1), (2, 3), (1, 2)),
    "dynamic_slice": lambda x: lax.dynamic_slice(x, (np.int32(1), np.int32(1)), (1, 2)),
    "dynamic_update_slice": lambda x: lax.dynamic_update_slice(
        x, lax.mul(lax.slice(x, (0, 0), (1, 2)), 3.0), (np.int32(1), np.int32(0))
    ),
    "select_n": lambda x: lax.select_n(lax.gt(x, 0.0), lax.sin(x), lax.cos(x)),
    "clamp": lambda x: lax.clamp(-0.5, x, 0.5),
    "squeeze": lambda x: lax.squeeze(lax.reshape(x, (1, 6)), (0,)),
    "gather": lambda x: lax.gather(
        x,
        np.array([[1], [0], [1]], np.int32),
        lax.GatherDimensionNumbers((1,), (0,), (0,)),
        (1, 3),
    ),
    "scatter_add": lambda x: lax.scatter_add(
        x,
        np.array([[1], [1]], np.int32),
        lax.slice(x, (0, 0), (2, 3)),
        lax.ScatterDimensionNumbers((1,), (0,), (0,)),
    ),
    "dot_general": lambda x: lax.dot_general(x, lax.cos(x), (((1,), (1,)), ((), ()))),
    "batched_dot": lambda x: lax.dot_general(
        lax.reshape(x, (2, 3, 1)), lax.reshape(x, (2, 1, 3)), (((2,), (1,)), ((0,), (0,)))
    ),
    "convert": lambda x: lax.convert_element_type(
        lax.mul(lax.convert_element_type(x, np.float32), np.float32(2.0)), np.float64
    ),
}


@pytest.mark.parametrize("name", sorted(ARRAY_OPS))
@given(seed=seeds)
@settings(max_examples=2, deadline=None, derandomize=True)
def test_array_ops(name: str, seed: int) -> None:
    rtol = 1e-2 if name == "convert" else 1e-4
    check_grads(ARRAY_OPS[name], [draw((2, 3), seed, 0.2, 2.0)], seed=seed, rtol=rtol)


def test_dot_general_both_operands() -> None:
    dn = (((1,), (0,)), ((), ()))
    check_grads(
        lambda a, b: lax.dot_general(a, b, dn), [draw((2, 3), 0, -1, 1), draw((3, 4), 1, -1, 1)]
    )


def test_sort_order_primitives_have_zero_gradient() -> None:
    from tessela_autodiff import grad

    x = draw((4,), 3, -1, 1)
    g = grad(lambda x: lax.convert_element_type(lax.argmax(x, 0, np.int32), np.float64))(x)
    np.testing.assert_array_equal(np.asarray(g), np.zeros(4))
    g = grad(
        lambda x: lax.reduce_sum(lax.add(lax.sign(x), lax.mul(lax.floor(x), lax.round(x))), (0,))
    )(x)
    np.testing.assert_array_equal(np.asarray(g), np.zeros(4))
