"""``checkpoint`` policies: saveable residuals are saved, the rest recomputed.

The expected structures are JAX 0.10.2's ``make_jaxpr(grad(checkpoint(f,
policy=...)))``: the primitives before the backward ``remat2`` equation and
those inside its body (JAX's ``reduce_precision`` markers on saved residuals
left out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from tessela_autodiff import grad, jvp, vjp
from tessela_batching import vmap
from tessela_lowering import jit
from tessela_tracer import ClosedJaxpr, checkpoint, checkpoint_name, checkpoint_policies, make_jaxpr
from tessela_tracer.primitives import name_p, remat_p

cp = checkpoint_policies


def mlp(w1: Any, w2: Any, x: Any) -> Any:
    h = tnp.sin(tnp.dot(w1, x))
    h = tnp.sin(tnp.dot(w2, h))
    return tnp.sum(h)


def named(x: Any) -> Any:
    a = checkpoint_name(tnp.sin(x), "a")
    b = checkpoint_name(tnp.sin(a), "b")
    return tnp.sum(tnp.sin(b))


RNG = np.random.default_rng(0)
W1 = RNG.normal(size=(3, 4)).astype(np.float32)
W2 = RNG.normal(size=(2, 3)).astype(np.float32)
X = RNG.normal(size=(4,)).astype(np.float32)


def _structure(closed: ClosedJaxpr) -> tuple[list[str], list[str]]:
    outer = [e.primitive.name for e in closed.eqns if e.primitive is not remat_p]
    (rem,) = [e for e in closed.eqns if e.primitive is remat_p]
    assert rem.params["differentiated"] is True
    return outer, [e.primitive.name for e in rem.params["jaxpr"].eqns]


FWD = ["dot_general", "sin", "dot_general", "sin", "reduce_sum"]
BWD = ["broadcast_in_dim", "mul", "dot_general", "mul", "dot_general"]

MLP_CASES: list[tuple[str, Callable[..., bool] | None, list[str], list[str]]] = [
    ("none", None, FWD, ["dot_general", "sin", "cos", "dot_general", "cos", *BWD]),
    (
        "nothing",
        cp.nothing_saveable,
        FWD,
        ["dot_general", "sin", "cos", "dot_general", "cos", *BWD],
    ),
    ("dots", cp.dots_saveable, FWD, ["cos", "cos", *BWD]),
    ("checkpoint_dots", cp.checkpoint_dots, FWD, ["cos", "cos", *BWD]),
    ("no_batch", cp.dots_with_no_batch_dims_saveable, FWD, ["cos", "cos", *BWD]),
    (
        "everything",
        cp.everything_saveable,
        ["dot_general", "sin", "cos", "dot_general", "sin", "cos", "reduce_sum"],
        BWD,
    ),
]


@pytest.mark.parametrize(
    ("label", "policy", "outer", "inner"), MLP_CASES, ids=[c[0] for c in MLP_CASES]
)
def test_mlp_structure_matches_jax(
    label: str, policy: Callable[..., bool] | None, outer: list[str], inner: list[str]
) -> None:
    closed = make_jaxpr(grad(checkpoint(mlp, policy=policy)))(W1, W2, X)
    assert _structure(closed) == (outer, inner)


@pytest.mark.parametrize(
    ("label", "policy", "outer", "inner"), MLP_CASES, ids=[c[0] for c in MLP_CASES]
)
def test_mlp_gradients_match_plain_grad(
    label: str, policy: Callable[..., bool] | None, outer: list[str], inner: list[str]
) -> None:
    want = grad(mlp, argnums=(0, 1, 2))(W1, W2, X)
    got = grad(checkpoint(mlp, policy=policy), argnums=(0, 1, 2))(W1, W2, X)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


NAME_CASES: list[tuple[str, Callable[..., bool], list[str], list[str]]] = [
    (
        "only_a",
        cp.save_only_these_names("a"),
        ["sin", "name", "sin", "name", "sin", "reduce_sum"],
        ["cos", "sin", "cos", "name", "cos", "broadcast_in_dim", "mul", "mul", "mul"],
    ),
    (
        "any_but_a",
        cp.save_any_names_but_these("a"),
        ["sin", "name", "sin", "name", "sin", "reduce_sum"],
        ["sin", "cos", "name", "cos", "cos", "broadcast_in_dim", "mul", "mul", "mul"],
    ),
    (
        "anything_except",
        cp.save_anything_except_these_names("a"),
        ["sin", "cos", "name", "sin", "cos", "name", "sin", "cos", "reduce_sum"],
        ["broadcast_in_dim", "mul", "mul", "mul"],
    ),
]


@pytest.mark.parametrize(
    ("label", "policy", "outer", "inner"), NAME_CASES, ids=[c[0] for c in NAME_CASES]
)
def test_name_policies_match_jax(
    label: str, policy: Callable[..., bool], outer: list[str], inner: list[str]
) -> None:
    closed = make_jaxpr(grad(checkpoint(named, policy=policy)))(X)
    assert _structure(closed) == (outer, inner)


@pytest.mark.parametrize(
    "policy",
    [
        pytest.param(cp.save_only_these_names("a"), id="only_a"),
        pytest.param(cp.save_any_names_but_these("a"), id="any_but_a"),
        pytest.param(cp.save_anything_except_these_names("a"), id="anything_except"),
    ],
)
def test_name_policy_gradients_match_plain_grad(policy: Callable[..., bool]) -> None:
    want = grad(named)(X)
    got = grad(checkpoint(named, policy=policy))(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_checkpoint_name_under_jit() -> None:
    np.testing.assert_array_equal(np.asarray(jit(lambda x: checkpoint_name(x, "y"))(X)), X)


def test_checkpoint_name_under_vmap() -> None:
    np.testing.assert_array_equal(np.asarray(vmap(lambda x: checkpoint_name(x, "y"))(X)), X)


def test_policy_sees_primitive_avals_and_params() -> None:
    seen: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def policy(prim: Any, *avals: Any, **params: Any) -> bool:
        seen.append((prim.name, avals, params))
        return False

    make_jaxpr(grad(checkpoint(named, policy=policy)))(X)
    names = [(n, p) for n, _, p in seen if n == "name"]
    assert {p["name"] for _, p in names} == {"a", "b"}
    assert all(a.shape == (4,) for n, avals, _ in seen if n == "sin" for a in avals)


def test_checkpoint_name_derivatives_are_identity() -> None:
    out, t = jvp(lambda x: checkpoint_name(x * 2.0, "y"), (3.0,), (1.0,))
    assert float(out) == 6.0 and float(t) == 2.0
    _, pullback = vjp(lambda x: checkpoint_name(x, "y"), X)
    np.testing.assert_array_equal(np.asarray(pullback(X)[0]), X)
    # The tangent is not named, as in JAX.
    closed = make_jaxpr(lambda x: jvp(lambda y: checkpoint_name(y, "y"), (x,), (x,)))(1.0)
    assert [e.primitive for e in closed.eqns] == [name_p]


def test_saveable_known_outputs_of_a_partly_known_remat() -> None:
    def f(x: Any, y: Any) -> Any:
        return tnp.sin(tnp.dot(x, x)) + tnp.sum(y)

    g = checkpoint(f, policy=cp.dots_saveable)
    want = grad(f, argnums=(0, 1))(X, X)
    got = grad(g, argnums=(0, 1))(X, X)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5)
    got0 = grad(g)(X, X)
    np.testing.assert_allclose(np.asarray(got0), np.asarray(want[0]), rtol=1e-5)


def test_nested_and_second_order_with_policy() -> None:
    inner = checkpoint(lambda x: tnp.sin(tnp.sin(x)), policy=cp.everything_saveable)
    outer = checkpoint(lambda x: tnp.cos(inner(x)), policy=cp.dots_saveable)
    ref = lambda x: tnp.cos(tnp.sin(tnp.sin(x)))  # noqa: E731
    np.testing.assert_allclose(float(grad(outer)(0.3)), float(grad(ref)(0.3)), rtol=1e-5)
    np.testing.assert_allclose(
        float(grad(grad(outer))(0.3)), float(grad(grad(ref))(0.3)), rtol=1e-5
    )
