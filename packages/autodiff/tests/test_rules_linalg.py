"""Derivatives of cholesky, triangular_solve, lu and qr against finite differences.

``check_grads`` compares reverse mode with central differences along random
directions and checks that ``jvp`` and ``vjp`` are adjoint; JAX's own values
are compared in ``test_golden_numeric.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from _checks import check_grads
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_autodiff import grad, jvp, vjp
from tessela_tracer import config, lax, make_jaxpr
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import float0

RNG = np.random.default_rng(0)
SQ = RNG.uniform(-1, 1, (4, 4))
TALL = RNG.uniform(-1, 1, (5, 3))
WIDE = RNG.uniform(-1, 1, (3, 5))
BATCH = RNG.uniform(-1, 1, (2, 4, 4))


def _gram(x: Any) -> Any:
    n = x.shape[-1]
    nd = len(x.shape)
    b = tuple(range(nd - 2))
    xxt = lax.dot_general(x, x, (((nd - 1,), (nd - 1,)), (b, b)))
    return lax.add(xxt, np.broadcast_to(n * np.eye(n), x.shape).astype(x.dtype))


def _tri(a: Any) -> Any:
    n = a.shape[-1]
    return lax.add(a, np.broadcast_to(3 * np.eye(n), a.shape).astype(a.dtype))


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("x", [SQ, BATCH], ids=["4x4", "batched"])
def test_cholesky(x: np.ndarray) -> None:
    check_grads(lambda x: lax.linalg.cholesky(_gram(x)), [x])


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize(
    ("left_side", "lower", "transpose_a", "unit_diagonal"),
    [
        (True, True, False, False),
        (True, False, True, True),
        (False, True, True, False),
        (False, False, False, True),
    ],
)
def test_triangular_solve_in_both_operands(
    left_side: bool, lower: bool, transpose_a: bool, unit_diagonal: bool
) -> None:
    a = RNG.uniform(-1, 1, (2, 3, 3))
    # m > n and m < n take different product orders in the rule for a.
    for cols in (2, 5):
        b = RNG.uniform(-1, 1, (2, 3, cols) if left_side else (2, cols, 3))
        check_grads(
            lambda a, b: lax.linalg.triangular_solve(
                _tri(a), b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                unit_diagonal=unit_diagonal,
            ),
            [a, b],
        )  # fmt: skip


def test_triangular_solve_is_transposed_in_b() -> None:
    a = np.asarray(_tri(SQ.astype(np.float32)))
    f = lambda b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)  # noqa: E731
    b = TALL[:4].astype(np.float32)
    _, pullback = vjp(f, b)
    closed = make_jaxpr(lambda ct: pullback(ct))(b)
    solves = [e for e in closed.eqns if e.primitive is P.triangular_solve_p]
    assert [e.params["transpose_a"] for e in solves] == [True]
    # The cotangent is a^-T ct.
    ct = np.ones_like(b)
    (got,) = pullback(ct)
    want = np.linalg.solve(np.tril(a).T, ct)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("x", [SQ, TALL, WIDE, BATCH], ids=["square", "tall", "wide", "batched"])
def test_lu(x: np.ndarray) -> None:
    check_grads(lambda x: lax.linalg.lu(x)[0], [x])


def test_lu_pivots_and_permutation_have_float0_tangents() -> None:
    _, (t_lu, t_piv, t_perm) = jvp(lax.linalg.lu, (SQ.astype(np.float32),),
                                   (np.ones((4, 4), np.float32),))  # fmt: skip
    assert np.asarray(t_piv).dtype == float0 and np.asarray(t_perm).dtype == float0
    assert np.asarray(t_lu).shape == (4, 4)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize(
    ("x", "full"),
    [(SQ, True), (TALL, True), (TALL, False), (WIDE, True), (BATCH[..., :3], False)],
    ids=["square", "tall-complete", "tall-reduced", "wide", "batched-reduced"],
)
def test_qr(x: np.ndarray, full: bool) -> None:
    check_grads(lambda x: lax.linalg.qr(x, full_matrices=full)[0], [x])
    check_grads(lambda x: lax.linalg.qr(x, full_matrices=full)[1], [x], seed=1)


@pytest.mark.usefixtures("x64")
def test_qr_complete_tangent_keeps_q_orthogonal() -> None:
    # d(Q^T Q) = dQ^T Q + Q^T dQ = 0 for the completed (m x m) Q as well.
    t = RNG.standard_normal(TALL.shape)
    (q, _), (dq, _) = jvp(lambda x: lax.linalg.qr(x), (TALL,), (t,))
    q, dq = np.asarray(q), np.asarray(dq)
    np.testing.assert_allclose(dq.T @ q + q.T @ dq, 0, atol=1e-10)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(hnp.arrays(np.float64, (3, 3), elements=st.floats(-1, 1)))
def test_grad_of_log_det_through_cholesky(x: np.ndarray) -> None:
    # log det(S) = 2 sum(log(diag(cholesky(S)))), whose gradient in S is S^-1.
    config.update("jax_enable_x64", True)
    try:
        spd = np.asarray(_gram(x))

        def logdet(s: Any) -> Any:
            chol = lax.linalg.cholesky(s)
            eye = np.eye(3, dtype=bool)
            diag = lax.reduce_sum(lax.select(eye, chol, np.zeros((3, 3))), (1,))
            return lax.mul(2.0, lax.reduce_sum(lax.log(diag), (0,)))

        g = np.asarray(tl.jit(grad(logdet))(spd))
        np.testing.assert_allclose(g, np.linalg.inv(spd), rtol=1e-8, atol=1e-10)
    finally:
        config.update("jax_enable_x64", False)
