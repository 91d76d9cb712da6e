"""Derivatives of convolutions and windowed reductions against central differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from _checks import check_grads
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, jvp, vjp
from tessela_tracer import lax

pytestmark = pytest.mark.usefixtures("x64_module")

F64 = np.float64


def _draw(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.uniform(-1, 1, shape).astype(F64)


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(2, 5), k=st.integers(1, 3), s=st.integers(1, 2), lo=st.integers(-1, 2),
    hi=st.integers(-1, 2), ld=st.integers(1, 2), rd=st.integers(1, 2),
    groups=st.sampled_from([(1, 1), (2, 1), (1, 2)]), seed=st.integers(0, 1000),
    layout=st.sampled_from([None, ("NWC", "WIO", "NWC")]),
)  # fmt: skip
def test_conv_grads_match_finite_differences(n, k, s, lo, hi, ld, rd, groups, seed, layout) -> None:  # type: ignore[no-untyped-def]
    fg, bg = groups
    if (n - 1) * ld + 1 + lo + hi < (k - 1) * rd + 1:
        return
    rng = np.random.default_rng(seed)
    x = _draw(rng, 2 * bg, 2 * fg, n)
    w = _draw(rng, 2 * fg * bg, 2, k)
    if layout is not None:
        x, w = np.transpose(x, (0, 2, 1)), np.transpose(w, (2, 1, 0))

    def f(x: Any, w: Any) -> Any:
        return lax.conv_general_dilated(x, w, (s,), [(lo, hi)], (ld,), (rd,), layout, fg, bg)

    check_grads(f, (x, w), seed=seed)


def test_conv_2d_nhwc_grads() -> None:
    rng = np.random.default_rng(0)
    x, w = _draw(rng, 2, 5, 4, 4), _draw(rng, 3, 2, 2, 6)

    def f(x: Any, w: Any) -> Any:
        return lax.conv_general_dilated(
            x, w, (2, 1), "SAME", None, (1, 2), ("NHWC", "HWIO", "NHWC"), feature_group_count=2
        )

    check_grads(f, (x, w))


def test_conv_grad_under_jit_matches_eager() -> None:
    rng = np.random.default_rng(1)
    x, w = _draw(rng, 2, 3, 6), _draw(rng, 4, 3, 3)

    def loss(x: Any, w: Any) -> Any:
        y = lax.conv_general_dilated(x, w, (2,), "SAME", rhs_dilation=(2,))
        return lax.reduce_sum(lax.mul(y, y), (0, 1, 2))

    eager = grad(loss, argnums=(0, 1))(x, w)
    jitted = tl.jit(grad(loss, argnums=(0, 1)))(x, w)
    for a, b in zip(eager, jitted, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)


def test_general_reduce_window_jvp_matches_jax() -> None:
    # Forward mode of a product pool and of a (max, weighted sum) pair, as
    # jax.jvp computes them (JAX 0.10.2, float32).
    x = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 3
    t = np.cos(np.arange(12, dtype=np.float32)).reshape(3, 4)
    prod = lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (2, 2), (1, 1), "SAME")  # noqa: E731
    pair = lambda x: lax.reduce_window(  # noqa: E731
        (x, x * 2), (np.float32(-np.inf), np.float32(0)),
        lambda a, b: (lax.max(a[0], b[0]), a[1] + b[1] * b[0]), (2, 3), (1, 2), ((1, 0), (0, 1)),
    )  # fmt: skip
    want_prod = [
        [-0.21012014, 0.12607208, 0.87592596, -1.1625965],
        [-0.12607208, 0.21012013, 2.6000993, 1.5107549],
        [-1.1051303, -2.6373124, -1.6707668, 0.0044256980],
    ]
    np.testing.assert_allclose(np.asarray(jvp(prod, (x,), (t,))[1]), want_prod, rtol=1e-5)
    want_max = [[-0.41614681, -0.9899925], [0.96017027, 0.75390226], [-0.83907151, 0.0044256980]]
    want_sum = [[-7.8836918, 4.3045673], [-5.7319398, 7.5952005], [-8.88342, -2.2677712]]
    tmax, tsum = jvp(pair, (x,), (t,))[1]
    np.testing.assert_allclose(np.asarray(tmax), want_max, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(tsum), want_sum, rtol=1e-5)


def _pool(kind: str, **kw: Any) -> Any:
    op, init = {"sum": (lax.add, 0.0), "max": (lax.max, -np.inf), "min": (lax.min, np.inf)}[kind]
    return lambda x: lax.reduce_window(x, init, op, **kw)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize(
    "kw",
    [
        {"window_dimensions": (2, 2), "window_strides": (2, 2), "padding": "SAME"},
        {"window_dimensions": (3, 2), "window_strides": (1, 2), "padding": ((1, 0), (0, 1))},
        {"window_dimensions": (2, 2), "window_strides": (1, 1), "padding": "VALID",
         "base_dilation": (2, 1)},
    ],
)  # fmt: skip
def test_window_grads_match_finite_differences(kind: str, kw: dict[str, Any]) -> None:
    x = np.random.default_rng(2).permutation(30).reshape(5, 6).astype(F64) / 7.0  # no ties
    check_grads(_pool(kind, **kw), (x,))


def test_sum_window_dilation_grad() -> None:
    f = _pool(
        "sum", window_dimensions=(2,), window_strides=(2,), padding="VALID", window_dilation=(2,)
    )
    check_grads(f, (np.linspace(-1, 1, 7),))


def test_max_pool_ties_send_the_gradient_to_the_first_maximum() -> None:
    x = np.array([[1.0, 1.0, 0.0, 2.0], [1.0, 0.0, 2.0, 2.0]])
    f = _pool("max", window_dimensions=(2, 2), window_strides=(2, 2), padding="VALID")
    g = grad(lambda x: lax.reduce_sum(f(x), (0, 1)))(x)
    np.testing.assert_array_equal(np.asarray(g), [[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]])


def test_max_pool_jvp_and_vjp_agree() -> None:
    rng = np.random.default_rng(3)
    x = rng.permutation(24).reshape(4, 6).astype(F64)
    t = _draw(rng, 4, 6)
    f = _pool("max", window_dimensions=(2, 3), window_strides=(1, 2), padding="SAME")
    _, tout = jvp(f, (x,), (t,))
    y, pullback = vjp(f, x)
    ct = _draw(rng, *np.shape(y))
    (cx,) = pullback(ct)
    np.testing.assert_allclose(np.sum(np.asarray(tout) * ct), np.sum(np.asarray(cx) * t))


def test_max_pool_window_dilation_vjp_is_not_implemented() -> None:
    f = _pool(
        "max", window_dimensions=(2,), window_strides=(1,), padding="VALID", window_dilation=(2,)
    )
    with pytest.raises(NotImplementedError, match="window dilation"):
        grad(lambda x: lax.reduce_sum(f(x), (0,)))(np.arange(5.0))
