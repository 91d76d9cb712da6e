"""vmap of eig, schur and the structured-matrix primitives agrees with a Python loop.

Every operand is batched at a non-leading axis somewhere, and unbatched
operands are mixed with batched ones; ``tridiagonal_solve`` with only its
right-hand side batched folds the batch into the columns of one solve.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import check
from tessela_batching import vmap
from tessela_tracer import lax, make_jaxpr

RNG = np.random.default_rng(1)
A = RNG.standard_normal((3, 4, 4)).astype(np.float32)
SYM = (A + np.swapaxes(A, -1, -2)).astype(np.float32)
TALL = RNG.standard_normal((3, 5, 3)).astype(np.float32)
TAUS = RNG.uniform(0.5, 1.5, (3, 2)).astype(np.float32)
C = RNG.standard_normal((3, 5, 2)).astype(np.float32)
DL = RNG.standard_normal((3, 5)).astype(np.float32)
D = (RNG.standard_normal((3, 5)) + 4).astype(np.float32)
DU = RNG.standard_normal((3, 5)).astype(np.float32)
RHS = RNG.standard_normal((3, 5, 2)).astype(np.float32)
SPD = (A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)).astype(np.float32)
UPPER = np.swapaxes(np.linalg.cholesky(SPD.astype(np.float64)), -1, -2).astype(np.float32)
W = RNG.standard_normal((3, 4)).astype(np.float32)


def _values(x: Any) -> Any:
    return lax.linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False)


@pytest.mark.parametrize("in_axis", [0, 2])
def test_eig_values(in_axis: int) -> None:
    check(_values, (in_axis,), np.moveaxis(A, 0, in_axis), rtol=1e-4)


def test_eig_and_schur_vectors() -> None:
    check(lax.linalg.eig, (1,), np.moveaxis(A, 0, 1), rtol=1e-4)
    check(lax.linalg.schur, (0,), A, rtol=1e-4)


@pytest.mark.parametrize("in_axis", [0, 2])
def test_hessenberg_and_tridiagonal(in_axis: int) -> None:
    check(lax.linalg.hessenberg, (in_axis,), np.moveaxis(A, 0, in_axis), rtol=1e-4)
    check(lax.linalg.tridiagonal, (in_axis,), np.moveaxis(SYM, 0, in_axis), rtol=1e-4)


@pytest.mark.parametrize("in_axes", [(0, 0), (2, None), (None, 1)])
def test_householder_product(in_axes: tuple[Any, Any]) -> None:
    a = np.moveaxis(TALL, 0, in_axes[0]) if in_axes[0] is not None else TALL[0]
    t = np.moveaxis(TAUS, 0, in_axes[1]) if in_axes[1] is not None else TAUS[0]
    check(lax.linalg.householder_product, in_axes, a, t, rtol=1e-4)


@pytest.mark.parametrize("left", [True, False])
def test_ormqr(left: bool) -> None:
    c = C if left else np.swapaxes(C, -1, -2)

    def f(a: Any, t: Any, c: Any) -> Any:
        return lax.linalg.ormqr(a, t, c, left=left, transpose=not left)

    check(f, (None, 0, 2), TALL[0], TAUS, np.moveaxis(c, 0, 2), rtol=1e-4)


@pytest.mark.parametrize("in_axes", [(0, 0, 0, 0), (None, None, None, 2), (1, None, 0, None)])
def test_tridiagonal_solve(in_axes: tuple[Any, ...]) -> None:
    args = []
    for x, ax in zip((DL, D, DU, RHS), in_axes, strict=True):
        args.append(x[0] if ax is None else np.moveaxis(x, 0, ax))
    check(lax.linalg.tridiagonal_solve, in_axes, *args, rtol=1e-4)


def test_tridiagonal_solve_folds_a_batched_right_hand_side_into_columns() -> None:
    jaxpr = make_jaxpr(vmap(lax.linalg.tridiagonal_solve, (None, None, None, 0)))(
        DL[0], D[0], DU[0], RHS
    )
    solve = next(e for e in jaxpr.eqns if e.primitive.name == "tridiagonal_solve")
    assert tuple(solve.invars[3].aval.shape) == (5, 6)


def test_lu_pivots_to_permutation() -> None:
    pivots = np.array([[2, 2, 3], [1, 3, 2], [0, 4, 4]], np.int32)
    check(lambda p: lax.linalg.lu_pivots_to_permutation(p, 5), (1,), pivots.T)


def test_cholesky_update_updates_each_member() -> None:
    check(lax.linalg.cholesky_update, (0, 1), UPPER, W.T, rtol=1e-4)


def test_symmetric_product() -> None:
    def f(a: Any, c: Any) -> Any:
        return lax.linalg.symmetric_product(a, c, alpha=2.0, beta=-1.0, symmetrize_output=True)

    sym5 = np.eye(5, dtype=np.float32) + np.float32(0.5)
    check(f, (2, None), np.moveaxis(TALL, 0, 2), sym5, rtol=1e-4)
