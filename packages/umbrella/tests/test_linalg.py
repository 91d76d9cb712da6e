"""tessela.numpy.linalg under grad, vmap and jit: finite differences, a Python loop, eager values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

RNG = np.random.default_rng(0)
A = (RNG.uniform(-1, 1, (4, 4)) + 4 * np.eye(4)).astype(np.float64)
B = RNG.uniform(-1, 1, (4, 2))
SPD = A @ A.T
_Q, _ = np.linalg.qr(RNG.standard_normal((4, 4)))
SYM = (_Q * np.array([-2.0, 1.0, 3.0, 6.0])) @ _Q.T  # eigenvalues well apart
SPREAD = A * np.array([1.0, 2.0, 3.5, 5.5])  # singular values well apart


def _spd_of(x: Any) -> Any:
    return x @ x.T + 4 * tnp.eye(4, dtype=x.dtype)


FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "det": (lambda a: tnp.linalg.det(a), (A,)),
    "det_3x3": (lambda a: tnp.linalg.det(a[:3, :3]), (A,)),
    "slogdet": (lambda a: tnp.linalg.slogdet(a)[1], (A,)),
    "solve": (lambda a, b: tnp.linalg.solve(a, b), (A, B)),
    "solve_vector": (lambda a, b: tnp.linalg.solve(a, b[:, 0]), (A, B)),
    "inv": (lambda a: tnp.linalg.inv(a), (A,)),
    "cholesky": (lambda a: tnp.linalg.cholesky(_spd_of(a)), (A,)),
    "qr": (lambda a: tnp.linalg.qr(a[:, :3])[1], (A,)),
    "eigh_values": (lambda a: tnp.linalg.eigh(a).eigenvalues, (SYM,)),
    # Squared entries: independent of each vector's sign.
    "eigh_vectors": (lambda a: tnp.linalg.eigh(a, UPLO="U").eigenvectors ** 2, (SYM,)),
    "eigvalsh": (lambda a: tnp.linalg.eigvalsh(a), (SYM,)),
    "svd_values": (lambda a: tnp.linalg.svd(a[:, :3], compute_uv=False), (SPREAD,)),
    "svd_u": (lambda a: tnp.linalg.svd(a[:, :3], full_matrices=False).U ** 2, (SPREAD,)),
    "svd_vh_wide": (lambda a: tnp.linalg.svd(a[:3], full_matrices=False).Vh ** 2, (SPREAD,)),
    "svd_hermitian": (lambda a: tnp.linalg.svd(a, hermitian=True).S, (SYM,)),
    "svdvals": (lambda a: tnp.linalg.svdvals(a), (SPREAD,)),
    "pinv_tall": (lambda a: tnp.linalg.pinv(a[:, :3]), (SPREAD,)),
    "pinv_wide": (lambda a: tnp.linalg.pinv(a[:3]), (SPREAD,)),
    "pinv_hermitian": (lambda a: tnp.linalg.pinv(a, hermitian=True), (SYM,)),
    "norm_2": (lambda a: tnp.linalg.norm(a, 2), (SPREAD,)),
    "norm_nuc": (lambda a: tnp.linalg.norm(a, "nuc"), (SPREAD,)),
    "cond": (lambda a: tnp.linalg.cond(a), (SPREAD,)),
}


@pytest.fixture
def x64() -> Any:
    tx.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        tx.config.update("jax_enable_x64", False)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_grad_matches_central_differences(name: str) -> None:
    fn, args = FUNCTIONS[name]
    rng = np.random.default_rng(1)
    out = np.asarray(fn(*args))
    w = rng.standard_normal(out.shape)

    def loss(*xs: Any) -> Any:
        return tnp.sum(fn(*xs) * w)

    grads = tx.jit(tx.grad(loss, argnums=tuple(range(len(args)))))(*args)
    dirs = [rng.standard_normal(a.shape) for a in args]
    eps = 1e-6
    plus = float(loss(*(a + eps * d for a, d in zip(args, dirs, strict=True))))
    minus = float(loss(*(a - eps * d for a, d in zip(args, dirs, strict=True))))
    want = (plus - minus) / (2 * eps)
    got = sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(grads, dirs, strict=True))
    assert np.isclose(got, want, rtol=1e-6, atol=1e-8), (got, want)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_vmap_matches_a_python_loop_and_jit_matches_eager(name: str) -> None:
    fn, args = FUNCTIONS[name]
    batch = [np.stack([a, a * 1.5 + 0.1 * np.eye(*a.shape)]).astype(np.float32) for a in args]
    got = np.asarray(tx.vmap(fn)(*batch))
    want = np.stack([np.asarray(fn(*(b[i] for b in batch))) for i in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    eager = np.asarray(fn(*(b[0] for b in batch)))
    np.testing.assert_allclose(np.asarray(tx.jit(fn)(*(b[0] for b in batch))), eager,
                               rtol=1e-6, atol=1e-6)  # fmt: skip


def _block_diag_det(m: Any) -> Any:
    """``det(diag(m, m)) = det(m)**2`` through the LU path (6 x 6)."""
    z = tnp.zeros((3, 3), dtype=m.dtype)
    top = tnp.concatenate([m, z], axis=1)
    bottom = tnp.concatenate([z, m], axis=1)
    return tnp.linalg.det(tnp.concatenate([top, bottom], axis=0))


@settings(max_examples=5, deadline=None, derandomize=True)
@given(hnp.arrays(np.float64, (3, 3), elements=st.floats(-1, 1)))
def test_grad_of_det_is_the_cofactor_matrix(x: np.ndarray) -> None:
    a = x + 3 * np.eye(3)
    d, cof = np.linalg.det(a), np.linalg.det(a) * np.linalg.inv(a).T
    tx.config.update("jax_enable_x64", True)
    try:
        got = np.asarray(tx.grad(tnp.linalg.det)(a))
        np.testing.assert_allclose(got, cof, rtol=1e-8, atol=1e-10)
        got = np.asarray(tx.grad(_block_diag_det)(a))
        np.testing.assert_allclose(got, 2 * d * cof, rtol=1e-8, atol=1e-10)
    finally:
        tx.config.update("jax_enable_x64", False)


def _cofactors(a: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    out = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            out[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


@pytest.mark.usefixtures("x64")
def test_grad_of_det_at_a_singular_matrix_is_the_finite_cofactor_matrix() -> None:
    a = np.random.default_rng(4).standard_normal((5, 5))
    a[:, 4] = a[:, 0] + a[:, 1]  # rank 4: det is 0, its gradient is not
    got = np.asarray(tx.jit(tx.grad(tnp.linalg.det))(a))
    np.testing.assert_allclose(got, _cofactors(a), atol=1e-12)
    assert np.abs(got).max() > 0.1


@settings(max_examples=5, deadline=None, derandomize=True)
@given(hnp.arrays(np.float64, (4, 3), elements=st.floats(-1, 1, allow_subnormal=False)))
def test_pinv_gradient_is_jaxs_custom_jvp_and_pinv_matches_numpy(x: np.ndarray) -> None:
    a = x + np.eye(4, 3) * np.array([3.0, 2.0, 1.0])
    tx.config.update("jax_enable_x64", True)
    try:
        p = np.asarray(tx.jit(tnp.linalg.pinv)(a))
        np.testing.assert_allclose(p, np.linalg.pinv(a), atol=1e-12)
        # Full column rank: pinv(a) = (a^T a)^-1 a^T, whose derivative is known.
        d = np.random.default_rng(0).standard_normal(a.shape)
        _, p_dot = tx.jvp(tnp.linalg.pinv, (a,), (d,))
        inv_ata = np.linalg.inv(a.T @ a)
        want = -inv_ata @ (d.T @ a + a.T @ d) @ inv_ata @ a.T + inv_ata @ d.T
        np.testing.assert_allclose(np.asarray(p_dot), want, atol=1e-10)
    finally:
        tx.config.update("jax_enable_x64", False)


@settings(max_examples=5, deadline=None, derandomize=True)
@given(hnp.arrays(np.float32, (2, 3, 4), elements=st.floats(-1, 1, width=32,
                                                          allow_subnormal=False)))  # fmt: skip
def test_spectral_functions_match_numpy(x: np.ndarray) -> None:
    sym = x[..., :3] + np.swapaxes(x[..., :3], -1, -2)
    w, v = (np.asarray(o) for o in tnp.linalg.eigh(sym))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), atol=1e-5)
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), sym, atol=1e-5)
    s = np.asarray(tnp.linalg.svdvals(x))
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), atol=1e-5)
    for ord in (2, -2, "nuc"):
        np.testing.assert_allclose(
            np.asarray(tnp.linalg.norm(x, ord, axis=(1, 2))),
            np.linalg.norm(x, ord, axis=(1, 2)), rtol=1e-5, atol=1e-5,
        )  # fmt: skip
    np.testing.assert_array_equal(np.asarray(tnp.linalg.matrix_rank(x)), np.linalg.matrix_rank(x))
    low_rank = x[..., :1] * x[..., :1, :]  # rank <= 1
    np.testing.assert_array_equal(
        np.asarray(tnp.linalg.matrix_rank(low_rank)), np.linalg.matrix_rank(low_rank)
    )


def test_the_spectral_names_are_in_tessela_numpy_linalg() -> None:
    names = {"eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "cond",
             "EighResult", "SVDResult"}  # fmt: skip
    assert names <= set(tnp.linalg.__all__)
    assert all(callable(getattr(tnp.linalg, n)) for n in names)
    assert tnp.linalg.eigh(np.eye(2)).eigenvalues.shape == (2,)
    assert tnp.linalg.svd(np.eye(2)).Vh.shape == (2, 2)
