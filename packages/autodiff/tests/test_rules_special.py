"""digamma, polygamma, zeta and scatter_mul derivatives: finite differences and JAX's errors."""

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


def _orders(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.RandomState(seed + 1).randint(0, 4, shape).astype(np.float64)


SPECIAL: dict[str, Callable[[np.ndarray, np.ndarray], Callable[[Any], Any]]] = {
    "digamma": lambda m, e: lax.digamma,
    "polygamma": lambda m, e: lambda x: lax.polygamma(m, x),
    "zeta_q": lambda m, e: lambda q: lax.zeta(e, q),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
@given(shape=shapes, seed=seeds)
@SETTINGS
def test_grad_matches_finite_differences(name: str, shape: tuple[int, ...], seed: int) -> None:
    m, e = _orders(shape, seed), draw(shape, seed + 2, 1.5, 4.0)
    check_grads(SPECIAL[name](m, e), [draw(shape, seed, 0.5, 3.0)], eps=1e-6, rtol=1e-5)


@given(seed=seeds)
@SETTINGS
def test_second_derivative_of_digamma_is_polygamma_2(seed: int) -> None:
    x = draw((), seed, 0.5, 3.0)
    got = grad(grad(lax.digamma))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(lax.polygamma(2.0, x)), rtol=1e-12)


def test_grad_under_jit_equals_eager() -> None:
    x = draw((4,), 0, 0.5, 3.0)

    def loss(m: Any, x: Any) -> Any:
        return lax.reduce_sum(lax.mul(lax.polygamma(m, x), lax.zeta(3.0, x)), (0,))

    f = grad(loss, argnums=1)
    np.testing.assert_allclose(np.asarray(tl.jit(f)(1.0, x)), np.asarray(f(1.0, x)), rtol=1e-12)


def test_polygamma_order_is_not_differentiable() -> None:
    with pytest.raises(ValueError, match="polygamma gradient with respect to m is not supported"):
        grad(lax.polygamma, argnums=0)(1.0, 2.0)
    with pytest.raises(ValueError, match="with respect to m"):
        jvp(lax.polygamma, (1.0, 2.0), (1.0, 0.0))
    # A constant (or stop_gradient) order leaves x differentiable.
    g = grad(lambda m, x: lax.polygamma(lax.stop_gradient(m), x), argnums=(0, 1))(1.0, 2.0)
    assert float(g[0]) == 0.0 and np.isclose(float(g[1]), float(lax.polygamma(2.0, 2.0)))


def test_zeta_exponent_is_not_differentiable() -> None:
    with pytest.raises(NotImplementedError, match="'zeta' with respect to x not implemented"):
        grad(lax.zeta, argnums=0)(2.0, 2.0)


# ---------------------------------------------------------------- scatter_mul

ROWS = lax.ScatterDimensionNumbers((1,), (0,), (0,))  # whole rows of a matrix
ELEMS = lax.ScatterDimensionNumbers((), (0,), (0,))  # single elements of a vector


@given(
    n=st.integers(2, 5),
    k=st.integers(1, 3),
    data=st.data(),
    rows=st.booleans(),
    seed=seeds,
)
@SETTINGS
def test_scatter_mul_grad_with_unique_indices(
    n: int, k: int, data: st.DataObject, rows: bool, seed: int
) -> None:
    picked = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    idx = np.array(picked, np.int32)[:, None]
    x_shape, u_shape = ((n, k), (len(picked), k)) if rows else ((n,), (len(picked),))
    dn = ROWS if rows else ELEMS

    def f(x: Any, u: Any) -> Any:
        return lax.scatter_mul(x, idx, u, dn, unique_indices=True)

    check_grads(f, [draw(x_shape, seed, -2, 2), draw(u_shape, seed + 1, -2, 2)], eps=1e-6)


def test_scatter_mul_updates_need_unique_indices() -> None:
    x, u, idx = np.ones(3), np.full(2, 2.0), np.array([[1], [1]], np.int32)

    def loss(x: Any, u: Any) -> Any:
        return lax.reduce_sum(lax.scatter_mul(x, idx, u, ELEMS), (0,))

    msg = r"scatter_mul gradients are only implemented if `unique_indices=True`"
    with pytest.raises(NotImplementedError, match=msg):
        grad(loss, argnums=1)(x, u)
    # The operand alone stays differentiable with repeated indices: 1 * 2 * 2 at index 1.
    np.testing.assert_allclose(np.asarray(grad(loss)(x, u)), [1.0, 4.0, 1.0])
