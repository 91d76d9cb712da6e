"""Derivatives of the linear-algebra primitives against finite differences.

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


# ------------------------------------------------------------------ eigh, svd


def _separated_symmetric(seed_matrix: np.ndarray, jitter: np.ndarray) -> np.ndarray:
    """``Q diag(w) Q^T`` with eigenvalues at least 0.5 apart (``Q`` from ``seed_matrix``)."""
    n = seed_matrix.shape[-1]
    q, _ = np.linalg.qr(seed_matrix + 3 * np.eye(n))
    w = np.arange(n) * 1.5 - n + 0.5 * jitter
    return (q * w) @ q.T


def _sq(x: Any) -> Any:
    return lax.mul(x, x)


SEEDS = hnp.arrays(np.float64, (4, 4), elements=st.floats(-1, 1, allow_subnormal=False))
JITTER = hnp.arrays(np.float64, (4,), elements=st.floats(-1, 1, allow_subnormal=False))


@settings(max_examples=6, deadline=None, derandomize=True)
@given(SEEDS, JITTER)
def test_eigh_grads_match_finite_differences(seed: np.ndarray, jitter: np.ndarray) -> None:
    config.update("jax_enable_x64", True)
    try:
        x = _separated_symmetric(seed, jitter)
        check_grads(lambda x: lax.linalg.eigh(x)[1], [x])
        # Squared entries: independent of each eigenvector's sign.
        check_grads(lambda x: _sq(lax.linalg.eigh(x)[0]), [x])
        # sum(w) = trace((x + x^T) / 2), whose gradient is the identity.
        g = grad(lambda x: lax.reduce_sum(lax.linalg.eigh(x)[1], (0,)))(x)
        np.testing.assert_allclose(np.asarray(g), np.eye(4), atol=1e-10)
    finally:
        config.update("jax_enable_x64", False)


@pytest.mark.usefixtures("x64")
def test_eigh_batched_and_complex_tangents() -> None:
    rng = np.random.default_rng(1)
    batch = np.stack([_separated_symmetric(rng.normal(size=(3, 3)), rng.normal(size=3))
                      for _ in range(2)])  # fmt: skip
    check_grads(lambda x: _sq(lax.linalg.eigh(x)[0]), [batch])
    a = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    h = (a + a.conj().T) / 2 + np.diag([0.0, 4.0, 8.0])
    d = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    d = (d + d.conj().T) / 2
    (v, _), (dv, dw) = jvp(lambda x: lax.linalg.eigh(x), (h,), (d,))
    eps = 1e-6
    w_plus = np.asarray(lax.linalg.eigh(h + eps * d)[1])
    w_minus = np.asarray(lax.linalg.eigh(h - eps * d)[1])
    assert np.asarray(dw).dtype == np.float64
    np.testing.assert_allclose(np.asarray(dw), (w_plus - w_minus) / (2 * eps), atol=1e-7)
    # The projector v v^H of each eigenvalue does not depend on the eigenvector's phase.
    v, dv = np.asarray(v), np.asarray(dv)
    v_plus = np.asarray(lax.linalg.eigh(h + eps * d)[0])
    v_minus = np.asarray(lax.linalg.eigh(h - eps * d)[0])
    for j in range(3):
        d_proj = np.outer(dv[:, j], v[:, j].conj()) + np.outer(v[:, j], dv[:, j].conj())
        fd = (np.outer(v_plus[:, j], v_plus[:, j].conj())
              - np.outer(v_minus[:, j], v_minus[:, j].conj())) / (2 * eps)  # fmt: skip
        np.testing.assert_allclose(d_proj, fd, atol=1e-6)


def _svd_parts(x: Any) -> Any:
    u, s, vt = lax.linalg.svd(x, full_matrices=False)
    nd = len(x.shape)
    uu = lax.transpose(_sq(u), (*range(nd - 2), nd - 1, nd - 2))
    return lax.concatenate(
        [uu, lax.broadcast_in_dim(s, (*s.shape, 1), tuple(range(nd - 1))), _sq(vt)], nd - 1
    )


def _well_conditioned(seed: np.ndarray, m: int, n: int) -> np.ndarray:
    x = seed[:m, :n].copy() if m <= seed.shape[0] else np.vstack([seed, seed])[:m, :n]
    k = min(m, n)
    x[range(k), range(k)] += np.arange(k, 0, -1) * 2.0
    return x


@settings(max_examples=5, deadline=None, derandomize=True)
@given(SEEDS)
def test_svd_grads_match_finite_differences(seed: np.ndarray) -> None:
    config.update("jax_enable_x64", True)
    try:
        for m, n in ((4, 4), (4, 3), (3, 4)):
            x = _well_conditioned(seed, m, n)
            check_grads(_svd_parts, [x])
            check_grads(lambda x: lax.linalg.svd(x, compute_uv=False), [x])
        # The nuclear norm sum(s) has gradient u vh on full-rank matrices.
        x = _well_conditioned(seed, 4, 3)
        g = grad(lambda x: lax.reduce_sum(lax.linalg.svd(x, compute_uv=False), (0,)))(x)
        u, _, vt = np.linalg.svd(x, full_matrices=False)
        np.testing.assert_allclose(np.asarray(g), u @ vt, atol=1e-9)
    finally:
        config.update("jax_enable_x64", False)


@pytest.mark.usefixtures("x64")
def test_svd_full_matrices_jvp_square_works_and_non_square_raises() -> None:
    x = _well_conditioned(SQ, 4, 4)
    check_grads(lambda x: _sq(lax.linalg.svd(x, full_matrices=True)[0]), [x])
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        jvp(lambda x: lax.linalg.svd(x, full_matrices=True), (TALL,), (TALL,))
    # Values only: full_matrices does not matter.
    check_grads(lambda x: lax.linalg.svd(x, full_matrices=True, compute_uv=False), [TALL])


def test_eigh_subset_jvp_raises() -> None:
    prim = P.eigh_p
    x = np.eye(3, dtype=np.float32)
    with pytest.raises(NotImplementedError, match="partial eigen decomposition"):
        jvp(
            lambda x: prim.bind(x, lower=True, sort_eigenvalues=True, subset_by_index=(0, 2),
                                algorithm=None),
            (x,), (x,),
        )  # fmt: skip
