"""cholesky, triangular_solve, lu and qr compiled by XLA, checked by their defining properties.

JAX's own values are compared in ``test_golden.py``; here random matrices drawn
by hypothesis must satisfy what each factorisation promises, eagerly and
under ``jit``, with leading batch axes, for real and complex dtypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import lax

settings.register_profile("linalg", max_examples=10, deadline=None, derandomize=True)

ELEMS = st.floats(-1.0, 1.0, width=32)


def _matrices(shape: tuple[int, ...]) -> Any:
    return hnp.arrays(np.float32, shape, elements=ELEMS)


def _spd(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(a.dtype)


def _unpack_lu(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    upper = np.triu(lu[..., :k, :])
    return lower, upper


_cholesky = tl.jit(lax.linalg.cholesky)
_lu = tl.jit(lax.linalg.lu)


@settings(settings.get_profile("linalg"))
@given(_matrices((2, 4, 4)))
def test_cholesky_reconstructs_and_matches_numpy(a: np.ndarray) -> None:
    spd = _spd(a)
    factor = np.asarray(_cholesky(spd))
    np.testing.assert_array_equal(np.triu(factor, 1), 0)
    np.testing.assert_allclose(factor @ np.swapaxes(factor, -1, -2), spd, atol=2e-5 * 4)
    np.testing.assert_allclose(factor, np.linalg.cholesky(spd), rtol=1e-4, atol=1e-5)


def test_cholesky_of_an_indefinite_matrix_is_nan_per_matrix() -> None:
    good = _spd(np.arange(9, dtype=np.float32).reshape(3, 3) / 9)
    out = np.asarray(_cholesky(np.stack([good, -good])))
    assert np.isfinite(out[0]).all()
    assert np.isnan(out[1][np.tril_indices(3)]).all()
    np.testing.assert_array_equal(np.triu(out[1], 1), 0)


def test_cholesky_complex_has_a_real_positive_diagonal() -> None:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    h = (a @ a.conj().T + 3 * np.eye(3)).astype(np.complex64)
    factor = np.asarray(tl.jit(lax.linalg.cholesky)(h))
    assert (np.diagonal(factor).imag == 0).all() and (np.diagonal(factor).real > 0).all()
    np.testing.assert_allclose(factor @ factor.conj().T, h, atol=1e-4)


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve_solves_the_stated_system(
    left_side: bool, lower: bool, transpose_a: bool, unit_diagonal: bool
) -> None:
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (2, 4, 4)).astype(np.float32) + 3 * np.eye(4, dtype=np.float32)
    b = rng.uniform(-1, 1, (2, 4, 3) if left_side else (2, 3, 4)).astype(np.float32)
    x = np.asarray(
        tl.jit(
            lambda a, b: lax.linalg.triangular_solve(
                a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                unit_diagonal=unit_diagonal,
            )
        )(a, b)
    )  # fmt: skip
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - np.diagonal(t, axis1=-2, axis2=-1)[..., None] * np.eye(4) + np.eye(4)
    if transpose_a:
        t = np.swapaxes(t, -1, -2)
    np.testing.assert_allclose(t @ x if left_side else x @ t, b, atol=1e-5)


def test_triangular_solve_conjugate_a() -> None:
    rng = np.random.default_rng(3)
    a = np.tril(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))) + 3 * np.eye(3)
    a = a.astype(np.complex64)
    b = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    for transpose_a, op in ((False, a.conj()), (True, a.conj().T)):
        x = np.asarray(lax.linalg.triangular_solve(
            a, b, left_side=True, lower=True, transpose_a=transpose_a, conjugate_a=True
        ))  # fmt: skip
        np.testing.assert_allclose(op @ x, b, atol=1e-5)


@settings(settings.get_profile("linalg"))
@given(_matrices((2, 5, 3)), _matrices((3, 4)))
def test_lu_reconstructs_with_partial_pivoting(tall: np.ndarray, wide: np.ndarray) -> None:
    for a in (tall, wide):
        lu, pivots, perm = (np.asarray(o) for o in _lu(a))
        lower, upper = _unpack_lu(lu)
        assert pivots.dtype == perm.dtype == np.int32
        np.testing.assert_allclose(lower @ upper, np.take_along_axis(a, perm[..., None], -2),
                                   atol=1e-5)  # fmt: skip
        # Partial pivoting: every multiplier is at most one in magnitude.
        assert (np.abs(lower) <= 1 + 1e-6).all()
        # The pivots, applied as row swaps in order, give the permutation.
        for idx in np.ndindex(a.shape[:-2]):
            p = list(range(a.shape[-2]))
            for i, s in enumerate(pivots[idx]):
                p[i], p[s] = p[s], p[i]
            assert p == perm[idx].tolist()


def test_lu_complex_and_empty() -> None:
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))).astype(np.complex64)
    lu, _, perm = (np.asarray(o) for o in lax.linalg.lu(a))
    lower, upper = _unpack_lu(lu)
    np.testing.assert_allclose(lower @ upper, a[perm], atol=1e-5)
    lu, pivots, perm = (np.asarray(o) for o in lax.linalg.lu(np.zeros((0, 3), np.float32)))
    assert lu.shape == (0, 3) and pivots.shape == (0,) and perm.shape == (0,)


@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_qr_is_orthonormal_triangular_and_matches_lapack_signs(
    shape: tuple[int, ...], full: bool
) -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    q, r = (np.asarray(o) for o in tl.jit(lambda x: lax.linalg.qr(x, full_matrices=full))(x))
    k = q.shape[-1]
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), (*shape[:-2], k, k)), atol=1e-5)  # fmt: skip
    np.testing.assert_array_equal(np.tril(r, -1), 0)
    np.testing.assert_allclose(q @ r, x, atol=1e-5)
    # numpy.linalg.qr is LAPACK's geqrf/orgqr: the same reflectors, so the same signs.
    qn, rn = np.linalg.qr(x, mode="complete" if full else "reduced")
    np.testing.assert_allclose(q, qn, atol=1e-5)
    np.testing.assert_allclose(r, rn, atol=1e-5)


def test_qr_complex_matches_lapack() -> None:
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))).astype(np.complex64)
    q, r = (np.asarray(o) for o in lax.linalg.qr(x))
    qn, rn = np.linalg.qr(x, mode="complete")
    np.testing.assert_allclose(q, qn, atol=1e-5)
    np.testing.assert_allclose(r, rn, atol=1e-5)


def test_qr_column_already_reduced_is_not_reflected() -> None:
    # LAPACK's larfg makes no reflection (tau = 0) when the column below the
    # diagonal is zero: R keeps the diagonal's sign and Q's column stays e_j.
    x = np.array([[2.0, 1.0], [0.0, -3.0]], np.float32)
    q, r = (np.asarray(o) for o in lax.linalg.qr(x))
    np.testing.assert_array_equal(q, np.eye(2, dtype=np.float32))
    np.testing.assert_array_equal(r, x)


def test_qr_of_a_zero_matrix_makes_no_reflections() -> None:
    q, r = (np.asarray(o) for o in lax.linalg.qr(np.zeros((2, 4, 3), np.float32)))
    np.testing.assert_array_equal(q, np.broadcast_to(np.eye(4, dtype=np.float32), (2, 4, 4)))
    np.testing.assert_array_equal(r, 0)


def test_qr_of_empty_matrices() -> None:
    q, r = (np.asarray(o) for o in lax.linalg.qr(np.zeros((3, 0), np.float32)))
    np.testing.assert_array_equal(q, np.eye(3))
    assert r.shape == (3, 0)


def test_eager_matches_jit() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, (4, 4)).astype(np.float32)
    for fn, arg in ((lax.linalg.lu, x), (lax.linalg.qr, x), (lax.linalg.cholesky, _spd(x))):
        for e, j in zip(_leaves(fn(arg)), _leaves(tl.jit(fn)(arg)), strict=True):
            np.testing.assert_array_equal(e, j)


def _leaves(out: Any) -> list[np.ndarray]:
    return [np.asarray(o) for o in (out if isinstance(out, tuple | list) else [out])]
