"""Derivatives of eig, schur and the structured-matrix primitives.

``eig``'s JVP (eigenvalues, and eigenvectors under LAPACK's normalisation) is
compared with central differences of the primitive itself; ``tridiagonal_solve``
with ``check_grads`` (reverse mode against central differences, ``jvp``
against ``vjp``). The primitives JAX gives no derivative raise
``NotImplementedError``. JAX's own values are compared in the umbrella's
``test_linalg_more_golden.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from _checks import check_grads
from tessela_autodiff import grad, jvp
from tessela_tracer import lax
from tessela_tracer.dtypes import float0

pytestmark = pytest.mark.usefixtures("x64_module")

RNG = np.random.default_rng(7)
# Distinct real eigenvalues: the order LAPACK returns them in survives a small step.
A = np.diag([1.0, 2.5, 4.0, -3.0]) + 0.3 * RNG.uniform(-1, 1, (4, 4))
DA = RNG.uniform(-1, 1, (4, 4))
CPLX = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
DCPLX = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))


def _central(f: Any, x: np.ndarray, dx: np.ndarray, eps: float = 1e-6) -> list[np.ndarray]:
    plus, minus = f(x + eps * dx), f(x - eps * dx)
    return [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(plus, minus, strict=True)]


def _values(a: Any) -> Any:
    return lax.linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)


@pytest.mark.parametrize(("a", "da"), [(A, DA), (CPLX, DCPLX)], ids=["real", "complex"])
def test_eigenvalue_jvp_matches_central_differences(a: np.ndarray, da: np.ndarray) -> None:
    _, (dw,) = tl.jit(lambda a, da: jvp(_values, (a,), (da,)))(a, da)
    assert np.asarray(dw).dtype == np.complex128
    want = _central(tl.jit(_values), a, da)[0]
    np.testing.assert_allclose(np.asarray(dw), want, rtol=1e-5, atol=1e-6)


def test_eigenvector_jvp_under_lapack_normalisation_matches_central_differences() -> None:
    def eig(a: Any) -> Any:
        return lax.linalg.eig(a, enable_eigvec_derivs=True)

    _, tangents = tl.jit(lambda a, da: jvp(eig, (a,), (da,)))(A, DA)
    fd = _central(tl.jit(eig), A, DA)
    for got, want in zip(tangents, fd, strict=True):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_eigenvector_jvp_needs_opt_in() -> None:
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs=True"):
        jvp(lambda a: lax.linalg.eig(a)[1], (A,), (DA,))


def test_eigenvalue_gradient_through_transposition() -> None:
    def top(a: Any) -> Any:
        return lax.reduce_sum(lax.real(_values(a)[0]), (0,))

    g = np.asarray(tl.jit(grad(top))(A))
    fd = (float(top(A + 1e-6 * DA)) - float(top(A - 1e-6 * DA))) / 2e-6
    np.testing.assert_allclose(np.sum(g * DA), fd, rtol=1e-5)


def _diags(n: int) -> tuple[np.ndarray, ...]:
    dl = np.concatenate([[0.0], RNG.normal(size=n - 1)])
    du = np.concatenate([RNG.normal(size=n - 1), [0.0]])
    return dl, RNG.normal(size=n) + 4.0, du


@pytest.mark.parametrize("batch", [(), (2,)], ids=["one", "batched"])
def test_tridiagonal_solve_gradients(batch: tuple[int, ...]) -> None:
    dl, d, du = (np.broadcast_to(v, (*batch, 5)).copy() for v in _diags(5))
    b = RNG.normal(size=(*batch, 5, 2))
    check_grads(lax.linalg.tridiagonal_solve, [dl, d, du, b])


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (lambda a: lax.linalg.schur(a)[0], [A]),
        (lambda a: lax.linalg.hessenberg(a)[0], [A]),
        (lambda a: lax.linalg.tridiagonal(a)[1], [A + A.T]),
        (lax.linalg.householder_product, [A[:, :3], np.array([1.1, 0.5])]),
        (lambda a, t: lax.linalg.ormqr(a, t, np.eye(4)), [A[:, :3], np.array([1.1, 0.5])]),
        (lax.linalg.cholesky_update, [np.triu(A) + 3 * np.eye(4), A[0]]),
        (lax.linalg.symmetric_product, [A[:, :2], A + A.T]),
    ],
)
def test_primitives_without_derivative_raise(fn: Any, args: list[np.ndarray]) -> None:
    with pytest.raises(NotImplementedError, match="Differentiation rule for"):
        jvp(fn, tuple(args), tuple(np.ones_like(x) for x in args))


def test_pivots_to_permutation_has_zero_tangent_and_zero_tangents_pass_through() -> None:
    def f(a: Any) -> Any:
        t = lax.linalg.hessenberg(lax.stop_gradient(a))[0]
        return lax.add(t, a)

    _, tangent = jvp(f, (A,), (DA,))
    np.testing.assert_allclose(np.asarray(tangent), DA)
    pivots = np.array([1, 2], np.int32)
    out, tangent = jvp(lambda p: lax.linalg.lu_pivots_to_permutation(p, 3), (pivots,),
                       (np.zeros((2,), float0),))  # fmt: skip
    assert np.asarray(out).tolist() == [1, 2, 0]
    assert np.asarray(tangent).dtype == float0
