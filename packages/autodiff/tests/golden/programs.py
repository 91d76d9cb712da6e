"""Programs whose ``make_jaxpr(grad(f))`` text is compared with the reference.

Shared by ``generate.py`` (run under the reference) and the tests: each case
takes a ``lax`` module and returns ``(fun, args)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def sin(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return lax.sin, (np.float32(1.0),)


def sin_times_x(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return (lambda x: lax.mul(lax.sin(x), x)), (np.float32(1.0),)


def tanh_sum(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return (lambda x: lax.reduce_sum(lax.tanh(x), (0,))), (np.ones(3, np.float32),)


def exp_log(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return (lambda x: lax.log(lax.exp(x))), (np.float32(0.5),)


def matvec(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    def f(w: Any, x: Any) -> Any:
        y = lax.dot_general(w, x, (((1,), (0,)), ((), ())))
        return lax.reduce_sum(lax.mul(y, y), (0,))

    return f, (np.ones((2, 3), np.float32), np.ones(3, np.float32))


def digamma(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return lax.digamma, (np.float32(1.5),)


def polygamma(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return (lambda x: lax.polygamma(np.float32(2.0), x)), (np.float32(1.5),)


def scatter_mul_updates(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    x, idx = np.array([1.0, 2.0, 3.0], np.float32), np.array([[2], [0]], np.int32)
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))

    def f(u: Any) -> Any:
        return lax.reduce_sum(lax.scatter_mul(x, idx, u, dn, unique_indices=True), (0,))

    return f, (np.array([3.0, 4.0], np.float32),)


def conv_grad(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    def f(x: Any, w: Any) -> Any:
        y = lax.conv_general_dilated(
            x, w, (2, 1), "SAME", rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC"),
            feature_group_count=2,
        )  # fmt: skip
        return lax.reduce_sum(y, (0, 1, 2, 3))

    return f, (np.ones((2, 5, 5, 4), np.float32), np.ones((3, 3, 2, 6), np.float32))


def max_pool_grad(lax: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    def f(x: Any) -> Any:
        y = lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
        return lax.reduce_sum(y, (0, 1, 2, 3))

    return f, (np.ones((1, 5, 5, 3), np.float32),)


CASES: dict[str, Callable[[Any], tuple[Callable[..., Any], tuple[Any, ...]]]] = {
    "sin": sin,
    "sin_times_x": sin_times_x,
    "tanh_sum": tanh_sum,
    "exp_log": exp_log,
    "matvec": matvec,
    "digamma": digamma,
    "polygamma": polygamma,
    "scatter_mul_updates": scatter_mul_updates,
    "conv_grad": conv_grad,
    "max_pool_grad": max_pool_grad,
}
