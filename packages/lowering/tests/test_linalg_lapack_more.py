"""eig, schur and the structured-matrix primitives compiled through jaxlib's LAPACK kernels.

Each result is checked by its defining property against NumPy/SciPy, for
real and complex dtypes with a batch axis; the generic lowerings (the
reflector loop of ``ormqr``/``householder_product``, the Thomas algorithm of
``tridiagonal_solve``), which other platforms use, are run on CPU through
their Python definitions and compared with the LAPACK results. JAX's own
values are compared in the umbrella's ``test_linalg_more_golden.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.linalg
import tessela_lowering as tl
from tessela_lowering import _rules_structured
from tessela_tracer import lax

RNG = np.random.default_rng(3)
DTYPES = [np.float32, np.complex128]


def _rand(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    x = RNG.normal(size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dtype)


def _H(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _tol(dtype: Any) -> float:
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_satisfies_both_eigenvector_equations(dtype: Any) -> None:
    a = _rand((2, 4, 4), dtype)
    w, vl, vr = (np.asarray(o) for o in tl.jit(lax.linalg.eig)(a))
    assert w.dtype == np.result_type(dtype, np.complex64)
    np.testing.assert_allclose(a @ vr, vr * w[..., None, :], atol=_tol(dtype))
    np.testing.assert_allclose(_H(vl) @ a, w[..., :, None] * _H(vl), atol=_tol(dtype))
    for m, wm in zip(a, w, strict=True):
        np.testing.assert_allclose(np.sort_complex(wm), np.sort_complex(np.linalg.eigvals(m)),
                                   atol=_tol(dtype))  # fmt: skip


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
def test_schur_reconstructs(dtype: Any) -> None:
    a = _rand((2, 4, 4), dtype)
    t, q = (np.asarray(o) for o in tl.jit(lax.linalg.schur)(a))
    np.testing.assert_allclose(q @ t @ _H(q), a, atol=_tol(dtype))
    assert np.all(np.tril(t, -2) == 0)
    (t_only,) = tl.jit(lambda x: lax.linalg.schur(x, compute_schur_vectors=False))(a)
    np.testing.assert_allclose(np.asarray(t_only), t, atol=_tol(dtype))


def test_schur_sorting_is_refused_when_compiled() -> None:
    with pytest.raises(NotImplementedError, match="sort"):
        tl.jit(lambda x: lax.linalg.schur(x, sort_eig_vals=True))(np.eye(2, dtype=np.float32))


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
def test_hessenberg_matches_scipy(dtype: Any) -> None:
    a = _rand((2, 5, 5), dtype)
    h, taus = (np.asarray(o) for o in tl.jit(lax.linalg.hessenberg)(a))
    assert taus.shape == (2, 4)
    q = np.asarray(tl.jit(lax.linalg.householder_product)(h[:, 1:, :-1], taus))
    for i in range(2):
        hs, _ = scipy.linalg.hessenberg(a[i], calc_q=True)
        np.testing.assert_allclose(np.abs(np.triu(h[i], -1)), np.abs(hs), atol=_tol(dtype))
        full_q = scipy.linalg.block_diag(1, q[i])
        np.testing.assert_allclose(full_q @ np.triu(h[i], -1) @ _H(full_q), a[i],
                                   atol=_tol(dtype))  # fmt: skip


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_tridiagonal_keeps_the_spectrum(dtype: Any, lower: bool) -> None:
    x = _rand((2, 4, 4), dtype)
    herm = x + _H(x)
    _, d, e, taus = (
        np.asarray(o) for o in tl.jit(lambda a: lax.linalg.tridiagonal(a, lower=lower))(herm)
    )
    assert d.dtype == e.dtype == np.zeros((), dtype).real.dtype and taus.dtype == dtype
    for i in range(2):
        tri = np.diag(d[i]) + np.diag(e[i], 1) + np.diag(e[i], -1)
        np.testing.assert_allclose(np.linalg.eigvalsh(tri), np.linalg.eigvalsh(herm[i]),
                                   atol=_tol(dtype))  # fmt: skip


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_product_and_ormqr_agree_with_lapack_qr_and_the_loop(dtype: Any) -> None:
    a = _rand((2, 5, 3), dtype)
    raw = [scipy.linalg.qr(m, mode="raw")[0] for m in a]
    h = np.stack([r[0] for r in raw]).astype(dtype)
    taus = np.stack([r[1] for r in raw]).astype(dtype)
    q = np.asarray(tl.jit(lax.linalg.householder_product)(h, taus))
    for i in range(2):
        np.testing.assert_allclose(q[i], scipy.linalg.qr(a[i], mode="economic")[0],
                                   atol=_tol(dtype))  # fmt: skip
    loop = tl.jit(_rules_structured._householder_product_python)(h, taus)
    np.testing.assert_allclose(np.asarray(loop), q, atol=_tol(dtype))
    for left in (True, False):
        for transpose in (False, True):
            c = _rand((2, 5, 2) if left else (2, 2, 5), dtype)
            kw = {"left": left, "transpose": transpose}
            got = np.asarray(tl.jit(lax.linalg.ormqr, static_argnames=("left", "transpose"))(
                h, taus, c, **kw))  # fmt: skip
            full = np.stack([scipy.linalg.qr(m)[0] for m in a]).astype(dtype)
            op = _H(full) if transpose else full
            want = op @ c if left else c @ op
            np.testing.assert_allclose(got, want, atol=_tol(dtype))
            loop = tl.jit(_rules_structured._ormqr_python, static_argnames=("left", "transpose"))
            np.testing.assert_allclose(np.asarray(loop(h, taus, c, **kw)), got, atol=_tol(dtype))


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
def test_tridiagonal_solve_lapack_and_thomas(dtype: Any) -> None:
    dl, du = _rand((2, 6), dtype), _rand((2, 6), dtype)
    d = _rand((2, 6), dtype) + 5
    b = _rand((2, 6, 3), dtype)
    x = np.asarray(tl.jit(lax.linalg.tridiagonal_solve)(dl, d, du, b))
    for i in range(2):
        a = np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1)
        np.testing.assert_allclose(a @ x[i], b[i], atol=_tol(dtype))
    thomas = tl.jit(lambda *args: _rules_structured._thomas(*args, perturb_singular=False))
    np.testing.assert_allclose(np.asarray(thomas(dl, d, du, b)), x, atol=_tol(dtype))


def test_tridiagonal_solve_of_a_singular_system() -> None:
    zeros = np.zeros(3, np.float32)
    d = np.array([1.0, 0.0, 1.0], np.float32)
    b = np.ones((3, 1), np.float32)
    assert np.isnan(np.asarray(lax.linalg.tridiagonal_solve(zeros, d, zeros, b))).all()
    out = np.asarray(lax.linalg.tridiagonal_solve(zeros, d, zeros, b, perturb_singular=True))
    assert np.isfinite(out).all()


def test_pivots_cholesky_update_and_symmetric_product() -> None:
    perm = tl.jit(lambda p: lax.linalg.lu_pivots_to_permutation(p, 4))
    pivots = np.array([[3, 3, 2], [0, 2, 3]], np.int32)
    assert np.asarray(perm(pivots)).tolist() == [[3, 0, 2, 1], [0, 2, 3, 1]]
    a = _rand((4, 4), np.float32)
    spd = a @ a.T + 4 * np.eye(4, dtype=np.float32)
    r = np.linalg.cholesky(spd).T
    w = _rand((4,), np.float32)
    r2 = np.asarray(tl.jit(lax.linalg.cholesky_update)(r, w))
    np.testing.assert_allclose(r2.T @ r2, spd + np.outer(w, w), atol=1e-4)
    np.testing.assert_allclose(np.tril(r2, -1), 0, atol=1e-6)
    sp = tl.jit(lambda a, c: lax.linalg.symmetric_product(a, c, alpha=0.5, beta=2.0))
    np.testing.assert_allclose(np.tril(np.asarray(sp(a[:, :3], spd))),
                               np.tril(0.5 * a[:, :3] @ a[:, :3].T + 2 * spd), atol=1e-4)  # fmt: skip
