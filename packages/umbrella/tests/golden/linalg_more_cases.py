"""The newer ``lax.linalg`` names and what builds on them, run through JAX or Tessela.

``run(ns)`` takes a namespace with ``lax``, ``numpy``, ``scipy_linalg``, ``jit``,
``jvp``, ``vjp`` and ``vmap`` from either library and returns named NumPy arrays. Where a
result is fixed only up to a documented freedom, the case records what is
invariant: eigenvalues sorted, each eigenvector scaled so that its
largest-magnitude entry is real and positive (LAPACK's own normalisation up to
sign), absolute values of Hessenberg and tridiagonal forms (unique up to the
signs of the reflectors). ``generate.py`` writes JAX's side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RNG = np.random.default_rng(20261126)
A4 = RNG.normal(size=(4, 4)).astype(np.float32)
C3 = (RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))).astype(np.complex64)
B233 = RNG.normal(size=(2, 3, 3)).astype(np.float32)
DA4 = RNG.normal(size=(4, 4)).astype(np.float32)
SYM4 = (A4 + A4.T).astype(np.float32)
HERM3 = (C3 + C3.conj().T).astype(np.complex64)
SPD4 = (A4 @ A4.T + 4 * np.eye(4)).astype(np.float32)
TALL = RNG.normal(size=(5, 3)).astype(np.float32)
TAUS = np.array([1.2, 0.7], np.float32)
CTAUS = np.array([1.1 + 0.3j, 0.6 - 0.2j], np.complex64)
CTALL = (RNG.normal(size=(4, 3)) + 1j * RNG.normal(size=(4, 3))).astype(np.complex64)
C53 = RNG.normal(size=(5, 3)).astype(np.float32)
C25 = RNG.normal(size=(2, 5)).astype(np.float32)
DL = np.concatenate([[0.0], RNG.normal(size=4)]).astype(np.float32)
DD = (RNG.normal(size=5) + 4.0).astype(np.float32)
DU = np.concatenate([RNG.normal(size=4), [0.0]]).astype(np.float32)
RHS = RNG.normal(size=(5, 2)).astype(np.float32)
RHS3 = RNG.normal(size=(3, 5, 2)).astype(np.float32)
TANS = [RNG.normal(size=x.shape).astype(np.float32) for x in (DL, DD, DU, RHS)]
PIVOTS = np.array([[2, 2, 3], [1, 3, 2]], np.int32)
R4 = np.linalg.cholesky(SPD4.astype(np.float64)).T.astype(np.float32)
W4 = RNG.normal(size=4).astype(np.float32)
_M5 = RNG.normal(size=(5, 5))
SYM5 = (_M5 + _M5.T).astype(np.float32)


def _np(x: Any) -> np.ndarray:
    return np.asarray(x)


def _order(w: np.ndarray) -> np.ndarray:
    """Eigenvalue order: by real part, then imaginary part, rounded against noise."""
    return np.lexsort((np.round(w.imag, 3), np.round(w.real, 3)), axis=-1)


def _canonical(w: Any, v: Any) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs sorted by eigenvalue, each vector scaled to a real positive largest entry."""
    w, v = _np(w), _np(v)
    k = np.argmax(np.abs(v), axis=-2)
    top = np.take_along_axis(v, k[..., None, :], axis=-2)
    v = v * (np.abs(top) / top)
    order = _order(w)
    return np.take_along_axis(w, order, -1), np.take_along_axis(v, order[..., None, :], -1)


def _sorted(w: Any) -> np.ndarray:
    w = _np(w)
    return np.take_along_axis(w, _order(w), -1)


def run(ns: Any) -> dict[str, np.ndarray]:
    lax, jnp, sl = ns.lax, ns.numpy, ns.scipy_linalg
    linalg = lax.linalg
    out: dict[str, np.ndarray] = {}

    # eig: eigenvalues, both eigenvector sets, complex and batched input.
    w, vl, vr = linalg.eig(A4)
    out["eig/w"], out["eig/vr"] = _canonical(w, vr)
    out["eig/vl"] = _canonical(w, vl)[1]
    out["eig/complex_w"], out["eig/complex_vr"] = _canonical(
        *linalg.eig(C3, compute_left_eigenvectors=False)
    )
    values_only = {"compute_left_eigenvectors": False, "compute_right_eigenvectors": False}
    out["eig/batched_w"] = _sorted(linalg.eig(B233, **values_only)[0])
    out["eig/vmap_w"] = _sorted(ns.vmap(jnp.linalg.eigvals)(B233))

    # eig's JVP: the eigenvalues alone, and the eigenvectors under LAPACK's normalisation.
    def eigvals(a: Any) -> Any:
        return linalg.eig(a, **values_only)[0]

    w, dw = ns.jit(lambda a, da: ns.jvp(eigvals, (a,), (da,)))(A4, DA4)
    order = _order(_np(w))
    out["eig/jvp_dw"] = np.take_along_axis(_np(dw), order, -1)

    def eig_right(a: Any) -> Any:
        return linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)

    (w, _v), (dw, dv) = ns.jit(lambda a, da: ns.jvp(eig_right, (a,), (da,)))(
        SYM4 + np.triu(A4, 1), DA4
    )
    order = _order(_np(w))
    out["eig/jvp_vec_dw"] = np.take_along_axis(_np(dw), order, -1)
    out["eig/jvp_vec_dv"] = np.take_along_axis(_np(dv), order[None, :], -1)

    # numpy.linalg.eig / eigvals.
    res = jnp.linalg.eig(A4)
    out["np_eig/w"], out["np_eig/v"] = _canonical(res.eigenvalues, res.eigenvectors)
    out["np_eigvals"] = _sorted(jnp.linalg.eigvals(C3))

    # schur: the eigenvalues on T's diagonal (blocks) and T's structure.
    t, q = linalg.schur(A4)
    out["schur/eigvals"] = _sorted(np.linalg.eigvals(_np(t)))
    tc, _ = linalg.schur(C3)
    out["schur/complex_diag"] = _sorted(np.diagonal(_np(tc)))
    t_only = linalg.schur(A4, compute_schur_vectors=False)
    out["schur/t_only_count"] = np.array(len(t_only))

    # hessenberg and tridiagonal: unique up to the reflectors' signs.
    h, taus = linalg.hessenberg(A4)
    out["hessenberg/abs_h"] = np.abs(np.triu(_np(h), -1))
    out["hessenberg/taus_shape"] = np.array(_np(taus).shape)
    _, d, e, taus = linalg.tridiagonal(SYM4)
    out["tridiagonal/d"], out["tridiagonal/abs_e"] = _np(d), np.abs(_np(e))
    _, d, e, _ = linalg.tridiagonal(HERM3, lower=False)
    out["tridiagonal/complex_d"], out["tridiagonal/complex_abs_e"] = _np(d), np.abs(_np(e))

    # householder_product and ormqr: functions of the stored reflectors.
    out["householder_product"] = _np(linalg.householder_product(TALL, TAUS))
    out["householder_product/complex"] = _np(linalg.householder_product(CTALL, CTAUS))
    for left in (True, False):
        for transpose in (False, True):
            c = C53 if left else C25
            key = f"ormqr/left={left},transpose={transpose}"
            out[key] = _np(linalg.ormqr(TALL, TAUS, c, left=left, transpose=transpose))

    # tridiagonal_solve, its JVP and VJP, and vmap with a batched right-hand side.
    solve = linalg.tridiagonal_solve
    out["tridiagonal_solve"] = _np(solve(DL, DD, DU, RHS))
    _x, dx = ns.jit(lambda p, t: ns.jvp(solve, p, t))((DL, DD, DU, RHS), tuple(TANS))
    out["tridiagonal_solve/jvp"] = _np(dx)
    _, pullback = ns.vjp(solve, DL, DD, DU, RHS)
    for name, ct in zip(("dl", "d", "du", "b"), pullback(RHS), strict=True):
        out[f"tridiagonal_solve/vjp_{name}"] = _np(ct)
    out["tridiagonal_solve/vmap_b"] = _np(ns.vmap(solve, (None, None, None, 0))(DL, DD, DU, RHS3))

    # lu_pivots_to_permutation, cholesky_update, symmetric_product.
    out["lu_pivots_to_permutation"] = _np(linalg.lu_pivots_to_permutation(PIVOTS, 5))
    out["cholesky_update"] = _np(linalg.cholesky_update(R4, W4))
    out["symmetric_product"] = _np(
        ns.jit(lambda a, c: linalg.symmetric_product(a, c, alpha=2.0, beta=0.5,
                                                      symmetrize_output=True))(TALL, SYM5)
    )  # fmt: skip

    # qdwh: the polar factors of a full-rank matrix.
    u, hh, num_iters, converged = linalg.qdwh(TALL)
    out["qdwh/u"], out["qdwh/h"] = _np(u), _np(hh)
    out["qdwh/converged"], out["qdwh/num_iters"] = _np(converged), _np(num_iters)

    # scipy.linalg: schur, rsf2csf, hessenberg, sqrtm, polar, funm.
    t, _ = sl.schur(A4, output="complex")
    out["scipy_schur/complex_diag"] = _sorted(np.diagonal(_np(t)))
    t, _ = sl.rsf2csf(*sl.schur(A4))
    out["scipy_rsf2csf/diag"] = _sorted(np.diagonal(_np(t)))
    out["scipy_rsf2csf/lower"] = np.abs(np.tril(_np(t), -1)).max(keepdims=True)
    h, q = sl.hessenberg(A4, calc_q=True)
    out["scipy_hessenberg/abs_h"], out["scipy_hessenberg/abs_q"] = np.abs(_np(h)), np.abs(_np(q))
    out["scipy_sqrtm"] = _np(sl.sqrtm(SPD4))
    u, p = sl.polar(TALL.T, side="left")  # QDWH of the adjoint
    out["scipy_polar/qdwh_left_u"], out["scipy_polar/qdwh_left_p"] = _np(u), _np(p)
    u, p = sl.polar(TALL, side="left", method="svd")
    out["scipy_polar/svd_left_u"], out["scipy_polar/svd_left_p"] = _np(u), _np(p)
    out["scipy_funm/exp"] = _np(sl.funm(A4 * 0.3, jnp.exp))
    out["scipy_funm/sin"] = _np(sl.funm(SYM4 * 0.2, jnp.sin))
    return out
