"""The plugin primitive composes with jit, grad and vmap, and is discovered."""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_logcosh import logcosh, logcosh_p

X = np.linspace(-30.0, 30.0, 41, dtype=np.float32)


def reference(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(x, -x) - np.log(2.0)


def test_eager_and_jit_match_numpy() -> None:
    np.testing.assert_allclose(np.asarray(logcosh(X)), reference(X.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tx.jit(logcosh)(X)), np.asarray(logcosh(X)), rtol=1e-6)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.floats(-5.0, 5.0, width=32))
def test_grad_is_tanh_and_second_derivative_matches(x: float) -> None:
    assert np.isclose(float(tx.grad(logcosh)(x)), np.tanh(x), rtol=1e-5, atol=1e-6)
    d2 = float(tx.jit(tx.grad(tx.grad(logcosh)))(x))
    assert np.isclose(d2, 1 - np.tanh(x) ** 2, rtol=1e-4, atol=1e-5)


def test_vmap_jit_grad_compose() -> None:
    per_example = tx.jit(tx.vmap(tx.grad(lambda w, x: logcosh(w * x)), in_axes=(None, 0)))
    got = np.asarray(per_example(0.5, X))
    np.testing.assert_allclose(got, X * np.tanh(0.5 * X), rtol=1e-5, atol=1e-5)
    jaxpr = str(tx.make_jaxpr(tx.vmap(logcosh))(X[:, None]))
    assert "logcosh" in jaxpr


def test_integer_input_names_the_fix() -> None:
    with pytest.raises(TypeError, match="astype"):
        tx.make_jaxpr(logcosh)(np.int32(1))


def test_discovered_through_entry_point() -> None:
    assert tx.plugins()["logcosh"] == "tessela_logcosh"
    assert tx.load_plugins("logcosh")["logcosh"].logcosh_p is logcosh_p
