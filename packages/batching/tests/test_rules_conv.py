"""vmap of convolutions and windowed reductions against a Python loop."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import check
from hypothesis import given
from hypothesis import strategies as st
from tessela_tracer import lax
from tessela_tracer.primitives import ge_p, le_p, select_and_gather_add_p, select_and_scatter_add_p

F = np.float32
NHWC = ("NHWC", "HWIO", "NHWC")


def _ints(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(F)


def _conv(fg: int, bg: int, dims: Any) -> Any:
    def f(x: Any, w: Any) -> Any:
        return lax.conv_general_dilated(
            x, w, (1, 2), ((1, 0), (0, 1)), (1, 1), (2, 1), dims,
            feature_group_count=fg, batch_group_count=bg,
        )  # fmt: skip

    return f


@given(
    axes=st.sampled_from([(0, 0), (1, 2), (2, None), (None, 1), (None, 3), (3, 0)]),
    groups=st.sampled_from([(1, 1), (2, 1), (1, 2)]),
    nhwc=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_conv_vmap_matches_loop(
    axes: tuple[Any, Any], groups: tuple[int, int], nhwc: bool, seed: int
) -> None:
    fg, bg = groups
    rng = np.random.default_rng(seed)
    if nhwc:
        x, w = _ints(rng, 2 * bg, 5, 4, 2 * fg), _ints(rng, 2, 3, 2, 2 * fg * bg)
    else:
        x, w = _ints(rng, 2 * bg, 2 * fg, 5, 4), _ints(rng, 2 * fg * bg, 2, 2, 3)
    la, ra = axes
    n = 3
    xb = x if la is None else np.stack([x + i for i in range(n)], axis=la)
    wb = w if ra is None else np.stack([w - i for i in range(n)], axis=ra)
    check(_conv(fg, bg, NHWC if nhwc else None), (la, ra), xb, wb)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_reduce_window_vmap_matches_loop(kind: str, axis: int) -> None:
    op, init = {"sum": (lax.add, 0.0), "max": (lax.max, -np.inf), "min": (lax.min, np.inf)}[kind]
    x = _ints(np.random.default_rng(axis), 3, 5, 4)

    def f(x: Any) -> Any:
        return lax.reduce_window(x, init, op, (2, 2), (1, 2), ((1, 0), (0, 1)), (2, 1), (1, 1))

    check(f, axis, x)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_general_reduce_window_vmap_matches_loop(axis: int) -> None:
    # A product pool and a (max, weighted sum) pair: the general reduce_window.
    x = _ints(np.random.default_rng(axis), 3, 5, 4)

    def f(x: Any) -> Any:
        prod = lax.reduce_window(x, np.float32(1), lax.mul, (2, 2), (1, 2), "SAME")
        pair = lax.reduce_window(
            (x, x * 2), (np.float32(-np.inf), np.float32(0)),
            lambda a, b: (lax.max(a[0], b[0]), a[1] + b[1] * b[0]),
            (2, 3), (1, 1), ((1, 0), (0, 1)), (1, 2), (2, 1),
        )  # fmt: skip
        return prod, pair

    check(f, axis, x)


@pytest.mark.parametrize("select", [ge_p, le_p])
@pytest.mark.parametrize("axes", [(0, 0), (1, None), (None, 2)])
def test_select_and_gather_scatter_vmap(select: Any, axes: tuple[Any, Any]) -> None:
    rng = np.random.default_rng(3)
    win = {"window_dimensions": (2, 2), "window_strides": (2, 1), "padding": ((0, 1), (1, 0))}

    def gather(t: Any, x: Any) -> Any:
        return select_and_gather_add_p.bind(
            t, x, select_prim=select, base_dilation=(1, 1), window_dilation=(1, 1), **win
        )

    def scatter(s: Any, x: Any) -> Any:
        return select_and_scatter_add_p.bind(s, x, select_prim=select, **win)

    def batched(shape: tuple[int, ...], ax: Any, distinct: bool) -> np.ndarray:
        full = shape if ax is None else (*shape[:ax], 3, *shape[ax:])
        if distinct:
            return rng.permutation(int(np.prod(full))).reshape(full).astype(F)
        return rng.standard_normal(full).astype(F)

    t_ax, x_ax = axes
    x = batched((4, 5), x_ax, True)
    check(gather, (t_ax, x_ax), batched((4, 5), t_ax, False), x)
    check(scatter, (t_ax, x_ax), batched((2, 5), t_ax, False), x)
