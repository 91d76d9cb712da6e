"""``linalg`` factorisations, solvers and determinants against NumPy, eagerly and under jit.

Matrices are drawn by hypothesis and made well conditioned in the strategy
(symmetric positive definite, diagonally dominant, or of full rank), so NumPy's LAPACK
results are a fair oracle. Derivatives and ``vmap`` are tested in the
umbrella package, which has the transformations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import lax, make_jaxpr

# Normal floats only, and none so small that their squares underflow: XLA flushes
# subnormals to zero where LAPACK keeps them (or scales them, in its norms), which
# flips a Householder sign on matrices of tiny entries.
ELEMS = st.floats(-1.0, 1.0, width=32, allow_subnormal=False).map(
    lambda x: 0.0 if abs(x) < 1e-18 else x
)


def _mats(shape: tuple[int, ...]) -> Any:
    return hnp.arrays(np.float32, shape, elements=ELEMS)


def _dominant(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    return (a + n * np.eye(n)).astype(np.float32)


def _spd(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def _full_rank(a: np.ndarray) -> np.ndarray:
    # Adds 5 on the leading diagonal: for entries in [-1, 1], ||a||_2 <= sqrt(15) < 5,
    # so the smallest singular value is above 1 and the factors are unique.
    return (a + 5 * np.eye(*a.shape[-2:])).astype(np.float32)


def _close(got: Any, want: Any, tol: float = 2e-5) -> None:
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype or np.asarray(want).dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol)


@settings(max_examples=10)
@given(_mats((2, 4, 4)))
def test_cholesky_lower_and_upper(a: np.ndarray) -> None:
    spd = _spd(a)
    _close(tnp.linalg.cholesky(spd), np.linalg.cholesky(spd))
    _close(tnp.linalg.cholesky(spd, upper=True), np.swapaxes(np.linalg.cholesky(spd), -1, -2))


@settings(max_examples=10)
@given(_mats((5, 3)), st.sampled_from(["reduced", "complete", "r"]))
def test_qr_matches_numpy_in_every_mode(a: np.ndarray, mode: str) -> None:
    a = _full_rank(a)
    for x in (a, a.T):
        got = tnp.linalg.qr(x, mode=mode)
        want = np.linalg.qr(x, mode=mode)
        if mode == "r":
            _close(got, want)
        else:
            assert isinstance(got, tnp.linalg.QRResult)
            _close(got.Q, want.Q)
            _close(got.R, want.R)


@settings(max_examples=10)
@given(_mats((3, 4, 4)), _mats((4,)), _mats((3, 4, 2)))
def test_solve_and_inv(a: np.ndarray, v: np.ndarray, b: np.ndarray) -> None:
    a = _dominant(a)
    _close(tnp.linalg.solve(a, v), np.linalg.solve(a, v))
    _close(tnp.linalg.solve(a, b), np.linalg.solve(a, b))
    # Batch axes broadcast: one matrix, a batch of right-hand sides.
    _close(tnp.linalg.solve(a[0], b), np.linalg.solve(a[0], b))
    _close(tnp.linalg.inv(a), np.linalg.inv(a))


@settings(max_examples=10)
@given(_mats((2, 5, 5)), st.sampled_from([1, 2, 3, 5]))
def test_det_and_slogdet(a: np.ndarray, n: int) -> None:
    x = _dominant(a[..., :n, :n])
    x[1, 0] *= -1  # a determinant of each sign
    _close(tnp.linalg.det(x), np.linalg.det(x), 1e-4)
    sign, logabsdet = tnp.linalg.slogdet(x)
    want = np.linalg.slogdet(x)
    _close(sign, want.sign)
    _close(logabsdet, want.logabsdet, 1e-4)


def test_singular_matrices() -> None:
    z = np.zeros((4, 4), np.float32)
    sign, logabsdet = tnp.linalg.slogdet(z)
    assert float(sign) == 0.0 and float(logabsdet) == -np.inf
    assert float(tnp.linalg.det(z)) == 0.0


def test_complex_inputs() -> None:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))).astype(np.complex64)
    a = a + 4 * np.eye(4, dtype=np.complex64)
    b = rng.standard_normal(4).astype(np.complex64)
    _close(tnp.linalg.solve(a, b), np.linalg.solve(a, b), 1e-4)
    _close(tnp.linalg.det(a), np.linalg.det(a), 1e-3)
    sign, logabsdet = tnp.linalg.slogdet(a)
    _close(sign, np.linalg.slogdet(a).sign, 1e-4)
    _close(logabsdet, np.linalg.slogdet(a).logabsdet, 1e-4)
    h = a @ a.conj().T
    _close(tnp.linalg.cholesky(h), np.linalg.cholesky(h), 1e-4)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n: int) -> None:
    a = _dominant(np.random.default_rng(2).uniform(-1, 1, (2, 3, 3)))
    want = np.linalg.matrix_power(a.astype(np.float64), n)
    _close(tnp.linalg.matrix_power(a, n), want.astype(np.float32), 1e-4)


def test_diagonal_matches_numpy() -> None:
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    for offset in (-3, -1, 0, 2, 5):
        _close(tnp.linalg.diagonal(x, offset=offset), np.linalg.diagonal(x, offset=offset))


def test_integer_inputs_are_promoted() -> None:
    a = np.array([[2, 1], [1, 3]])
    assert np.asarray(tnp.linalg.inv(a)).dtype == np.float32
    assert np.asarray(tnp.linalg.cholesky(a)).dtype == np.float32


def test_jit_matches_eager() -> None:
    a = _dominant(np.random.default_rng(3).uniform(-1, 1, (4, 4)))
    b = np.ones((4, 2), np.float32)
    for fn, args in (
        (tnp.linalg.cholesky, (_spd(a),)), (tnp.linalg.solve, (a, b)), (tnp.linalg.inv, (a,)),
        (tnp.linalg.det, (a,)), (lambda x: tuple(tnp.linalg.slogdet(x)), (a,)),
        (lambda x: tuple(tnp.linalg.qr(x)), (a,)),
    ):  # fmt: skip
        eager = fn(*args)
        jitted = tl.jit(fn)(*args)
        for e, j in zip(_leaves(eager), _leaves(jitted), strict=True):
            np.testing.assert_array_equal(e, j)


def _leaves(out: Any) -> list[np.ndarray]:
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize(
    ("call", "err", "match"),
    [
        (lambda: tnp.linalg.cholesky(np.ones((2, 3))), ValueError, r"shape \[\.\.\., n, n\]"),
        (lambda: tnp.linalg.inv(np.ones((2, 3))), ValueError, "Argument to inv"),
        (lambda: tnp.linalg.det(np.ones(3)), ValueError, "Argument to det"),
        (lambda: tnp.linalg.slogdet(np.ones((2, 3))), ValueError, "Argument to slogdet"),
        (lambda: tnp.linalg.solve(np.ones((2, 3)), np.ones(2)), ValueError, "solve requires"),
        (lambda: tnp.linalg.solve(np.ones(3), np.ones(3)), ValueError, "two dimensional"),
        (lambda: tnp.linalg.solve(np.ones((2, 3, 3)), np.ones((2, 3))), ValueError,
         r"b\[\.\.\., None\]"),
        (lambda: tnp.linalg.matrix_power(np.ones((2, 3)), 2), TypeError, "square"),
        (lambda: tnp.linalg.matrix_power(np.ones((2, 2)), 1.5), TypeError, "integer"),
        (lambda: tnp.linalg.qr(np.ones((2, 2)), mode="raw"), ValueError, "mode 'raw'"),
        (lambda: tnp.linalg.qr(np.ones(3)), TypeError, "rank at least 2"),
        (lambda: tnp.linalg.slogdet(np.eye(3), method="qr"), NotImplementedError, "method='lu'"),
        (lambda: tnp.linalg.eigh(np.eye(2), UPLO="X"), ValueError, "UPLO must be one of"),
        (lambda: tnp.linalg.eigvalsh(np.eye(2), UPLO="l"), ValueError, "UPLO must be one of"),
        (lambda: tnp.linalg.eigh(np.ones((2, 3))), ValueError, r"shape \[\.\.\., n, n\]"),
        (lambda: tnp.linalg.svd(np.ones(3)), TypeError, "rank at least 2"),
        (lambda: tnp.linalg.pinv(np.eye(2), rtol=0.1, rcond=0.1), ValueError, "pass rtol"),
        (lambda: tnp.linalg.pinv(np.ones(3)), ValueError, "at least 2D"),
        (lambda: tnp.linalg.matrix_rank(np.eye(2), 0.1, tol=0.1), ValueError, "only one of"),
        (lambda: tnp.linalg.cond(np.ones(3)), ValueError, "at least 2D"),
        (lambda: tnp.linalg.cond(np.ones((0, 2))), ValueError, "must not be empty"),
        (lambda: tnp.linalg.cond(np.ones((2, 3)), 1), ValueError, "must be square"),
    ],
)  # fmt: skip
def test_errors_name_the_argument_and_the_fix(call: Any, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        call()


# ------------------------------------------------------- eigen and singular values


@settings(max_examples=10)
@given(_mats((3, 4, 4)))
def test_eigh_and_svd_match_numpy(a: np.ndarray) -> None:
    sym = (a + np.swapaxes(a, -1, -2)) / 2
    w, v = tnp.linalg.eigh(a)
    _close(w, np.linalg.eigvalsh(sym), 1e-5)
    _close(tnp.linalg.eigvalsh(a), np.linalg.eigvalsh(sym), 1e-5)
    v = np.asarray(v)
    _close((v * np.asarray(w)[..., None, :]) @ np.swapaxes(v, -1, -2), sym, 1e-5)
    u, s, vh = tnp.linalg.svd(a[..., :3])
    _close(s, np.linalg.svd(a[..., :3], compute_uv=False), 1e-5)
    u, vh = np.asarray(u), np.asarray(vh)
    _close((u[..., :3] * np.asarray(s)[..., None, :]) @ vh, a[..., :3], 1e-5)
    _close(tnp.linalg.svdvals(a), np.linalg.svd(a, compute_uv=False), 1e-5)
    _close(tnp.linalg.cond(_dominant(a[0])), np.linalg.cond(_dominant(a[0])), 1e-4)


def test_hermitian_svd_sorts_absolute_eigenvalues() -> None:
    rng = np.random.default_rng(4)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    h = ((q * np.array([-5.0, 1.0, -0.5, 3.0])) @ q.T).astype(np.float32)
    u, s, vh = (np.asarray(o) for o in tnp.linalg.svd(h, hermitian=True))
    _close(s, [5.0, 3.0, 1.0, 0.5], 1e-5)
    _close((u * s) @ vh, h, 1e-5)
    _close(tnp.linalg.svd(h, hermitian=True, compute_uv=False), s, 1e-6)
    _close(tnp.linalg.pinv(h, hermitian=True), np.linalg.pinv(h), 1e-5)


def test_complex_spectral_functions() -> None:
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    h = a + a.conj().T
    w, v = tnp.linalg.eigh(h, UPLO="U", symmetrize_input=False)
    assert np.asarray(w).dtype == np.float32 and np.asarray(v).dtype == np.complex64
    _close(w, np.linalg.eigvalsh(h), 1e-5)
    s = tnp.linalg.svd(a, full_matrices=False).S
    _close(s, np.linalg.svd(a, compute_uv=False), 1e-5)
    _close(tnp.linalg.pinv(a), np.linalg.pinv(a), 1e-4)
    _close(tnp.linalg.norm(a, "nuc"), np.linalg.norm(a, "nuc"), 1e-5)
    assert np.asarray(tnp.linalg.matrix_rank(a)) == 3


def test_pinv_matrix_rank_and_cond_edge_cases() -> None:
    assert np.asarray(tnp.linalg.pinv(np.ones((2, 0, 3)))).shape == (2, 3, 0)
    low = np.outer([1.0, 2.0, 3.0], [1.0, -1.0]).astype(np.float32)
    _close(tnp.linalg.pinv(low), np.linalg.pinv(low), 1e-6)
    assert int(tnp.linalg.matrix_rank(low)) == 1
    assert int(tnp.linalg.matrix_rank(low, rtol=100.0)) == 0
    assert int(tnp.linalg.matrix_rank(np.float32(0.0))) == 0
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    assert float(tnp.linalg.cond(singular, 1)) == np.inf
    assert float(tnp.linalg.cond(singular, -2)) < 1e-6
    _close(tnp.linalg.cond(singular.T + np.eye(2), "fro"), np.linalg.cond(singular.T + np.eye(2),
                                                                          "fro"), 1e-5)  # fmt: skip


def test_spectral_jit_matches_eager() -> None:
    a = _dominant(np.random.default_rng(6).uniform(-1, 1, (4, 4)))
    for fn in (
        lambda x: tuple(tnp.linalg.eigh(x)), lambda x: tuple(tnp.linalg.svd(x)),
        tnp.linalg.pinv, tnp.linalg.matrix_rank, tnp.linalg.cond,
        lambda x: tnp.linalg.norm(x, 2),
    ):  # fmt: skip
        for e, j in zip(_leaves(fn(a)), _leaves(tl.jit(fn)(a)), strict=True):
            np.testing.assert_array_equal(e, j)


@pytest.mark.parametrize(
    "product",
    [
        lambda a, p: tnp.matmul(a, a, precision=p),
        lambda a, p: tnp.dot(a[0], a[0], precision=p),
        lambda a, p: tnp.tensordot(a[0], a[0], axes=1, precision=p),
        lambda a, p: tnp.einsum("bij,bjk->bik", a, a, precision=p),
        lambda a, p: tnp.inner(a[0], a[0], precision=p),
        lambda a, p: tnp.vdot(a[0], a[0], precision=p),
        lambda a, p: tnp.linalg.matmul(a, a, precision=p),
    ],
)
def test_products_pass_their_precision_to_dot_general(product: Any) -> None:
    # Dropping it would compute float32 products in TF32 on a GPU.
    a = np.ones((2, 3, 3), np.float32)
    jaxpr = make_jaxpr(lambda x: product(x, "highest"))(a)
    dots = [e for e in jaxpr.eqns if e.primitive.name == "dot_general"]
    assert dots and all(e.params["precision"] == (lax.Precision.HIGHEST,) * 2 for e in dots)
