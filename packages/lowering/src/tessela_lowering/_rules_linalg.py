"""Lowering rules of the linear-algebra primitives.

``cholesky`` and ``triangular_solve`` are StableHLO ops (on GPUs ``cholesky`` is
cuSOLVER's ``potrf``, as in JAX). A Cholesky factor of
a matrix that is not positive definite is replaced by NaNs, as JAX's LAPACK
path reports a failed ``potrf``. StableHLO has no LU or QR op, so ``lu`` and
``qr`` lower through :func:`lower_fun` as loops over columns written with
``tessela_tracer.lax``, vectorised over the leading batch axes, which run on
every platform:

- LU is the unblocked right-looking algorithm with partial pivoting (the row
  of largest magnitude, ``|re| + |im|`` for complex, first on ties), as
  LAPACK's ``getrf`` chooses its pivots.
- QR applies Householder reflectors built as LAPACK's ``larfg`` builds them
  (``beta = -sign(alpha) * norm``, no reflection where the column below the
  diagonal is already zero), then accumulates ``Q`` as ``orgqr`` does, so the
  signs of ``Q``'s columns and ``R``'s rows are LAPACK's (and JAX's on CPU).

``eigh`` and ``svd`` call LAPACK on CPU, one custom call each (see
:mod:`tessela_lowering._lapack`):

- ``eigh``: ``?syevd`` (real) or ``?heevd`` (complex), attributes ``mode='V'``
  and ``uplo`` (``'L'`` or ``'U'`` from ``lower``), results ``(v, w, info)``.
  ``syevd`` returns the eigenvalues in ascending order, so
  ``sort_eigenvalues`` needs no work.
- ``svd``: ``?gesdd`` (divide and conquer: JAX's default on CPU, and
  ``SvdAlgorithm.DIVIDE_AND_CONQUER``) or ``?gesvd`` (``SvdAlgorithm.QR``),
  attribute ``mode`` (``'A'`` full, ``'S'`` reduced, ``'N'`` values only),
  results ``(a, s, u, vt, info)``; matrices with a zero dimension are handled
  without LAPACK.

- ``eig``: ``?geev``, attributes ``compute_left`` and ``compute_right``
  (jaxlib's ``ComputationMode``: ``'V'`` or ``'N'``), results ``(wr, wi, vl,
  vr, info)`` for real input (the kernel unpacks the eigenvectors to complex;
  ``w = wr + i wi``) and ``(w, vl, vr, info)`` for complex input.
- ``schur``: ``?gees``, attributes ``mode`` and ``sort`` (always ``'N'``:
  sorting raises ``NotImplementedError``, as in JAX), results ``(t, vs, wr,
  wi, sdim, info)`` (real) or ``(t, vs, w, sdim, info)`` (complex).

Where LAPACK reports failure the results of that matrix are NaNs, as in JAX.
``subset_by_index`` (other than everything) and the Jacobi, polar and QDWH
algorithms raise ``NotImplementedError`` on CPU, as in JAX. The GPU platforms
lower ``svd``, ``eigh``, ``cholesky``, ``lu`` and ``qr`` to cuSOLVER/hipSOLVER
kernels (:mod:`tessela_lowering._cusolver`); ``eig`` and ``schur`` raise
``NotImplementedError`` naming the platform there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from tessela_tracer import ShapedArray, lax
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import issubdtype
from tessela_tracer.extend import get_aval_of
from tessela_tracer.lax.linalg import EighImplementation, EigImplementation, SvdAlgorithm
from tessela_tracer.typing import Array, ArrayLike, DTypeLike

from tessela_lowering import _cusolver
from tessela_lowering._lapack import (
    I32,
    char_attr,
    check_info,
    empty_svd_rule,
    enum_attr,
    lapack_call,
    lapack_ffi_call,
    lapack_target,
    require_cpu,
    require_whole_subset,
)
from tessela_lowering._lowering import (
    LoweringRule,
    LoweringRuleContext,
    lower_fun,
    register_lowering,
)
from tessela_lowering._xla import Value, chlo, stablehlo

__all__: list[str] = []


def _is_complex(dtype: DTypeLike) -> bool:
    return bool(issubdtype(dtype, np.complexfloating))


def _real_dtype(dtype: npt.DTypeLike) -> np.dtype[Any]:
    return (
        np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        if _is_complex(dtype)
        else np.dtype(dtype)
    )


def _full(shape: Sequence[int], value: complex, dtype: npt.DTypeLike) -> Array:
    return lax.broadcast_in_dim(np.asarray(value, dtype), tuple(shape), ())


def _bcast(x: ArrayLike, shape: Sequence[int], dims: Sequence[int]) -> Array:
    return lax.broadcast_in_dim(x, tuple(shape), tuple(dims))


def _iota(shape: Sequence[int], dim: int) -> Array:
    return lax.broadcasted_iota(I32, tuple(shape), dim)


def _conj(x: Array) -> Array:
    return lax.conj(x) if _is_complex(get_aval_of(x).dtype) else x


def _abs2(x: Array) -> Array:
    if _is_complex(get_aval_of(x).dtype):
        re, im = lax.real(x), lax.imag(x)
        return lax.add(lax.mul(re, re), lax.mul(im, im))
    return lax.mul(x, x)


# The start index beside an int32 loop index: a Python 0 would take the
# default integer dtype (int64 under x64), and start indices share one dtype.
_I0 = np.int32(0)


def _column(a: Array, j: ArrayLike) -> Array:
    """``a[..., :, j]`` for a traced ``j``."""
    *batch, m, _ = get_aval_of(a).shape
    nb = len(batch)
    col = lax.dynamic_slice(a, [_I0] * (nb + 1) + [j], (*batch, m, 1))
    return lax.squeeze(col, (nb + 1,))


def _row(a: Array, j: ArrayLike) -> Array:
    """``a[..., j, :]`` for a traced ``j``."""
    *batch, _, n = get_aval_of(a).shape
    nb = len(batch)
    row = lax.dynamic_slice(a, [_I0] * nb + [j, _I0], (*batch, 1, n))
    return lax.squeeze(row, (nb,))


def _entry(v: Array, j: ArrayLike) -> Array:
    """``v[..., j]`` for a traced ``j``."""
    *batch, _ = get_aval_of(v).shape
    return lax.squeeze(lax.dynamic_slice(v, [_I0] * len(batch) + [j], (*batch, 1)), (len(batch),))


def _pick(v: Array, hit: Array, axis: int) -> Array:
    """Sum of the entries of ``v`` along ``axis`` where ``hit`` (exactly one entry)."""
    zeros = _full(get_aval_of(v).shape, 0, get_aval_of(v).dtype)
    total: Array = lax.reduce_sum(lax.select(hit, v, zeros), (axis,))
    return total


# ------------------------------------------------------------------ cholesky


def _nan_unless_positive_definite(factor: Array) -> Array:
    shape = get_aval_of(factor).shape
    dtype = get_aval_of(factor).dtype
    nb = len(shape) - 2
    eye = _bcast(lax.eq(_iota(shape[-2:], 0), _iota(shape[-2:], 1)), shape, (nb, nb + 1))
    diag = _pick(factor, eye, nb + 1)
    if _is_complex(dtype):
        # The diagonal of a Hermitian factor is real (XLA leaves rounding noise there).
        diag = lax.real(diag)
        real_diag = lax.complex(lax.real(factor), _full(shape, 0, _real_dtype(dtype)))
        factor = lax.select(eye, real_diag, factor)
    ok = lax.reduce_and(lax.gt(diag, _full(shape[:-1], 0, get_aval_of(diag).dtype)), (nb,))
    return lax.select(_bcast(ok, shape, range(nb)), factor, _full(shape, np.nan, dtype))


_cholesky_check = lower_fun(_nan_unless_positive_definite)


def _cholesky_lowering(ctx: LoweringRuleContext, x: Value) -> Sequence[Value]:
    factor = stablehlo.CholeskyOp(x, lower=True).result
    check_ctx = LoweringRuleContext(ctx.module_context, ctx.primitive, ctx.avals_out, ctx.avals_out)
    return _cholesky_check(check_ctx, factor)


register_lowering(P.cholesky_p, _cholesky_lowering)


# ------------------------------------------------------------ triangular_solve


def _triangular_solve_lowering(
    ctx: LoweringRuleContext,
    a: Value,
    b: Value,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> Sequence[Value]:
    conjugate_a = conjugate_a and _is_complex(ctx.avals_in[0].dtype)
    if conjugate_a and not transpose_a:
        a = chlo.ConjOp(a).result
        conjugate_a = False
    mode = "NO_TRANSPOSE" if not transpose_a else ("ADJOINT" if conjugate_a else "TRANSPOSE")
    op = stablehlo.TriangularSolveOp(
        a, b, left_side, lower, unit_diagonal, stablehlo.TransposeAttr.get(mode)
    )
    return [op.result]


register_lowering(P.triangular_solve_p, _triangular_solve_lowering)


# ------------------------------------------------------------------------ lu


def _lu_python(a: Array) -> list[Array]:
    shape = get_aval_of(a).shape
    dtype = get_aval_of(a).dtype
    *batch, m, n = shape
    nb = len(batch)
    k = min(m, n)
    perm = _iota((*batch, m), nb)
    pivots = _full((*batch, k), 0, I32)
    if k == 0:
        return [a, pivots, perm]
    rows_m = _iota((*batch, m), nb)
    rows, cols = _iota(shape, nb), _iota(shape, nb + 1)
    steps = _iota((*batch, k), nb)
    mag_dtype = _real_dtype(dtype)
    neg_inf = _full((*batch, m), -np.inf, mag_dtype)

    def body(j: Array, state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        a, pivots, perm = state
        col = _column(a, j)
        if _is_complex(dtype):
            mag = lax.add(lax.abs(lax.real(col)), lax.abs(lax.imag(col)))
        else:
            mag = lax.abs(col)
        mag = lax.select(lax.ge(rows_m, _bcast(j, (*batch, m), ())), mag, neg_inf)
        i = lax.argmax(mag, nb, I32)
        pivots = lax.select(
            lax.eq(steps, _bcast(j, (*batch, k), ())), _bcast(i, (*batch, k), range(nb)), pivots
        )
        # Swap rows j and i of a and of perm.
        is_i_m = lax.eq(rows_m, _bcast(i, (*batch, m), range(nb)))
        is_j_m = lax.eq(rows_m, _bcast(j, (*batch, m), ()))
        row_j = _row(a, j)
        row_i = _pick(a, _bcast(is_i_m, shape, range(nb + 1)), nb)
        is_j = _bcast(is_j_m, shape, range(nb + 1))
        is_i = _bcast(is_i_m, shape, range(nb + 1))
        a = lax.select(is_j, _bcast(row_i, shape, (*range(nb), nb + 1)),
                       lax.select(is_i, _bcast(row_j, shape, (*range(nb), nb + 1)), a))  # fmt: skip
        perm_j, perm_i = _entry(perm, j), _pick(perm, is_i_m, nb)
        perm = lax.select(is_j_m, _bcast(perm_i, (*batch, m), range(nb)),
                          lax.select(is_i_m, _bcast(perm_j, (*batch, m), range(nb)), perm))  # fmt: skip
        # Scale the column below the pivot, then update the trailing block.
        x = _entry(row_i, j)
        col = _column(a, j)
        below = lax.gt(rows_m, _bcast(j, (*batch, m), ()))
        nonzero = lax.ne(x, _full(batch, 0, dtype))
        scale = lax.bitwise_and(below, _bcast(nonzero, (*batch, m), range(nb)))
        col = lax.select(scale, lax.div(col, _bcast(x, (*batch, m), range(nb))), col)
        a = lax.select(lax.eq(cols, _bcast(j, shape, ())), _bcast(col, shape, range(nb + 1)), a)
        outer = lax.mul(
            _bcast(col, shape, range(nb + 1)), _bcast(row_i, shape, (*range(nb), nb + 1))
        )
        trailing = lax.bitwise_and(
            lax.gt(rows, _bcast(j, shape, ())), lax.gt(cols, _bcast(j, shape, ()))
        )
        a = lax.sub(a, lax.select(trailing, outer, _full(shape, 0, dtype)))
        return a, pivots, perm

    a, pivots, perm = lax.fori_loop(np.int32(0), np.int32(k), body, (a, pivots, perm))
    return [a, pivots, perm]


_lu_via_lax = lower_fun(_lu_python, multiple_results=True)


def _lu_lowering(ctx: LoweringRuleContext, a: Value) -> Sequence[Value]:
    return _lu_via_lax(ctx, a)


register_lowering(P.lu_p, _lu_lowering)


# ------------------------------------------------------------------------ qr


def _householder(a: Array, j: ArrayLike) -> tuple[Array, Array, Array]:
    """LAPACK's ``larfg`` on column ``j`` of ``a`` at the diagonal: ``(v, tau, beta)``."""
    shape = get_aval_of(a).shape
    dtype = get_aval_of(a).dtype
    *batch, m, _ = shape
    nb = len(batch)
    rdt = _real_dtype(dtype)
    rows_m = _iota((*batch, m), nb)
    col = _column(a, j)
    alpha = _entry(col, j)
    below = lax.gt(rows_m, _bcast(j, (*batch, m), ()))
    tail = lax.select(below, col, _full((*batch, m), 0, dtype))
    xnorm = lax.sqrt(lax.reduce_sum(_abs2(tail), (nb,)))
    if _is_complex(dtype):
        alpha_r, alpha_i = lax.real(alpha), lax.imag(alpha)
    else:
        alpha_r, alpha_i = alpha, _full(batch, 0, rdt)
    norm = lax.sqrt(lax.add(lax.add(lax.mul(alpha_r, alpha_r), lax.mul(alpha_i, alpha_i)),
                            lax.mul(xnorm, xnorm)))  # fmt: skip
    zero_r = _full(batch, 0, rdt)
    beta = lax.select(lax.ge(alpha_r, zero_r), lax.neg(norm), norm)
    trivial = lax.bitwise_and(lax.eq(xnorm, zero_r), lax.eq(alpha_i, zero_r))
    beta_c = lax.complex(beta, zero_r) if _is_complex(dtype) else beta
    if _is_complex(dtype):
        tau = lax.complex(lax.div(lax.sub(beta, alpha_r), beta), lax.div(lax.neg(alpha_i), beta))
    else:
        tau = lax.div(lax.sub(beta, alpha_r), beta)
    recip = lax.div(_full(batch, 1, dtype), lax.sub(alpha, beta_c))
    unit = lax.eq(rows_m, _bcast(j, (*batch, m), ()))
    v = lax.select(
        below,
        lax.mul(col, _bcast(recip, (*batch, m), range(nb))),
        lax.select(unit, _full((*batch, m), 1, dtype), _full((*batch, m), 0, dtype)),
    )
    tau = lax.select(trivial, _full(batch, 0, dtype), tau)
    v = lax.select(
        _bcast(trivial, (*batch, m), range(nb)),
        lax.select(unit, _full((*batch, m), 1, dtype), _full((*batch, m), 0, dtype)),
        v,
    )
    beta_c = lax.select(trivial, alpha, beta_c)
    return v, tau, beta_c


def _reflect(a: Array, v: Array, tau: Array, cols_mask: Array) -> Array:
    """``a - tau v (v^H a)`` on the columns where ``cols_mask``."""
    shape = get_aval_of(a).shape
    nb = len(shape) - 2
    vb = _bcast(v, shape, range(nb + 1))
    w = lax.reduce_sum(lax.mul(_conj(vb), a), (nb,))
    upd = lax.mul(
        lax.mul(vb, _bcast(w, shape, (*range(nb), nb + 1))), _bcast(tau, shape, range(nb))
    )
    return lax.sub(a, lax.select(cols_mask, upd, _full(shape, 0, get_aval_of(a).dtype)))


def _qr_python(
    x: Array, *, pivoting: bool, full_matrices: bool, use_magma: bool | None
) -> list[Array]:
    del pivoting, use_magma  # pivoting is refused by lax.linalg.qr
    shape = get_aval_of(x).shape
    dtype = get_aval_of(x).dtype
    *batch, m, n = shape
    nb = len(batch)
    k = min(m, n)
    kq = m if full_matrices else k
    eye = _bcast(lax.eq(_iota((m, kq), 0), _iota((m, kq), 1)), (*batch, m, kq), (nb, nb + 1))
    q = lax.select(eye, _full((*batch, m, kq), 1, dtype), _full((*batch, m, kq), 0, dtype))
    if k == 0:
        return [q, _full((*batch, kq, n), 0, dtype)]
    rows, cols = _iota(shape, nb), _iota(shape, nb + 1)
    steps = _iota((*batch, k), nb)

    def factor(j: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        a, taus = state
        v, tau, beta = _householder(a, j)
        a = _reflect(a, v, _conj(tau), lax.gt(cols, _bcast(j, shape, ())))
        on_col = lax.eq(cols, _bcast(j, shape, ()))
        below = lax.gt(rows, _bcast(j, shape, ()))
        diag = lax.bitwise_and(on_col, lax.eq(rows, _bcast(j, shape, ())))
        a = lax.select(lax.bitwise_and(on_col, below), _bcast(v, shape, range(nb + 1)), a)
        a = lax.select(diag, _bcast(beta, shape, range(nb)), a)
        taus = lax.select(
            lax.eq(steps, _bcast(j, (*batch, k), ())), _bcast(tau, (*batch, k), range(nb)), taus
        )
        return a, taus

    a, taus = lax.fori_loop(np.int32(0), np.int32(k), factor, (x, _full((*batch, k), 0, dtype)))
    qshape = (*batch, m, kq)
    rows_m = _iota((*batch, m), nb)
    qcols = _iota(qshape, nb + 1)

    def accumulate(t: Array, q: Array) -> Array:
        j = lax.sub(np.int32(k - 1), t)
        col = _column(a, j)
        below = lax.gt(rows_m, _bcast(j, (*batch, m), ()))
        unit = lax.eq(rows_m, _bcast(j, (*batch, m), ()))
        v = lax.select(
            below, col, lax.select(unit, _full((*batch, m), 1, dtype), _full((*batch, m), 0, dtype))
        )
        tau = _entry(taus, j)
        return _reflect(q, v, tau, lax.ge(qcols, _bcast(j, qshape, ())))

    q = lax.fori_loop(np.int32(0), np.int32(k), accumulate, q)
    upper = lax.le(rows, cols)
    r = lax.select(upper, a, _full(shape, 0, dtype))
    if kq < m:
        r = lax.slice(r, (0,) * (nb + 2), (*batch, kq, n))
    return [q, r]


_qr_via_lax = lower_fun(_qr_python, multiple_results=True)


def _qr_lowering(ctx: LoweringRuleContext, x: Value, **params: Any) -> Sequence[Value]:
    return _qr_via_lax(ctx, x, **params)


register_lowering(P.qr_p, _qr_lowering)


# ---------------------------------------------------------------------- eigh


def _eigh_rule(gpu: bool) -> LoweringRule:
    """The ``eigh`` rule of the CPU (LAPACK) or of the GPU platforms (``_cusolver``)."""

    def rule(
        ctx: LoweringRuleContext,
        x: Value,
        *,
        lower: bool,
        sort_eigenvalues: bool,
        subset_by_index: tuple[int, int] | None,
        algorithm: EighImplementation | None,
    ) -> list[Value]:
        del sort_eigenvalues  # the kernels return the eigenvalues in ascending order
        if not gpu:
            require_cpu(ctx, "eigh")
        (aval,) = ctx.avals_in
        n = aval.shape[-1]
        require_whole_subset("eigh", "eigenpair", subset_by_index, n, "GPU" if gpu else "CPU")
        if gpu:
            return _cusolver.eigh_gpu(ctx, x, lower, algorithm)
        if algorithm in (EighImplementation.QDWH, EighImplementation.JACOBI):
            raise NotImplementedError(
                f"eigh: implementation={algorithm} is not supported on CPU; pass "
                "implementation=None or EighImplementation.QR."
            )
        base = "heevd" if _is_complex(aval.dtype) else "syevd"
        v_aval, w_aval = ctx.avals_out
        info_aval = ShapedArray(tuple(aval.shape[:-2]), I32)
        attrs = {"mode": char_attr("V"), "uplo": char_attr("L" if lower else "U")}
        v, w, info = lapack_call(
            lapack_target("eigh", base, aval.dtype), x, aval, [v_aval, w_aval, info_aval], attrs
        )
        return check_info(ctx, info, [v, w], info_aval, [v_aval, w_aval])

    return rule


_eigh_lowering = _eigh_rule(gpu=False)
register_lowering(P.eigh_p, _eigh_lowering)


# ----------------------------------------------------------------------- svd


def _lapack_svd_routine(algorithm: SvdAlgorithm | None) -> str:
    if algorithm in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.DIVIDE_AND_CONQUER):
        return "gesdd"
    if algorithm is SvdAlgorithm.QR:
        return "gesvd"
    raise NotImplementedError(
        f"svd: algorithm={algorithm} is not supported on CPU; pass None, "
        "SvdAlgorithm.DIVIDE_AND_CONQUER or SvdAlgorithm.QR."
    )


def _svd_rule(gpu: bool) -> LoweringRule:
    """The ``svd`` rule of the CPU (LAPACK) or of the GPU platforms (``_cusolver``)."""

    def rule(
        ctx: LoweringRuleContext,
        x: Value,
        *,
        full_matrices: bool,
        compute_uv: bool,
        subset_by_index: tuple[int, int] | None,
        algorithm: SvdAlgorithm | None,
    ) -> list[Value]:
        if not gpu:
            require_cpu(ctx, "svd")
        (aval,) = ctx.avals_in
        *batch_list, m, n = aval.shape
        batch = tuple(batch_list)
        k = min(m, n)
        require_whole_subset("svd", "singular value", subset_by_index, k, "GPU" if gpu else "CPU")
        if m == 0 or n == 0:
            return list(empty_svd_rule(ctx, x, full_matrices=full_matrices, compute_uv=compute_uv))
        info_aval = ShapedArray(batch, I32)
        s_aval = ctx.avals_out[0]
        if gpu:
            outs, info = _cusolver.svd_gpu(ctx, x, full_matrices, compute_uv, algorithm, info_aval)
        else:
            mode = "N" if not compute_uv else ("A" if full_matrices else "S")
            u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
            vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
            _, s, u, vt, info = lapack_call(
                lapack_target("svd", _lapack_svd_routine(algorithm), aval.dtype),
                x,
                aval,
                [ShapedArray(aval.shape, aval.dtype), s_aval, u_aval, vt_aval, info_aval],
                {"mode": char_attr(mode)},
            )
            outs = [s, u, vt] if compute_uv else [s]
        out_avals = list(ctx.avals_out) if compute_uv else [s_aval]
        return check_info(ctx, info, outs, info_aval, out_avals)

    return rule


_svd_lowering = _svd_rule(gpu=False)
register_lowering(P.svd_p, _svd_lowering)


# ----------------------------------------------------------------------- eig

_COMPUTE, _NO_COMPUTE = ord("V"), ord("N")  # jaxlib's eig/schur ComputationMode values


def _eig_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
    implementation: EigImplementation | None,
) -> list[Value]:
    del enable_eigvec_derivs  # a differentiation option only
    require_cpu(ctx, "eig")
    if implementation is not None and implementation is not EigImplementation.LAPACK:
        raise ValueError(
            f"eig: only the lapack implementation is supported on CPU, got "
            f"implementation={implementation}; pass None or EigImplementation.LAPACK."
        )
    (aval,) = ctx.avals_in
    batch = tuple(aval.shape[:-2])
    w_aval = ctx.avals_out[0]
    vec_aval = ShapedArray(aval.shape, w_aval.dtype)
    info_aval = ShapedArray(batch, I32)
    real = not _is_complex(aval.dtype)
    vals = [ShapedArray(aval.shape[:-1], aval.dtype)] * (2 if real else 1)
    attrs = {
        "compute_left": enum_attr(_COMPUTE if compute_left_eigenvectors else _NO_COMPUTE),
        "compute_right": enum_attr(_COMPUTE if compute_right_eigenvectors else _NO_COMPUTE),
    }
    *ws, vl, vr, info = lapack_ffi_call(
        lapack_target("eig", "geev", aval.dtype), [x], [aval],
        [*vals, vec_aval, vec_aval, info_aval], attrs,
    )  # fmt: skip
    w = stablehlo.ComplexOp(ws[0], ws[1]).result if real else ws[0]
    outs = [w]
    if compute_left_eigenvectors:
        outs.append(vl)
    if compute_right_eigenvectors:
        outs.append(vr)
    return check_info(ctx, info, outs, info_aval, list(ctx.avals_out))


register_lowering(P.eig_p, _eig_lowering)


# --------------------------------------------------------------------- schur


def _schur_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    compute_schur_vectors: bool,
    sort_eig_vals: bool,
    select_callable: Callable[..., Any] | None,
) -> list[Value]:
    del select_callable  # unused, as in JAX
    require_cpu(ctx, "schur")
    if sort_eig_vals:
        raise NotImplementedError(
            "schur: the sort feature of LAPACK's gees routine is not implemented; call it "
            "with sort_eig_vals=False."
        )
    (aval,) = ctx.avals_in
    batch = tuple(aval.shape[:-2])
    info_aval = ShapedArray(batch, I32)
    vals_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    vals = [vals_aval] * (1 if _is_complex(aval.dtype) else 2)
    mat = ShapedArray(aval.shape, aval.dtype)
    attrs = {
        "mode": enum_attr(_COMPUTE if compute_schur_vectors else _NO_COMPUTE),
        "sort": enum_attr(_NO_COMPUTE),
    }
    t, vs, *_, info = lapack_ffi_call(
        lapack_target("schur", "gees", aval.dtype), [x], [aval],
        [mat, mat, *vals, info_aval, info_aval], attrs, {0: 0},
    )  # fmt: skip
    outs = [t, vs] if compute_schur_vectors else [t]
    return check_info(ctx, info, outs, info_aval, list(ctx.avals_out))


register_lowering(P.schur_p, _schur_lowering)


# The GPU platforms' rules (cuSOLVER/hipSOLVER kernels), defined in _cusolver.
for _platform in _cusolver.GPU_PLATFORMS:
    for _prim, _rule in _cusolver.GPU_RULES.items():
        register_lowering(_prim, _rule, platform=_platform)
    register_lowering(P.eigh_p, _eigh_rule(gpu=True), platform=_platform)
    register_lowering(P.svd_p, _svd_rule(gpu=True), platform=_platform)
