"""``vjp``'s and ``linearize``'s functions are pytrees of residuals, as JAX's: they cross ``jit``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, linearize, vjp
from tessela_lowering import jit
from tessela_pytree import Partial, tree_leaves, tree_map
from tessela_tracer import custom_vjp

_FLOATS = st.floats(-2.0, 2.0, allow_nan=False, width=32)
_VECTORS = st.lists(_FLOATS, min_size=3, max_size=3).map(lambda v: np.array(v, np.float32))


def _f(x: Any, y: Any) -> Any:
    return {"a": tnp.sin(tnp.cos(x)) * y, "b": tnp.exp(-x * x) + y}


def _close(a: Any, b: Any) -> None:
    for u, v in zip(tree_leaves(a), tree_leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=2e-6, atol=2e-6)


@settings(max_examples=10, deadline=None)  # each example traces and compiles
@given(_VECTORS, _VECTORS, _VECTORS, _VECTORS)
def test_a_pullback_returned_from_jit_or_passed_to_it_gives_eager_cotangents(
    x: np.ndarray, y: np.ndarray, ca: np.ndarray, cb: np.ndarray
) -> None:
    ct = {"a": ca, "b": cb}
    _, pullback = vjp(_f, x, y)
    expected = pullback(ct)
    _close(jit(lambda x, y: vjp(_f, x, y)[1])(x, y)(ct), expected)
    _close(jit(lambda pb, ct: pb(ct))(pullback, ct), expected)
    # Made inside a jit, it comes out holding the residuals as arrays.
    assert len(tree_leaves(jit(lambda x, y: vjp(_f, x, y)[1])(x, y))) > 0


@settings(max_examples=10, deadline=None)  # each example traces and compiles
@given(_VECTORS, _VECTORS, _VECTORS, _VECTORS)
def test_a_linearized_function_crosses_jit_and_gives_eager_tangents(
    x: np.ndarray, y: np.ndarray, tx: np.ndarray, ty: np.ndarray
) -> None:
    _, f_jvp = linearize(_f, x, y)
    expected = f_jvp(tx, ty)
    _close(jit(lambda x, y: linearize(_f, x, y)[1])(x, y)(tx, ty), expected)
    _close(jit(lambda lin, tx, ty: lin(tx, ty))(f_jvp, tx, ty), expected)


def test_pullback_leaves_are_the_residuals() -> None:
    x = np.linspace(0.1, 1.0, 3, dtype=np.float32)
    _, pullback = vjp(lambda x: tnp.sin(tnp.cos(x)) * x, x)
    assert isinstance(pullback, Partial)
    leaves = tree_leaves(pullback)
    # sin(x), cos(cos(x))... : four residual arrays of x's shape, as JAX keeps.
    assert len(leaves) == 4 and all(np.shape(r) == (3,) for r in leaves)
    # Mapping over the residuals changes what the pullback computes.
    zeroed = tree_map(lambda r: r * 0, pullback)
    np.testing.assert_array_equal(np.asarray(zeroed(np.ones(3, np.float32))[0]), 0.0)


def test_pullback_called_with_two_arguments_says_how() -> None:
    _, pullback = vjp(lambda x, y: x * y, 1.0, 2.0)
    with pytest.raises(TypeError, match="takes one argument"):
        pullback(1.0, 1.0)
    with pytest.raises(TypeError, match="Tree structure of cotangent"):
        pullback((1.0, 1.0))


def test_a_pullback_is_a_custom_vjp_residual() -> None:
    # The common pattern: fwd returns jax.vjp's function as the residual.
    def body(v: Any) -> Any:
        return tnp.sin(v) * v

    @custom_vjp
    def f(v: Any) -> Any:
        return body(v)

    def fwd(v: Any) -> Any:
        return vjp(body, v)

    f.defvjp(fwd, lambda pullback, g: pullback(g))
    x = np.linspace(-1.0, 2.0, 4, dtype=np.float32)
    want = np.sin(x) + x * np.cos(x)
    g = grad(lambda v: tnp.sum(f(v)))
    np.testing.assert_allclose(np.asarray(g(x)), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jit(g)(x)), want, rtol=1e-5)
