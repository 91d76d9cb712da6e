"""tessela.test_util: derivative checks pass for right derivatives and fail for wrong ones."""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela.test_util import check_grads, check_jvp, check_vjp


def _wrong_derivative() -> object:
    @tx.custom_jvp
    def f(x: object) -> object:
        return tnp.sin(x)

    @f.defjvp
    def f_jvp(primals: tuple[object, ...], tangents: tuple[object, ...]) -> object:
        (x,), (t,) = primals, tangents
        return tnp.sin(x), 1.5 * tnp.cos(x) * t  # off by a factor 1.5

    return f


@given(x=st.floats(-2.0, 2.0), order=st.integers(1, 2))
@settings(max_examples=10, deadline=None)
def test_right_derivatives_pass(x: float, order: int) -> None:
    def f(a: object, b: object) -> object:
        return tnp.tanh(a) * b + a**2

    check_grads(f, (np.float64(x), np.float64(0.7)), order=order, atol=1e-3, rtol=1e-3)
    check_grads(lambda v: tnp.sum(tnp.exp(v)), (np.linspace(-1, 1, 4),), order=1)


@pytest.mark.parametrize("modes", [["fwd"], ["rev"]])
def test_a_wrong_derivative_fails(modes: list[str]) -> None:
    with pytest.raises(AssertionError):
        check_grads(_wrong_derivative(), (np.float32(0.4),), order=1, modes=modes)


def test_check_jvp_and_check_vjp_take_the_transformations() -> None:
    f = _wrong_derivative()
    check_jvp(tnp.sin, lambda p, t: tx.jvp(tnp.sin, p, t), (np.float32(0.4),))
    check_vjp(tnp.sin, lambda *p: tx.vjp(tnp.sin, *p), (np.float32(0.4),))
    with pytest.raises(AssertionError):
        check_vjp(f, lambda *p: tx.vjp(f, *p), (np.float32(0.4),))


def test_pytree_arguments_and_outputs() -> None:
    def f(tree: dict[str, object]) -> object:
        return {"s": tnp.sum(tree["a"] * tree["b"]), "p": tree["a"] ** 2}

    check_grads(f, ({"a": np.arange(3.0), "b": np.ones(3)},), order=2)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown modes"):
        check_grads(tnp.sin, (1.0,), order=1, modes=["sideways"])
    with pytest.raises(ValueError, match="order must be at least 1"):
        check_grads(tnp.sin, (1.0,), order=0)
