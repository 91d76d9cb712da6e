"""JVP and transpose rules of the linear-algebra primitives, with JAX's formulas.

- ``cholesky``: ``L' = L phi(L^-1 A' L^-H)`` where ``phi`` keeps the lower
  triangle and halves the diagonal (Murray, arXiv:1602.07527).
- ``triangular_solve``: linear in ``b`` (its JVP solves with the tangent and
  its transpose solves with ``a`` transposed); in ``a`` the tangent is
  ``-op(a)^-1 op(a') x`` (or the right-side analogue), ordered as the cheaper
  product.
- ``lu``: ``L' = L tril(L^-1 P A' U^-1, -1)``, ``U' = triu(L^-1 P A' U^-1) U``
  (de Hoog, Anderssen and Lukas).
- ``qr``: the thin-QR rule for tall and square inputs, its block form for
  wide ones, and the completion of ``Q`` for ``full_matrices`` with ``m > n``
  (arXiv:2409.13374), as JAX 0.10.2 computes them.
- ``eigh``: nondegenerate perturbation theory, ``w' = real(diag(V^H A' V))``
  and ``V' = V (F * (V^H A' V))`` with ``F[i, j] = 1 / (w_j - w_i)`` off the
  diagonal and zero on it (Giles, NA-08-01); the primal is the decomposition
  of the Hermitian part of ``A``, as in JAX.
- ``eig``: the eigenvalues' tangent ``diag(V^-1 A' V)`` (arXiv:1701.00392,
  eq. 4.60); with ``enable_eigvec_derivs``, the eigenvectors' tangent by
  nondegenerate perturbation theory, fixed to LAPACK's normalisation (unit
  norm, largest-magnitude component real), as JAX 0.10.2 computes it; without
  it, differentiating the eigenvectors raises ``NotImplementedError``.
- ``schur``: no derivative (``NotImplementedError``), as in JAX.
- ``svd``: JAX's rule from the thin SVD (``ds = real(diag(U^H A' V))``, then
  ``dU`` and ``dV`` through ``F[i, j] = 1 / (s_j^2 - s_i^2)``, plus the
  components outside the column spaces for non-square inputs); the
  ``full_matrices=True`` JVP of a non-square matrix is not implemented.

Every rule works on leading batch axes directly (batched ``dot_general``,
batched triangular solves, a one-hot matrix for row permutations), so
differentiation needs no ``vmap``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import issubdtype
from tessela_tracer.extend import get_aval_of
from tessela_tracer.lax import linalg
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import defjvp
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


# ------------------------------------------------------------------ helpers


def _is_complex(x: Any) -> bool:
    return bool(issubdtype(get_aval_of(x).dtype, np.complexfloating))


def _nb(x: Any) -> int:
    return get_aval_of(x).ndim - 2


def _mT(x: Any) -> Any:
    nd = get_aval_of(x).ndim
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x: Any) -> Any:
    xt = _mT(x)
    return lax.conj(xt) if _is_complex(x) else xt


def _matmul(a: Any, b: Any) -> Any:
    nb = _nb(a)
    batch = tuple(range(nb))
    return lax.dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)))


def _mask(x: Any, k: int, *, lower: bool) -> Any:
    """``tril(x, k)`` (``lower``) or ``triu(x, k)``."""
    shape = get_aval_of(x).shape
    nb = len(shape) - 2
    rows = lax.broadcasted_iota(np.int32, shape[-2:], 0)
    cols = lax.broadcasted_iota(np.int32, shape[-2:], 1)
    diff = lax.sub(cols, rows)
    keep = lax.le(diff, np.int32(k)) if lower else lax.ge(diff, np.int32(k))
    keep = lax.broadcast_in_dim(keep, shape, (nb, nb + 1))
    return lax.select(keep, x, _zeros(shape, get_aval_of(x).dtype))


def _tril(x: Any, k: int = 0) -> Any:
    return _mask(x, k, lower=True)


def _triu(x: Any, k: int = 0) -> Any:
    return _mask(x, k, lower=False)


def _zeros(shape: Sequence[int], dtype: Any) -> Any:
    return lax.broadcast_in_dim(np.zeros((), dtype), tuple(shape), ())


def _eye(batch: Sequence[int], n: int, dtype: Any) -> Any:
    eye = np.eye(n, dtype=dtype)
    return lax.broadcast_in_dim(eye, (*batch, n, n), (len(batch), len(batch) + 1))


def _block(x: Any, rows: tuple[int, int] | None, cols: tuple[int, int] | None) -> Any:
    """``x[..., r0:r1, c0:c1]`` (``None`` keeps the whole axis)."""
    shape = get_aval_of(x).shape
    r0, r1 = rows if rows is not None else (0, shape[-2])
    c0, c1 = cols if cols is not None else (0, shape[-1])
    nb = len(shape) - 2
    return lax.slice(x, (0,) * nb + (r0, c0), (*shape[:-2], r1, c1))


def _pad_last2(x: Any, rows: tuple[int, int], cols: tuple[int, int]) -> Any:
    nb = _nb(x)
    config = [(0, 0, 0)] * nb + [(rows[0], rows[1], 0), (cols[0], cols[1], 0)]
    return lax.pad(x, np.zeros((), get_aval_of(x).dtype), config)


def _perm_onehot(perm: Any, x: Any) -> Any:
    """The one-hot matrix ``P`` with ``P @ x == x[..., perm, :]``, in ``x``'s dtype."""
    shape = get_aval_of(x).shape
    nb = len(shape) - 2
    m = shape[-2]
    batch = tuple(shape[:-2])
    hit = lax.eq(
        lax.broadcast_in_dim(perm, (*batch, m, m), (*range(nb), nb)),
        lax.broadcasted_iota(np.int32, (*batch, m, m), nb + 1),
    )
    return lax.convert_element_type(hit, get_aval_of(x).dtype)


def _permute_rows(perm: Any, x: Any) -> Any:
    """``x[..., perm, :]`` as a product with a one-hot matrix (linear in ``x``)."""
    return _matmul(_perm_onehot(perm, x), x)


def _unpermute_rows(perm: Any, x: Any) -> Any:
    """The inverse of :func:`_permute_rows`."""
    return _matmul(_mT(_perm_onehot(perm, x)), x)


# ------------------------------------------------------------------ cholesky


def _cholesky_jvp(primals: Sequence[ArrayLike], tangents: Sequence[Tangent]) -> tuple[Any, Any]:
    (x,), (sigma_dot,) = primals, tangents
    factor = _tril(P.cholesky_p.bind(x))
    if type(sigma_dot) is Zero:
        return factor, Zero(sigma_dot.aval)
    tmp = linalg.triangular_solve(
        factor, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True
    )
    inner = linalg.triangular_solve(factor, tmp, left_side=True, transpose_a=False, lower=True)
    shape = get_aval_of(inner).shape
    halve = lax.add(
        np.ones((), get_aval_of(inner).dtype), _eye(shape[:-2], shape[-1], get_aval_of(inner).dtype)
    )
    return factor, _matmul(factor, lax.div(_tril(inner), halve))


register_jvp(P.cholesky_p, _cholesky_jvp)


# ----------------------------------------------------------- triangular_solve


def _triangular_solve_jvp_a(
    g_a: Any,
    ans: Any,
    a: Any,
    b: Any,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> Any:
    m, n = get_aval_of(b).shape[-2:]
    k = 1 if unit_diagonal else 0
    g_a = _tril(g_a, -k) if lower else _triu(g_a, k)
    g_a = lax.neg(g_a)
    g_a = _mT(g_a) if transpose_a else g_a
    g_a = lax.conj(g_a) if conjugate_a else g_a

    def a_inverse(rhs: ArrayLike) -> Array:
        out = P.triangular_solve_p.bind(
            a, rhs, left_side=left_side, lower=lower, transpose_a=transpose_a,
            conjugate_a=conjugate_a, unit_diagonal=unit_diagonal,
        )  # fmt: skip
        return cast(Array, out)

    if left_side:
        return a_inverse(_matmul(g_a, ans)) if m > n else _matmul(a_inverse(g_a), ans)
    return a_inverse(_matmul(ans, g_a)) if m < n else _matmul(ans, a_inverse(g_a))


def _triangular_solve_jvp_b(g_b: Any, ans: Any, a: Any, b: Any, **params: Any) -> Any:
    return P.triangular_solve_p.bind(a, g_b, **params)


def _triangular_solve_transpose(
    ct: Any,
    a: Any,
    b: Any,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    ct_b = P.triangular_solve_p.bind(
        a, ct, left_side=left_side, lower=lower, transpose_a=not transpose_a,
        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal,
    )  # fmt: skip
    return [None, ct_b]


defjvp(P.triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)
register_transpose(P.triangular_solve_p, _triangular_solve_transpose)


# ------------------------------------------------------------------------ lu


def _lu_jvp(primals: Sequence[ArrayLike], tangents: Sequence[Tangent]) -> tuple[Any, Any]:
    (a,), (a_dot,) = primals, tangents
    lu, pivots, perm = P.lu_p.bind(a)
    zero_ints = [Zero.from_primal(pivots), Zero.from_primal(perm)]
    if type(a_dot) is Zero:
        return [lu, pivots, perm], [Zero(a_dot.aval), *zero_ints]
    shape = get_aval_of(a).shape
    dtype = get_aval_of(a).dtype
    batch, (m, n) = tuple(shape[:-2]), shape[-2:]
    k = min(m, n)
    lower = _pad_last2(_tril(_block(lu, None, (0, k)), -1), (0, 0), (0, m - k))
    lower = lax.add(lower, _eye(batch, m, dtype))
    u_eye = _pad_last2(_eye(batch, n - k, dtype), (k, 0), (k, 0))
    upper = lax.add(_pad_last2(_triu(_block(lu, (0, k), None)), (0, n - k), (0, 0)), u_eye)
    la = linalg.triangular_solve(
        lower, _permute_rows(perm, a_dot), left_side=True, lower=True, unit_diagonal=True
    )
    lau = linalg.triangular_solve(upper, la, left_side=False, lower=False)
    lu_dot = lax.add(_matmul(lower, _tril(lau, -1)), _matmul(_triu(lau), upper))
    return [lu, pivots, perm], [lu_dot, *zero_ints]


register_jvp(P.lu_p, _lu_jvp)


# ------------------------------------------------------------------------ qr


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple[Any, Any]:
    """JVP of ``x = q r`` for ``[..., m, n]`` with ``m >= n``."""
    dx_rinv = linalg.triangular_solve(r, dx)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    lower = _tril(qt_dx_rinv, -1)
    do = lax.sub(lower, _H(lower))  # skew-Hermitian
    if _is_complex(qt_dx_rinv):
        shape = get_aval_of(qt_dx_rinv).shape
        dtype = get_aval_of(qt_dx_rinv).dtype
        imag_part = lax.sub(qt_dx_rinv, lax.convert_element_type(lax.real(qt_dx_rinv), dtype))
        do = lax.add(do, lax.mul(_eye(shape[:-2], shape[-1], dtype), imag_part))
    dq = lax.add(_matmul(q, lax.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(lax.sub(qt_dx_rinv, do), r)
    return dq, dr


def _lu_solve_adjoint(lu: Any, perm: Any, b: Any) -> Any:
    """Solve ``a^H x = b`` from ``lu(a)``."""
    x = linalg.triangular_solve(
        lu, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True
    )
    x = linalg.triangular_solve(
        lu, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
        conjugate_a=True,
    )  # fmt: skip
    return _unpermute_rows(perm, x)


def _qr_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, pivoting: bool, full_matrices: bool,
    use_magma: Any,
) -> tuple[Any, Any]:  # fmt: skip
    (x,), (dx,) = primals, tangents
    q, r = P.qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    if type(dx) is Zero:
        return [q, r], [Zero.from_primal(q), Zero.from_primal(r)]
    m, n = get_aval_of(x).shape[-2:]
    nb = _nb(x)
    if m < n:
        # x = [x1 x2] with x1 square: (q, r1) is the QR of x1 and r2 = q^H x2.
        dq, dr1 = _thin_qr_jvp(q, _block(r, None, (0, m)), _block(dx, None, (0, m)))
        dr2 = lax.add(
            _matmul(_H(dq), _block(x, None, (m, n))), _matmul(_H(q), _block(dx, None, (m, n)))
        )
        return [q, r], [dq, lax.concatenate([dr1, dr2], nb + 1)]
    q_mn = _block(q, None, (0, n)) if full_matrices else q
    r_nn = _block(r, (0, n), (0, n)) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r], [dq_mn, dr_nn]
    # The completion q_mp of the thin Q, after arXiv:2409.13374 (eqs. 32-33).
    q_nn, q_pn = _block(q_mn, (0, n), None), _block(q_mn, (n, m), None)
    q_mp = _block(q, None, (n, m))
    dq_nn, dq_pn = _block(dq_mn, (0, n), None), _block(dq_mn, (n, m), None)
    batch, dtype = tuple(get_aval_of(x).shape[:-2]), get_aval_of(x).dtype
    lu, _, perm = linalg.lu(lax.sub(q_nn, _eye(batch, n, dtype)))
    z_pn_h = _lu_solve_adjoint(lu, perm, _H(q_pn))
    z_pn = _H(z_pn_h)
    correction = _matmul(
        lax.add(q_mn, _matmul(q_mp, z_pn)), _H(lax.sub(dq_pn, _matmul(z_pn, dq_nn)))
    )
    dq_mp = lax.sub(_matmul(dq_mn, z_pn_h), correction)
    dq = lax.concatenate([dq_mn, dq_mp], nb + 1)
    dr = lax.concatenate([dr_nn, _zeros((*batch, m - n, n), dtype)], nb)
    return [q, r], [dq, dr]


register_jvp(P.qr_p, _qr_jvp)


# ---------------------------------------------------------------------- eigh


def _diag(x: Any) -> Any:
    """The diagonals ``x[..., i, i]`` of square matrices."""
    shape = get_aval_of(x).shape
    nb = len(shape) - 2
    eye = lax.broadcast_in_dim(np.eye(shape[-1], dtype=bool), shape, (nb, nb + 1))
    return lax.reduce_sum(lax.select(eye, x, _zeros(shape, get_aval_of(x).dtype)), (nb + 1,))


def _across(v: Any, n_rows: int, *, along_rows: bool) -> Any:
    """Vectors ``v[..., k]`` spread to ``[..., n_rows, k]`` (``v[j]`` in column ``j``),
    or, ``along_rows=False``, to ``[..., k, k]`` with ``v[i]`` in row ``i``."""
    shape = get_aval_of(v).shape
    nb = len(shape) - 1
    k = shape[-1]
    if along_rows:
        return lax.broadcast_in_dim(v, (*shape[:-1], n_rows, k), (*range(nb), nb + 1))
    return lax.broadcast_in_dim(v, (*shape[:-1], k, k), (*range(nb), nb))


def _real(x: Any) -> Any:
    return lax.real(x) if _is_complex(x) else x


def _as(x: Any, like: Any) -> Any:
    return lax.convert_element_type(x, get_aval_of(like).dtype)


def _eigh_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    lower: bool,
    sort_eigenvalues: bool,
    subset_by_index: tuple[int, int] | None,
    algorithm: Any,
) -> tuple[Any, Any]:
    (a,), (a_dot,) = primals, tangents
    shape = get_aval_of(a).shape
    n = shape[-1]
    if subset_by_index is not None and tuple(subset_by_index) != (0, n):
        raise NotImplementedError(
            "Derivatives not defined for partial eigen decomposition; differentiate eigh "
            "with subset_by_index=None."
        )
    sym = lax.div(lax.add(a, _H(a)), np.asarray(2, get_aval_of(a).dtype))
    v, w_real = P.eigh_p.bind(
        sym, lower=lower, sort_eigenvalues=sort_eigenvalues,
        subset_by_index=subset_by_index, algorithm=algorithm,
    )  # fmt: skip
    if type(a_dot) is Zero:
        return [v, w_real], [Zero.from_primal(v), Zero.from_primal(w_real)]
    w = _as(w_real, a)
    eye = _eye(shape[:-2], n, get_aval_of(a).dtype)
    # F[i, j] = 1 / (w_j - w_i) off the diagonal, 0 on it (no division by zero there).
    gaps = lax.sub(lax.add(eye, _across(w, n, along_rows=True)), _across(w, n, along_rows=False))
    f = lax.sub(lax.integer_pow(gaps, -1), eye)
    vdag_adot_v = _matmul(_matmul(_H(v), a_dot), v)
    dv = _matmul(v, lax.mul(f, vdag_adot_v))
    dw = _real(_diag(vdag_adot_v))
    return [v, w_real], [dv, dw]


register_jvp(P.eigh_p, _eigh_jvp)


# ----------------------------------------------------------------------- svd


def _svd_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    full_matrices: bool,
    compute_uv: bool,
    subset_by_index: tuple[int, int] | None,
    algorithm: Any,
) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    m, n = get_aval_of(a).shape[-2:]
    if type(da) is Zero:
        outs = P.svd_p.bind(
            a, full_matrices=full_matrices, compute_uv=compute_uv,
            subset_by_index=subset_by_index, algorithm=algorithm,
        )  # fmt: skip
        return outs, [Zero.from_primal(o) for o in outs]
    s, u, vt = P.svd_p.bind(
        a, full_matrices=False, compute_uv=True, subset_by_index=subset_by_index,
        algorithm=algorithm,
    )  # fmt: skip
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices; "
            "differentiate svd with full_matrices=False (or of a square matrix)."
        )
    ut, v = _H(u), _H(vt)
    ds_mat = _matmul(_matmul(ut, da), v)
    ds = _real(_diag(ds_mat))
    if not compute_uv:
        return [s], [ds]
    k = get_aval_of(s).shape[-1]
    real_dt = get_aval_of(s).dtype
    eye = _eye(get_aval_of(s).shape[:-1], k, real_dt)
    s_cols = _across(s, k, along_rows=True)  # s_j in column j
    s_rows = _across(s, k, along_rows=False)  # s_i in row i
    s_diffs = lax.mul(lax.add(s_cols, s_rows), lax.sub(s_cols, s_rows))
    f = _as(lax.sub(lax.div(np.ones((), real_dt), lax.add(s_diffs, eye)), eye), a)
    dss = lax.mul(_as(s_cols, a), ds_mat)
    sds = lax.mul(_as(s_rows, a), ds_mat)
    s_zeros = _as(lax.eq(s, _zeros(get_aval_of(s).shape, real_dt)), s)
    s_inv = lax.sub(lax.div(np.ones((), real_dt), lax.add(s, s_zeros)), s_zeros)
    s_inv_mat = lax.mul(eye, _across(s_inv, k, along_rows=True))
    half = np.asarray(0.5, get_aval_of(a).dtype)
    dudv_diag = lax.mul(lax.mul(half, lax.sub(ds_mat, _H(ds_mat))), _as(s_inv_mat, a))
    du = _matmul(u, lax.add(lax.mul(f, lax.add(dss, _H(dss))), dudv_diag))
    dv = _matmul(v, lax.mul(f, lax.add(sds, _H(sds))))
    if m > n:
        dav = _matmul(da, v)
        du = lax.add(du, lax.div(lax.sub(dav, _matmul(u, _matmul(ut, dav))),
                                 _as(_across(s, m, along_rows=True), a)))  # fmt: skip
    if n > m:
        dahu = _matmul(_H(da), u)
        dv = lax.add(dv, lax.div(lax.sub(dahu, _matmul(v, _matmul(vt, dahu))),
                                 _as(_across(s, n, along_rows=True), a)))  # fmt: skip
    return [s, u, vt], [ds, du, _H(dv)]


register_jvp(P.svd_p, _svd_jvp)


# ----------------------------------------------------------------------- eig


def _solve(a: Any, b: Any) -> Any:
    """``a^-1 b`` for square ``a`` through its LU factorisation."""
    lu, _, perm = P.lu_p.bind(a)
    shape = get_aval_of(a).shape
    lower = lax.add(_tril(lu, -1), _eye(shape[:-2], shape[-1], get_aval_of(a).dtype))
    y = linalg.triangular_solve(
        lower, _permute_rows(perm, b), left_side=True, lower=True, unit_diagonal=True
    )
    return linalg.triangular_solve(_triu(lu), y, left_side=True, lower=False)


def _eig_vec_jvp(w: Any, v: Any, da: Any) -> tuple[Any, Any]:
    """Tangents of eigenvalues and unit eigenvectors (largest component real) of ``A v = v w``."""
    shape = get_aval_of(v).shape
    n, nb = shape[-1], len(shape) - 2
    dtype = get_aval_of(v).dtype
    eye = _eye(shape[:-2], n, dtype)
    gaps = lax.sub(lax.add(eye, _across(w, n, along_rows=True)), _across(w, n, along_rows=False))
    f = lax.sub(lax.integer_pow(gaps, -1), eye)
    p = _matmul(_solve(v, da), v)
    dw = _diag(p)
    u = _matmul(v, lax.mul(f, p))
    # dv_j = u_j + c_j v_j, c_j fixed by |v_j| = 1 and v_j's largest component staying real.
    k = lax.argmax(lax.abs(v), nb, np.int32)
    hit = lax.eq(
        lax.broadcasted_iota(np.int32, shape, nb),
        lax.broadcast_in_dim(k, shape, (*range(nb), nb + 1)),
    )
    zeros = _zeros(shape, dtype)
    u_k = lax.reduce_sum(lax.select(hit, u, zeros), (nb,))
    v_k = lax.reduce_sum(lax.select(hit, v, zeros), (nb,))
    re = lax.neg(lax.real(lax.reduce_sum(lax.mul(lax.conj(v), u), (nb,))))
    im = lax.neg(lax.div(lax.imag(u_k), lax.real(v_k)))
    c = lax.complex(re, im)
    return dw, lax.add(u, lax.mul(v, _across(c, n, along_rows=True)))


def _eig_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
    implementation: Any,
) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    vectors = compute_left_eigenvectors or compute_right_eigenvectors
    params = {
        "compute_left_eigenvectors": compute_left_eigenvectors,
        "enable_eigvec_derivs": enable_eigvec_derivs, "implementation": implementation,
    }  # fmt: skip
    if type(da) is Zero:
        outs = P.eig_p.bind(a, compute_right_eigenvectors=compute_right_eigenvectors, **params)
        return outs, [Zero.from_primal(o) for o in outs]
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on "
            "the input that cannot be checked (see the enable_eigvec_derivs argument to "
            "lax.linalg.eig). Pass enable_eigvec_derivs=True to lax.linalg.eig to opt in, or "
            "differentiate the eigenvalues only (compute_left_eigenvectors=False, "
            "compute_right_eigenvectors=False)."
        )
    outs = P.eig_p.bind(a, compute_right_eigenvectors=True, **params)
    w, vr = outs[0], outs[-1]
    da = _as(da, vr)
    if not vectors:
        return [w], [lax.reduce_sum(lax.mul(_solve(vr, da), _mT(vr)), (_nb(vr) + 1,))]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        vl = outs[1]
        _, dvl = _eig_vec_jvp(lax.conj(w), vl, _H(da))
        primal_out.append(vl)
        tangent_out.append(dvl)
    if compute_right_eigenvectors:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


register_jvp(P.eig_p, _eig_jvp)


# --------------------------------------------------------------------- schur


def _schur_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    outs = P.schur_p.bind(x, **params)
    if type(dx) is Zero:
        return outs, [Zero.from_primal(o) for o in outs]
    raise NotImplementedError(
        "Differentiation rule for 'schur' not implemented (as in JAX); differentiate a "
        "function of the eigenvalues through lax.linalg.eig instead."
    )


register_jvp(P.schur_p, _schur_jvp)
