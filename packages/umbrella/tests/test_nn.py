"""tessela.nn against NumPy formulas; gradients against finite differences."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from tessela import nn

X_NP = np.linspace(-3.0, 3.0, 13, dtype=np.float32)
X = tx.device_put(X_NP)
X64 = X_NP.astype(np.float64)
_erf = np.vectorize(math.erf)


def _sig(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


REFERENCE = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": _sig,
    "log_sigmoid": lambda x: np.log(_sig(x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "silu": lambda x: x * _sig(x),
    "swish": lambda x: x * _sig(x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "celu": lambda x: np.maximum(x, 0) + np.minimum(np.expm1(x), 0),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_activation_values_and_gradients(name: str) -> None:
    fn = getattr(nn, name)
    np.testing.assert_allclose(np.asarray(fn(X)), REFERENCE[name](X64), rtol=1e-5, atol=1e-6)
    grads = np.asarray(tx.vmap(tx.grad(fn))(X))
    eps = 1e-4
    fd = (REFERENCE[name](X64 + eps) - REFERENCE[name](X64 - eps)) / (2 * eps)
    smooth = np.all(np.abs(X64[:, None] - np.array([-1.0, 0.0, 1.0])) > 1e-3, axis=1)
    if name in ("relu6", "hard_tanh", "hard_sigmoid"):
        smooth &= np.abs(np.abs(X64) - 3) > 1e-3
    np.testing.assert_allclose(grads[smooth], fd[smooth], rtol=1e-3, atol=1e-3)


def test_relu_derivative_at_zero_is_zero() -> None:
    assert float(tx.grad(nn.relu)(0.0)) == 0.0
    assert float(tx.jit(tx.grad(nn.relu))(2.0)) == 1.0


def test_exact_gelu() -> None:
    got = np.asarray(nn.gelu(X, approximate=False))
    np.testing.assert_allclose(got, 0.5 * X64 * (1 + _erf(X64 / np.sqrt(2))), rtol=1e-5, atol=1e-6)


def test_softmax_family_is_stable_and_matches_numpy() -> None:
    x_np = np.array([[1000.0, 1001.0, 999.0], [-1.0, 0.0, 2.0]], np.float32)
    x = tx.device_put(x_np)
    shifted = x_np.astype(np.float64) - x.max(axis=1, keepdims=True)
    ref = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(nn.softmax(x)), ref, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(x)), np.log(ref), rtol=1e-5, atol=1e-5)
    lse = np.log(np.exp(shifted).sum(axis=1)) + x_np.max(axis=1)
    np.testing.assert_allclose(np.asarray(nn.logsumexp(x, axis=1)), lse, rtol=1e-6)
    assert nn.logsumexp(x, axis=1, keepdims=True).shape == (2, 1)
    # d/dx logsumexp = softmax, also with the stop_gradient'ed shift
    np.testing.assert_allclose(
        np.asarray(tx.grad(lambda v: nn.logsumexp(v))(x[1])), ref[1], rtol=1e-5
    )


@pytest.mark.parametrize("kind", ["device", "numpy"])
def test_eager_one_hot_is_one_program_equal_to_the_traced_one(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    host = np.array([[0, 4], [2, -1], [3, 9]], np.int32)  # labels in and out of range
    labels = tx.device_put(host) if kind == "device" else host
    jitted = tx.jit(lambda x: nn.one_hot(x, 5, dtype=tnp.int8, axis=1))
    before = tx.config.read("jax_log_compiles")
    tx.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tessela_lowering"):
            got = nn.one_hot(labels, 5, dtype=tnp.int8, axis=1)
            nn.one_hot(labels, 5, dtype=tnp.int8, axis=1)
    finally:
        tx.config.update("jax_log_compiles", before)
    assert caplog.text.count("Finished XLA compilation") <= 1, caplog.text
    want = (host[:, None, :] == np.arange(5)[None, :, None]).astype(np.int8)
    assert got.dtype == np.int8 and got.shape == (3, 5, 2)
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(jitted(labels)), want)
    # Traced, it stages its equations in place (no nested program).
    eqns = tx.make_jaxpr(lambda x: nn.one_hot(x, 5))(host).eqns
    assert "eq" in [e.primitive.name for e in eqns]


def test_one_hot_standardize_glu() -> None:
    labels = tx.device_put(np.array([0, 2, 5, -1], np.int32))
    got = np.asarray(nn.one_hot(labels, 3))
    np.testing.assert_array_equal(got, np.eye(3, dtype=np.float32)[[0, 2]].tolist() + [[0] * 3] * 2)
    assert nn.one_hot(labels, 3, axis=0).shape == (3, 4)
    with pytest.raises(TypeError, match="num_classes"):
        nn.one_hot(labels, 3.0)  # type: ignore[arg-type]
    x_np = np.array([[1.0, 2.0, 6.0]], np.float32)
    x = tx.device_put(x_np)
    ref = (x_np - x_np.mean()) / np.sqrt(x_np.var() + 1e-5)
    np.testing.assert_allclose(np.asarray(nn.standardize(x)), ref, rtol=1e-5)
    g = np.asarray(nn.glu(tx.device_put(np.array([1.0, 2.0, 0.0, -1.0], np.float32))))
    np.testing.assert_allclose(g, np.array([1.0, 2.0]) * _sig(np.array([0.0, -1.0])), rtol=1e-6)
    with pytest.raises(ValueError, match="even"):
        nn.glu(tnp.ones(3))


STAGED = {
    "silu": lambda x: nn.silu(x),
    "elu": lambda x: nn.elu(x, 0.5),
    "celu": lambda x: nn.celu(x, alpha=2.0),
    "selu": lambda x: nn.selu(x),
    "leaky_relu": lambda x: nn.leaky_relu(x, 0.1),
    "glu": lambda x: nn.glu(x, axis=0),
    "log_softmax": lambda x: nn.log_softmax(x, axis=1),
    "softmax": lambda x: nn.softmax(x, 0),
    "standardize": lambda x: nn.standardize(x, axis=1, epsilon=1e-3),
}


@pytest.mark.parametrize("name", sorted(STAGED))
def test_eager_nn_functions_are_one_program_with_their_traced_values(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    call = STAGED[name]
    host = np.linspace(-3.0, 2.5, 26, dtype=np.float32).reshape(2, 13)  # a shape no other test uses
    x = tx.device_put(host)
    before = tx.config.read("jax_log_compiles")
    tx.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tessela_lowering"):
            got = call(x)
            call(x)
    finally:
        tx.config.update("jax_log_compiles", before)
    assert caplog.text.count("Finished XLA compilation") == 1, caplog.text
    with tx.disable_jit():  # step by step
        own = call(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(own), rtol=2e-6, atol=1e-6)
    assert got.dtype == own.dtype and got.shape == own.shape
