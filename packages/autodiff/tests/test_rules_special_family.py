"""Derivatives of the incomplete gamma and beta functions and the scaled Bessel functions.

Reverse and forward mode against central differences (float64), the identities
between the family's members, and JAX's errors for the operands without a
derivative.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from _checks import check_grads, draw
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, jvp
from tessela_tracer import lax

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True)
shapes = st.sampled_from([(), (3,), (2, 3)])
seeds = st.integers(0, 2**16)

pytestmark = pytest.mark.usefixtures("x64_module")

FUNCS: dict[str, Callable[..., Any]] = {
    "igamma": lax.igamma,
    "igammac": lax.igammac,
    "betainc_x": lambda a, x: lax.betainc(a, lax.add(a, 1.5), lax.div(x, 13.0)),
    "bessel_i0e": lambda a, x: lax.bessel_i0e(lax.sub(x, 6.0)),
    "bessel_i1e": lambda a, x: lax.bessel_i1e(lax.sub(x, 6.0)),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
@given(shape=shapes, seed=seeds)
@SETTINGS
def test_grad_matches_finite_differences(name: str, shape: tuple[int, ...], seed: int) -> None:
    a, x = draw(shape, seed, 0.3, 6.0), draw(shape, seed + 1, 0.2, 12.0)
    if name == "betainc_x":
        f = lambda x: FUNCS[name](a, x)  # noqa: E731
        check_grads(f, [x], eps=1e-6, rtol=1e-5)
    elif name.startswith("bessel"):
        check_grads(lambda x: FUNCS[name](a, x), [x], eps=1e-6, rtol=1e-5)
    else:
        check_grads(FUNCS[name], [a, x], eps=1e-6, rtol=1e-5)


@given(seed=seeds)
@SETTINGS
def test_igamma_plus_igammac_is_one_and_their_gradients_cancel(seed: int) -> None:
    a, x = draw((5,), seed, 0.2, 8.0), draw((5,), seed + 1, 0.1, 15.0)
    total = lax.add(lax.igamma(a, x), lax.igammac(a, x))
    np.testing.assert_allclose(np.asarray(total), 1.0, rtol=1e-12)
    both = grad(lambda a, x: lax.reduce_sum(lax.add(lax.igamma(a, x), lax.igammac(a, x)), (0,)),
                argnums=(0, 1))(a, x)  # fmt: skip
    np.testing.assert_allclose(np.asarray(both[0]), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(both[1]), 0.0, atol=1e-12)


@given(seed=seeds)
@SETTINGS
def test_random_gamma_grad_is_the_implicit_derivative(seed: int) -> None:
    # x(a) solves P(a, x) = u, so dx/da = -(dP/da) / (dP/dx).
    a, x = draw((4,), seed, 0.3, 6.0), draw((4,), seed + 1, 0.1, 10.0)
    dp_da, dp_dx = grad(lambda a, x: lax.reduce_sum(lax.igamma(a, x), (0,)), argnums=(0, 1))(a, x)
    want = -np.asarray(dp_da) / np.asarray(dp_dx)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a, x)), want, rtol=1e-9)


def test_grad_under_jit_equals_eager() -> None:
    a, x = draw((4,), 0, 0.5, 3.0), draw((4,), 1, 0.5, 3.0)

    def loss(a: Any, x: Any) -> Any:
        return lax.reduce_sum(lax.mul(lax.igamma(a, x), lax.bessel_i1e(x)), (0,))

    f = grad(loss, argnums=(0, 1))
    for got, want in zip(tl.jit(f)(a, x), f(a, x), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


def test_bessel_i1e_slope_at_zero_is_one_half() -> None:
    assert float(grad(lax.bessel_i1e)(0.0)) == 0.5


def test_betainc_is_not_differentiable_in_a_or_b() -> None:
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        grad(lax.betainc, argnums=0)(1.0, 2.0, 0.5)
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        jvp(lax.betainc, (1.0, 2.0, 0.5), (0.0, 1.0, 0.0))


@pytest.mark.parametrize("fn", [lax.igamma_grad_a, lax.random_gamma_grad])
def test_derivative_primitives_have_no_derivative(fn: Callable[..., Any]) -> None:
    with pytest.raises(NotImplementedError, match="Differentiation rule for"):
        grad(fn, argnums=1)(2.0, 1.0)
