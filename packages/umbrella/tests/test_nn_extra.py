"""Properties of the newer tessela.nn functions, initializers and attention.

Derivatives against central finite differences of float64 NumPy formulas,
``jit`` against eager, and composition with ``vmap`` and ``grad``. Values are
compared with the reference in ``test_nn_golden.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela.random as random
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela import nn
from tessela.nn import initializers as init


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(x, 0.0)


REFERENCE: dict[str, tuple[Callable[[np.ndarray], np.ndarray], float, float]] = {
    # name -> (float64 formula, low, high)
    "identity": (lambda x: x, -10.0, 10.0),
    "tanh": (np.tanh, -6.0, 6.0),
    "mish": (lambda x: x * np.tanh(_softplus(x)), -10.0, 10.0),
    "sparse_sigmoid": (lambda x: 0.5 * np.clip(x + 1, 0, 2), -3.0, 3.0),
    "log1mexp": (lambda x: np.log(-np.expm1(-x)), 0.0625, 20.0),
}


def _floats(low: float, high: float) -> st.SearchStrategy[list[float]]:
    element = st.floats(low, high, width=32, allow_nan=False, allow_subnormal=False)
    return st.lists(element, min_size=8, max_size=8)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_derivatives_match_finite_differences(name: str) -> None:
    formula, low, high = REFERENCE[name]
    fn = getattr(nn, name)
    dfn = tx.jit(tx.vmap(tx.grad(fn)))

    @settings(max_examples=20, deadline=None)
    @given(_floats(low, high))
    def check(values: list[float]) -> None:
        x = np.asarray(values, np.float32)
        if name == "sparse_sigmoid":  # skip the kinks at -1 and 1
            x = x[np.abs(np.abs(x) - 1) > 1e-2]
            if not x.size:
                return
        x64 = x.astype(np.float64)
        eps = 1e-5 * np.maximum(1.0, np.abs(x64))
        fd = (formula(x64 + eps) - formula(x64 - eps)) / (2 * eps)
        got = np.asarray(dfn(tx.device_put(x)))
        np.testing.assert_allclose(got, fd, rtol=2e-4, atol=2e-5)
        np.testing.assert_allclose(np.asarray(fn(x)), formula(x64), rtol=2e-6, atol=1e-6)

    check()


@pytest.mark.parametrize("name", ["identity", "tanh", "mish", "sparse_sigmoid", "log1mexp"])
def test_jit_agrees_with_eager(name: str) -> None:
    x = tx.device_put(np.linspace(0.01, 4.0, 9, dtype=np.float32))
    fn = getattr(nn, name)
    np.testing.assert_allclose(np.asarray(tx.jit(fn)(x)), np.asarray(fn(x)), rtol=1e-6)


def test_tanh_is_numpy_tanh_and_log1mexp_edges() -> None:
    assert nn.tanh is tnp.tanh
    assert float(nn.log1mexp(0.0)) == -np.inf
    assert np.isnan(float(nn.log1mexp(-1.0)))
    assert float(tx.grad(nn.log1mexp)(0.0)) == np.inf


def test_logmeanexp_jit_grad_and_where() -> None:
    x = tx.device_put(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32))
    where = tx.device_put(np.array([[True, False, True], [True, True, True]]))
    eager = nn.logmeanexp(x, axis=1, where=where)
    jitted = tx.jit(lambda v, w: nn.logmeanexp(v, axis=1, where=w))(x, where)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-6)
    # d/dx logmeanexp is the softmax over the entries kept
    g = np.asarray(tx.grad(lambda v: nn.logmeanexp(v, where=where).sum())(x))
    assert g[0, 1] == 0.0
    np.testing.assert_allclose(g.sum(), 1.0, rtol=1e-6)


# ---- initializers


def test_initializers_namespace() -> None:
    assert set(init.__all__) == {
        "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
        "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
        "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
        "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
    }  # fmt: skip
    assert init.xavier_uniform is init.glorot_uniform and init.kaiming_normal is init.he_normal
    assert isinstance(init.lecun_normal(), init.Initializer)
    assert isinstance(init.zeros, init.Initializer)
    assert nn.initializers is init


FACTORIES: dict[str, tuple[Any, tuple[int, ...]]] = {
    "uniform": (init.uniform(0.5), (3, 4)),
    "normal": (init.normal(2.0), (3, 4)),
    "truncated_normal": (init.truncated_normal(1.0), (3, 4)),
    "glorot_uniform": (init.glorot_uniform(), (4, 5)),
    "he_normal": (init.he_normal(), (2, 2, 3, 4)),
    "orthogonal": (init.orthogonal(), (5, 3)),
    "delta_orthogonal": (init.delta_orthogonal(), (3, 2, 2)),
    "constant": (init.constant(0.25), (2, 3)),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_initializers_under_jit_and_vmap(name: str) -> None:
    fn, shape = FACTORIES[name]
    keys = random.split(random.key(3), 3)
    eager = np.stack([np.asarray(fn(keys[i], shape)) for i in range(3)])
    jitted = np.asarray(tx.jit(lambda k: fn(k, shape))(keys[1]))
    batched = np.asarray(tx.vmap(lambda k: fn(k, shape))(keys))
    np.testing.assert_allclose(jitted, eager[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(batched, eager, rtol=1e-5, atol=1e-6)


def test_initializer_statistics_and_dtypes() -> None:
    w = np.asarray(
        init.variance_scaling(2.0, "fan_in", "truncated_normal")(random.key(0), (400, 300))
    )
    np.testing.assert_allclose(w.std(), np.sqrt(2.0 / 400), rtol=0.03)
    u = np.asarray(init.lecun_uniform()(random.key(1), (200, 100)))
    assert np.abs(u).max() <= np.sqrt(3.0 / 200)
    assert init.normal(dtype=np.float16)(random.key(0), (2,)).dtype == np.float16
    assert init.ones(random.key(0), 3).shape == (3,)


def test_initializer_errors() -> None:
    with pytest.raises(ValueError, match="mode"):
        init.variance_scaling(1.0, "fan_middle", "normal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="in_axis"):
        init.glorot_normal()(random.key(0), (5,))
    with pytest.raises(IndexError, match="out_axis"):
        init.variance_scaling(1.0, "fan_in", "normal", out_axis=3)(random.key(0), (2, 2))
    with pytest.raises(ValueError, match="at least 2"):
        init.orthogonal()(random.key(0), (4,))
    with pytest.raises(ValueError, match="3, 4 or 5"):
        init.delta_orthogonal()(random.key(0), (3, 3))
    with pytest.raises(ValueError, match="fan_in"):
        init.delta_orthogonal()(random.key(0), (3, 4, 2))
    with pytest.raises(NotImplementedError, match="out_sharding"):
        init.zeros(random.key(0), (2,), out_sharding="x")


# ---- attention


def _qkv(b: int = 2, t: int = 3, s: int = 4, n: int = 4, k: int = 2, h: int = 8) -> Any:
    rng = np.random.default_rng(0)
    return tuple(
        tx.device_put(rng.standard_normal(shape).astype(np.float32))
        for shape in ((b, t, n, h), (b, s, k, h), (b, s, k, h))
    )


def test_attention_vmap_matches_batched_call() -> None:
    q, k, v = _qkv()
    full = np.asarray(nn.dot_product_attention(q, k, v, is_causal=True))
    per = tx.vmap(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True))(q, k, v)
    np.testing.assert_allclose(np.asarray(per), full, rtol=1e-5, atol=1e-6)
    jitted = tx.jit(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True))(q, k, v)
    np.testing.assert_allclose(np.asarray(jitted), full, rtol=1e-5, atol=1e-6)


def test_attention_grad_matches_finite_differences() -> None:
    q, k, v = _qkv(b=1, t=2, s=3, n=2, k=1, h=4)
    bias = tx.device_put(np.linspace(-1, 1, 6, dtype=np.float32).reshape(1, 1, 2, 3))

    def loss(q: Any, k: Any, v: Any, bias: Any) -> Any:
        return (nn.dot_product_attention(q, k, v, bias) ** 2).sum()

    grads = tx.grad(loss, argnums=(0, 1, 2, 3))(q, k, v, bias)
    args = [np.asarray(a, np.float64) for a in (q, k, v, bias)]
    rng = np.random.default_rng(1)
    eps = 1e-3
    for i, g in enumerate(grads):
        direction = rng.standard_normal(args[i].shape)

        def at(sign: float, i: int = i, direction: np.ndarray = direction) -> float:
            moved = list(args)
            moved[i] = moved[i] + sign * eps * direction
            return float(loss(*(tx.device_put(a.astype(np.float32)) for a in moved)))

        fd = (at(1.0) - at(-1.0)) / (2 * eps)
        np.testing.assert_allclose(
            float((np.asarray(g) * direction).sum()), fd, rtol=2e-2, atol=2e-3
        )


def test_attention_residual_and_per_example_grads() -> None:
    q, k, v = _qkv()
    out, lse = nn.dot_product_attention(q, k, v, return_residual=True)
    assert out.shape == q.shape and lse.shape == q.shape[:-1]
    logits = np.einsum("btkgh,bskh->bkgts", np.asarray(q).reshape(2, 3, 2, 2, 8), np.asarray(k))
    ref = np.log(np.exp(logits / np.sqrt(8)).sum(-1)).reshape(2, 4, 3).transpose(0, 2, 1)
    np.testing.assert_allclose(np.asarray(lse), ref, rtol=1e-5)

    def loss(q: Any, k: Any, v: Any) -> Any:
        return nn.dot_product_attention(q, k, v).sum()

    per_example = tx.vmap(tx.grad(loss))(q[:, None], k[:, None], v[:, None])
    whole = tx.grad(loss)(q, k, v)
    np.testing.assert_allclose(
        np.asarray(per_example)[:, 0], np.asarray(whole), rtol=1e-5, atol=1e-6
    )


def test_attention_errors() -> None:
    q, k, v = _qkv()
    with pytest.raises(NotImplementedError, match="cudnn"):
        nn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(ValueError, match="implementation"):
        nn.dot_product_attention(q, k, v, implementation="flash")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="multiple"):
        nn.dot_product_attention(q[:, :, :3], k, v)
    with pytest.raises(ValueError, match="value"):
        nn.dot_product_attention(q, k, v[:, :2])
    with pytest.raises(ValueError, match="mask"):
        nn.dot_product_attention(q, k, v, mask=tnp.ones((1, 1, 3, 4)))
    with pytest.raises(ValueError, match="query_seq_lengths"):
        nn.dot_product_attention(q, k, v, query_seq_lengths=tnp.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="bias"):
        nn.dot_product_attention(q, k, v, bias=tnp.zeros((2, 2, 3, 4)))
