"""Collectives under differentiation: psum, pmean, pmax, pmin, all_gather, axis_index,
ppermute, psum_scatter, all_to_all.

Reverse mode under a named axis differentiates the sum of the members'
outputs, as in JAX. Each case pairs a per-member function using collectives
with the same computation written on the whole batch without them; the
gradients (``vmap(grad(f))`` and ``grad`` of the summed ``vmap``) and the
tangents (``vmap(jvp(f))``) must agree with each other, with the batch version
and with central differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, jvp, linearize, vjp
from tessela_batching import vmap
from tessela_tracer import custom_vjp, lax, make_jaxpr
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import float0
from tessela_tracer.extend import axis_frame, axis_size_of

pytestmark = pytest.mark.usefixtures("x64_module")

SETTINGS = settings(max_examples=3, deadline=None, derandomize=True)
sizes = st.integers(2, 4)
seeds = st.integers(0, 2**16)

Case = tuple[Callable[[Any], Any], Callable[[Any], Any]]


def _gathered_tiled(xs: Any) -> Any:
    """``all_gather(x, "i", axis=1, tiled=True)`` of every member, from the batch ``(n, k, 2)``."""
    n, k, two = xs.shape
    return tnp.reshape(tnp.transpose(xs, (1, 0, 2)), (k, n * two))


CASES: dict[str, Case] = {
    "psum": (
        lambda x: tnp.sum(tnp.sin(x) * lax.psum(x * x, "i")),
        lambda xs: tnp.sum(tnp.sin(xs) * tnp.sum(xs * xs, 0), 1),
    ),
    "pmean": (
        lambda x: tnp.sum(tnp.exp(x - lax.pmean(x, "i"))),
        lambda xs: tnp.sum(tnp.exp(xs - tnp.mean(xs, 0)), 1),
    ),
    "pmax": (
        lambda x: tnp.sum(tnp.cos(x) * lax.pmax(x, "i")),
        lambda xs: tnp.sum(tnp.cos(xs) * tnp.max(xs, 0), 1),
    ),
    "pmin": (
        lambda x: tnp.sum(tnp.sin(x) * lax.pmin(x * x, "i")),
        lambda xs: tnp.sum(tnp.sin(xs) * tnp.min(xs * xs, 0), 1),
    ),
    "all_gather": (
        lambda x: tnp.sum(tnp.sin(lax.all_gather(x, "i")) * x),
        lambda xs: tnp.sum(tnp.sum(tnp.sin(xs), 0) * xs, 1),
    ),
    "all_gather_axis_1": (
        lambda x: tnp.sum(tnp.tanh(lax.all_gather(x, "i", axis=1)) * x[:, None]),
        lambda xs: tnp.sum(tnp.tanh(xs).sum(0) * xs, 1),
    ),
    "axis_index": (
        lambda x: tnp.sum(x * x) * (lax.axis_index("i") + 1).astype(x.dtype),
        lambda xs: tnp.sum(xs * xs, 1) * tnp.arange(1, xs.shape[0] + 1, dtype=xs.dtype),
    ),
    "all_gather_at_axis_index": (
        lambda x: tnp.sum(lax.all_gather(x * x * x, "i")[lax.axis_index("i")]),
        lambda xs: tnp.sum(xs * xs * xs, 1),
    ),
}


def _members() -> int:
    size = axis_size_of("i")
    assert size is not None
    return size


def _ramp(n: int, dtype: Any) -> Any:
    return tnp.arange(1, n + 1, dtype=dtype)


CASES.update({
    "ppermute": (
        lambda x: tnp.sum(tnp.sin(lax.ppermute(x, "i", [(j, (j + 1) % _members())
                                                       for j in range(_members())])) * x),
        lambda xs: tnp.sum(tnp.sin(tnp.roll(xs, 1, 0)) * xs, 1),
    ),
    "psum_scatter": (
        lambda x: tnp.sum(lax.psum_scatter(
            tnp.sin(x)[None, :] * _ramp(_members(), x.dtype)[:, None], "i") * x),
        lambda xs: tnp.sum(tnp.sum(tnp.sin(xs), 0)[None, :]
                           * _ramp(xs.shape[0], xs.dtype)[:, None] * xs, 1),
    ),
    "all_to_all": (
        lambda x: tnp.sum(tnp.sin(lax.all_to_all(
            x[None, :] * _ramp(_members(), x.dtype)[:, None], "i", 0, 0)) * x),
        lambda xs: tnp.sum(tnp.sin(xs[None, :, :] * _ramp(xs.shape[0], xs.dtype)[:, None, None])
                           * xs[:, None, :], (1, 2)),
    ),
})  # fmt: skip

TILED: Case = (
    lambda x: tnp.sum(tnp.cos(lax.all_gather(x, "i", axis=1, tiled=True)) * tnp.sum(x)),
    lambda xs: tnp.sum(tnp.cos(_gathered_tiled(xs))) * tnp.sum(xs, (1, 2)),
)


def _draw(n: int, shape: tuple[int, ...], seed: int) -> np.ndarray:
    # Well separated values: no ties for pmax and pmin, stable central differences.
    rng = np.random.RandomState(seed)
    size = n * int(np.prod(shape))
    return (rng.permutation(size) / size + rng.uniform(0.5, 1.0)).reshape((n, *shape))


def _fd_grad(total: Callable[[Any], Any], xs: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(xs)
    for i in np.ndindex(*xs.shape):
        e = np.zeros_like(xs)
        e[i] = eps
        out[i] = (float(total(xs + e)) - float(total(xs - e))) / (2 * eps)
    return out


def _check(case: Case, xs: np.ndarray, seed: int) -> None:
    f, batch = case
    total = lambda xs: tnp.sum(batch(xs))  # noqa: E731
    want = np.asarray(grad(total)(xs))
    np.testing.assert_allclose(_fd_grad(total, xs), want, rtol=1e-5, atol=1e-6)
    # vmap of grad: each member's gradient of its own output, cotangents shared by psum.
    got = vmap(grad(f), axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
    # grad of vmap: batching computes the collectives, plain rules differentiate them.
    summed = grad(lambda xs: tnp.sum(vmap(f, axis_name="i")(xs)))(xs)
    np.testing.assert_allclose(np.asarray(summed), want, rtol=1e-10, atol=1e-12)
    # Forward mode: vmap of jvp against jvp of the batch version.
    ts = np.random.RandomState(seed + 1).standard_normal(xs.shape)
    _, t_want = jvp(batch, (xs,), (ts,))
    t_got = vmap(lambda x, t: jvp(f, (x,), (t,))[1], axis_name="i")(xs, ts)
    np.testing.assert_allclose(np.asarray(t_got), np.asarray(t_want), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
@given(n=sizes, k=st.integers(1, 3), seed=seeds)
@SETTINGS
def test_collective_gradients(name: str, n: int, k: int, seed: int) -> None:
    _check(CASES[name], _draw(n, (k,), seed), seed)


@given(n=sizes, seed=seeds)
@SETTINGS
def test_all_gather_tiled(n: int, seed: int) -> None:
    _check(TILED, _draw(n, (3, 2), seed), seed)


@given(n1=st.integers(2, 3), n2=st.integers(2, 3), seed=seeds)
@SETTINGS
def test_psum_over_two_names(n1: int, n2: int, seed: int) -> None:
    xs = _draw(n1 * n2, (2,), seed).reshape(n1, n2, 2)

    def f(x: Any) -> Any:
        return tnp.sum(tnp.sin(x) * lax.psum(x * x, ("i", "j")) + lax.pmax(x, "j"))

    def batch(xs: Any) -> Any:
        return tnp.sin(xs) * tnp.sum(xs * xs, (0, 1)) + tnp.max(xs, 1, keepdims=True)

    want = np.asarray(grad(lambda xs: tnp.sum(batch(xs)))(xs))
    got = vmap(vmap(grad(f), axis_name="j"), axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("prim", ["pmax", "pmin"])
def test_ties_split_the_tangent_evenly(prim: str) -> None:
    collective = getattr(lax, prim)
    xs = np.array([3.0, 1.0, 3.0, 2.0]) * (1 if prim == "pmax" else -1)
    # Every member outputs the extreme: the summed output is 4 * extreme, shared by the tie.
    got = vmap(grad(lambda x: collective(x, "i")), axis_name="i")(xs)
    np.testing.assert_array_equal(np.asarray(got), [2.0, 0.0, 2.0, 0.0])
    reduce = tnp.max if prim == "pmax" else tnp.min
    np.testing.assert_array_equal(np.asarray(grad(lambda xs: 4 * reduce(xs))(xs)), got)
    _, t = vmap(lambda x, t: jvp(lambda x: collective(x, "i"), (x,), (t,)), axis_name="i")(
        xs, np.array([1.0, 10.0, 3.0, 10.0])
    )
    np.testing.assert_array_equal(np.asarray(t), [2.0, 2.0, 2.0, 2.0])


def test_psum_transposes_to_psum() -> None:
    def per_member(x: Any) -> Any:
        _, pullback = vjp(lambda x: lax.psum(x, "i"), x)
        jaxpr = make_jaxpr(pullback)(x)
        assert [e.primitive for e in jaxpr.eqns] == [P.psum_p]
        return pullback(x)[0]

    xs = np.arange(1.0, 4.0)
    np.testing.assert_array_equal(np.asarray(vmap(per_member, axis_name="i")(xs)), [6.0] * 3)


def test_axis_index_tangent_is_float0() -> None:
    def tangent(x: Any) -> Any:
        return jvp(lambda x: lax.axis_index("i"), (x,), (x,))[1]

    with axis_frame("i", 3):
        out_avals = make_jaxpr(tangent)(1.0).out_avals
    assert [(a.shape, a.dtype) for a in out_avals] == [((), float0)]


def test_custom_lin_refuses_forward_mode() -> None:
    @custom_vjp
    def f(x: Any) -> Any:
        return tnp.sin(x)

    f.defvjp(lambda x: (tnp.sin(x), tnp.cos(x)), lambda c, g: (c * g,))
    _, f_jvp = linearize(f, 1.0)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jvp(f_jvp, (1.0,), (1.0,))
