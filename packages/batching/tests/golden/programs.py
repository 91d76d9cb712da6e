"""Programs whose vmapped jaxpr text is compared with the reference's.

Shared by ``generate.py`` (run with the reference) and the tests (run with
Tessela): each case takes a namespace with ``lax`` and ``vmap`` and returns
``(function, args)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _f32(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


def mul_add_in_axes(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax
    f = ns.vmap(lambda x, y: lax.add(lax.mul(x, y), 1.0), in_axes=(1, None))
    return f, (_f32(3, 5), _f32(3))


def sin_reduce(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax
    return ns.vmap(lambda x: lax.reduce_sum(lax.sin(x), (0,))), (_f32(5, 3),)


def matvec(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax
    dn = (((1,), (0,)), ((), ()))
    f = ns.vmap(lambda m, v: lax.dot_general(m, v, dn), in_axes=(None, 0))
    return f, (_f32(4, 3), _f32(6, 3))


def both_batched_dot(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax
    dn = (((1,), (0,)), ((), ()))
    return ns.vmap(lambda a, b: lax.dot_general(a, b, dn)), (_f32(5, 2, 3), _f32(5, 3, 4))


def transpose_out_axes(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax
    f = ns.vmap(lambda x: lax.transpose(lax.exp(x), (1, 0)), in_axes=1, out_axes=1)
    return f, (_f32(2, 5, 3),)


def nested(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax
    f = ns.vmap(ns.vmap(lambda x, y: lax.mul(x, y), in_axes=(0, None)), in_axes=(None, 0))
    return f, (_f32(3), _f32(4))


def decompositions(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    linalg = ns.lax.linalg

    def f(x: Any) -> Any:
        v, w = linalg.eigh(x, symmetrize_input=False)
        u, s, vt = linalg.svd(x, full_matrices=False)
        return v, w, u, s, vt

    return ns.vmap(f, in_axes=1), (_f32(3, 2, 3),)


def conv_batched(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax

    def f(x: Any, w: Any) -> Any:
        return lax.conv_general_dilated(
            x, w, (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2
        )

    both = ns.vmap(f, in_axes=(1, 0))
    lhs_only = ns.vmap(f, in_axes=(0, None))
    rhs_only = ns.vmap(f, in_axes=(None, 4))
    w = _f32(3, 3, 1, 4)
    return (
        lambda x, w4, xb: (both(x, _f32(3, *w.shape)), lhs_only(xb, w), rhs_only(xb[0], w4)),
        (_f32(2, 3, 5, 6, 2), _f32(3, 3, 1, 4, 5), _f32(3, 2, 5, 6, 2)),
    )


def windows_batched(ns: Any) -> tuple[Any, tuple[Any, ...]]:
    lax = ns.lax

    def f(x: Any) -> Any:
        return (
            lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), "SAME"),
            lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID"),
        )

    return ns.vmap(f, in_axes=1), (_f32(4, 3, 5),)


CASES = [
    mul_add_in_axes, sin_reduce, matvec, both_batched_dot, transpose_out_axes, nested,
    decompositions, conv_batched, windows_batched,
]  # fmt: skip
