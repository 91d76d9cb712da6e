"""Lowering rules of the structured-matrix primitives.

On CPU the reductions and Householder products call jaxlib's LAPACK kernels
(see :mod:`tessela_lowering._lapack`), with JAX's operands, attributes and
buffer reuse:

- ``hessenberg``: ``?gehrd`` (attributes ``low = 1``, ``high = n``), results
  ``(a, taus, info)``;
- ``tridiagonal``: ``?sytrd`` / ``?hetrd`` (attribute ``uplo``), results
  ``(a, d, e, taus, info)``;
- ``householder_product``: ``?orgqr`` / ``?ungqr`` on ``(a, taus)``;
- ``ormqr``: ``?ormqr`` / ``?unmqr`` on ``(a, taus, c)`` (attributes ``left``
  and ``transpose``), the result reusing ``c``'s buffer;
- ``tridiagonal_solve``: ``?gtsv`` on ``(dl, d, du, b)``, or jaxlib's
  ``tridiagonal_solve_perturbed_ffi`` with ``perturb_singular``.

``hessenberg`` and ``tridiagonal`` run on CPU only, as in JAX. Elsewhere
``householder_product`` and ``ormqr`` apply the reflectors one at a time, and
``tridiagonal_solve`` runs the Thomas algorithm as two ``scan``s. On every
platform ``lu_pivots_to_permutation`` is a loop of swaps, ``cholesky_update``
a loop of Givens rotations (LAPACK's ``drotg`` choice of ``c`` and ``s``), and
``symmetric_product`` is ``alpha a a^T + beta c``. A matrix where LAPACK
reports failure gives NaNs, as in JAX.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tessela_tracer import ShapedArray, lax
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import issubdtype
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import Array, ArrayLike, DTypeLike

from tessela_lowering import _cusolver
from tessela_lowering._lapack import (
    I32,
    bool_attr,
    char_attr,
    check_info,
    int32_attr,
    lapack_ffi_call,
    lapack_target,
    require_cpu,
)
from tessela_lowering._lowering import LoweringRuleContext, lower_fun, register_lowering
from tessela_lowering._xla import DType, Value

__all__: list[str] = []

_Pair = tuple[Array, Array]


def _is_complex(dtype: DTypeLike) -> bool:
    return bool(issubdtype(dtype, np.complexfloating))


def _full(shape: Sequence[int], value: float, dtype: DType) -> Array:
    return lax.broadcast_in_dim(np.asarray(value, dtype), tuple(shape), ())


def _iota(shape: Sequence[int], dim: int) -> Array:
    return lax.broadcasted_iota(I32, tuple(shape), dim)


def _bcast(x: ArrayLike, shape: Sequence[int], dims: Sequence[int]) -> Array:
    return lax.broadcast_in_dim(x, tuple(shape), tuple(dims))


def _info(ctx: LoweringRuleContext) -> ShapedArray:
    return ShapedArray(tuple(ctx.avals_out[0].shape[:-2]), I32)


# ---------------------------------------------------------------- hessenberg


def _empty_hessenberg(a: Array) -> list[Array]:
    batch = tuple(get_aval_of(a).shape[:-2])
    return [a, _full((*batch, 0), 0, get_aval_of(a).dtype)]


_empty_hessenberg_rule = lower_fun(_empty_hessenberg, multiple_results=True)


def _hessenberg_lowering(ctx: LoweringRuleContext, a: Value) -> list[Value]:
    require_cpu(ctx, "hessenberg")
    (aval,) = ctx.avals_in
    n = aval.shape[-1]
    if n == 0:
        return list(_empty_hessenberg_rule(ctx, a))
    info_aval = _info(ctx)
    attrs = {"low": int32_attr(1), "high": int32_attr(n)}
    h, taus, info = lapack_ffi_call(
        lapack_target("hessenberg", "gehrd", aval.dtype), [a], [aval],
        [*ctx.avals_out, info_aval], attrs, {0: 0},
    )  # fmt: skip
    return check_info(ctx, info, [h, taus], info_aval, list(ctx.avals_out))


register_lowering(P.hessenberg_p, _hessenberg_lowering)


# --------------------------------------------------------------- tridiagonal


def _tridiagonal_lowering(ctx: LoweringRuleContext, a: Value, *, lower: bool) -> list[Value]:
    require_cpu(ctx, "tridiagonal")
    (aval,) = ctx.avals_in
    base = "hetrd" if _is_complex(aval.dtype) else "sytrd"
    info_aval = _info(ctx)
    *outs, info = lapack_ffi_call(
        lapack_target("tridiagonal", base, aval.dtype), [a], [aval],
        [*ctx.avals_out, info_aval], {"uplo": char_attr("L" if lower else "U")}, {0: 0},
    )  # fmt: skip
    return check_info(ctx, info, outs, info_aval, list(ctx.avals_out))


register_lowering(P.tridiagonal_p, _tridiagonal_lowering)


# ---------------------------------------------- ormqr and householder_product


def _ormqr_python(a: Array, taus: Array, c: Array, *, left: bool, transpose: bool) -> Array:
    """``op(Q) c`` (``left``) or ``c op(Q)``, applying one reflector at a time."""
    a_aval, c_aval = get_aval_of(a), get_aval_of(c)
    *batch, m, _ = a_aval.shape
    nb = len(batch)
    k = get_aval_of(taus).shape[-1]
    dtype = c_aval.dtype
    cplx = _is_complex(dtype)
    if k == 0:
        return c
    rows = _iota((*batch, m), nb)
    if transpose and cplx:
        taus = lax.conj(taus)
    # Q = H_0 ... H_{k-1}: Q c and c Q^H take the reflectors from the last.
    reverse = left != transpose
    cshape = tuple(c_aval.shape)

    def body(t: Array, c: Array) -> Array:
        i = lax.sub(np.int32(k - 1), t) if reverse else t
        col = lax.squeeze(
            lax.dynamic_slice(a, [np.int32(0)] * (nb + 1) + [i], (*batch, m, 1)), (nb + 1,)
        )
        i_m = _bcast(i, (*batch, m), ())
        v = lax.select(lax.gt(rows, i_m), col, _full((*batch, m), 0, dtype))
        v = lax.select(lax.eq(rows, i_m), _full((*batch, m), 1, dtype), v)
        vh = lax.conj(v) if cplx else v
        tau = lax.squeeze(lax.dynamic_slice(taus, [np.int32(0)] * nb + [i], (*batch, 1)), (nb,))
        b = tuple(range(nb))
        if left:  # c - tau v (v^H c)
            w = lax.dot_general(vh, c, (((nb,), (nb,)), (b, b)))
            upd = lax.mul(_bcast(v, cshape, (*b, nb)), _bcast(w, cshape, (*b, nb + 1)))
        else:  # c - tau (c v) v^H
            w = lax.dot_general(c, v, (((nb + 1,), (nb,)), (b, b)))
            upd = lax.mul(_bcast(w, cshape, (*b, nb)), _bcast(vh, cshape, (*b, nb + 1)))
        return lax.sub(c, lax.mul(_bcast(tau, cshape, b), upd))

    return lax.fori_loop(np.int32(0), np.int32(k), body, c)


def _householder_product_python(a: Array, taus: Array) -> Array:
    *batch, m, n = get_aval_of(a).shape
    eye = _bcast(
        np.eye(m, n, dtype=get_aval_of(a).dtype), (*batch, m, n), (len(batch), len(batch) + 1)
    )
    return _ormqr_python(a, taus, eye, left=True, transpose=False)


register_lowering(P.householder_product_p, lower_fun(_householder_product_python))
register_lowering(P.ormqr_p, lower_fun(_ormqr_python))


def _householder_product_cpu(ctx: LoweringRuleContext, a: Value, taus: Value) -> list[Value]:
    a_aval, taus_aval = ctx.avals_in
    base = "ungqr" if _is_complex(a_aval.dtype) else "orgqr"
    return lapack_ffi_call(
        lapack_target("householder_product", base, a_aval.dtype), [a, taus],
        [a_aval, taus_aval], list(ctx.avals_out), {}, {0: 0},
    )  # fmt: skip


register_lowering(P.householder_product_p, _householder_product_cpu, platform="cpu")


def _ormqr_cpu(
    ctx: LoweringRuleContext, a: Value, taus: Value, c: Value, *, left: bool, transpose: bool
) -> list[Value]:
    a_aval = ctx.avals_in[0]
    base = "unmqr" if _is_complex(a_aval.dtype) else "ormqr"
    attrs = {"left": bool_attr(left), "transpose": bool_attr(transpose)}
    return lapack_ffi_call(
        lapack_target("ormqr", base, a_aval.dtype), [a, taus, c], list(ctx.avals_in),
        list(ctx.avals_out), attrs, {2: 0},
    )  # fmt: skip


register_lowering(P.ormqr_p, _ormqr_cpu, platform="cpu")


# --------------------------------------------------------- tridiagonal_solve


def _thomas(dl: Array, d: Array, du: Array, b: Array, *, perturb_singular: bool) -> Array:
    """The Thomas algorithm (no pivoting), batched: a forward and a backward ``scan``."""
    if perturb_singular:
        raise NotImplementedError(
            "tridiagonal_solve(perturb_singular=True) is only supported on CPU; solve with "
            "perturb_singular=False, or put the operands on a CPU device."
        )
    shape = tuple(get_aval_of(b).shape)
    nb = len(shape) - 2
    if shape[-2] == 0:
        return b
    front = (nb, *range(nb))
    dl, d, du = (lax.transpose(v, front) for v in (dl, d, du))
    b = lax.transpose(b, (*front, nb + 1))

    def col(v: Array) -> Array:
        return lax.expand_dims(v, (nb,))

    def first(v: Array) -> Array:
        return lax.squeeze(lax.slice_in_dim(v, 0, 1, axis=0), (0,))

    def rest(v: Array) -> Array:
        return lax.slice_in_dim(v, 1, get_aval_of(v).shape[0], axis=0)

    def fwd(carry: _Pair, xs: tuple[Array, Array, Array, Array]) -> tuple[_Pair, _Pair]:
        cp, dp = carry
        lo, diag, up, rhs = xs
        den = lax.sub(diag, lax.mul(lo, cp))
        return (lax.div(up, den), lax.div(lax.sub(rhs, lax.mul(col(lo), dp)), col(den))), (cp, dp)

    init = (lax.div(first(du), first(d)), lax.div(first(b), col(first(d))))
    (_, final), (cps, dps) = lax.scan(fwd, init, (rest(dl), rest(d), rest(du), rest(b)))

    def bwd(xn: Array, xs: _Pair) -> _Pair:
        cp, dp = xs
        return lax.sub(dp, lax.mul(col(cp), xn)), xn

    end, ans = lax.scan(bwd, final, (cps, dps), reverse=True)
    x = lax.concatenate([lax.expand_dims(end, (0,)), ans], 0)
    return lax.transpose(x, (*range(1, nb + 1), 0, nb + 1))


register_lowering(P.tridiagonal_solve_p, lower_fun(_thomas))


def _tridiagonal_solve_cpu(
    ctx: LoweringRuleContext, dl: Value, d: Value, du: Value, b: Value, *, perturb_singular: bool
) -> list[Value]:
    b_aval = ctx.avals_in[3]
    if perturb_singular:
        return lapack_ffi_call(
            "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], list(ctx.avals_in), [b_aval], {}
        )
    info_aval = ShapedArray(tuple(b_aval.shape[:-2]), I32)
    *_, x, info = lapack_ffi_call(
        lapack_target("tridiagonal_solve", "gtsv", b_aval.dtype), [dl, d, du, b],
        list(ctx.avals_in), [*ctx.avals_in, info_aval], {}, {0: 0, 1: 1, 2: 2, 3: 3},
    )  # fmt: skip
    return check_info(ctx, info, [x], info_aval, [b_aval])


register_lowering(P.tridiagonal_solve_p, _tridiagonal_solve_cpu, platform="cpu")


# -------------------------------------------------- lu_pivots_to_permutation


def _pivots_to_permutation(pivots: Array, *, permutation_size: int) -> Array:
    *batch, k = get_aval_of(pivots).shape
    nb = len(batch)
    m = permutation_size
    perm = _iota((*batch, m), nb)
    if m == 0 or k == 0:
        return perm
    idx = _iota((*batch, m), nb)

    def body(i: Array, perm: Array) -> Array:
        j = lax.squeeze(lax.dynamic_slice(pivots, [np.int32(0)] * nb + [i], (*batch, 1)), (nb,))
        is_i = lax.eq(idx, _bcast(i, (*batch, m), ()))
        is_j = lax.eq(idx, _bcast(j, (*batch, m), range(nb)))
        zeros = _full((*batch, m), 0, I32)
        x = _bcast(lax.reduce_sum(lax.select(is_i, perm, zeros), (nb,)), (*batch, m), range(nb))
        y = _bcast(lax.reduce_sum(lax.select(is_j, perm, zeros), (nb,)), (*batch, m), range(nb))
        return lax.select(is_i, y, lax.select(is_j, x, perm))

    return lax.fori_loop(np.int32(0), np.int32(k), body, perm)


register_lowering(P.lu_pivots_to_permutation_p, lower_fun(_pivots_to_permutation))


# ----------------------------------------------------------- cholesky_update


def _cholesky_update_python(r: Array, z: Array) -> Array:
    n = get_aval_of(z).shape[0]
    dtype = get_aval_of(r).dtype
    one, zero = np.ones((), dtype), np.zeros((), dtype)
    rows = _iota((n, n), 0)

    def body(k: Array, state: _Pair) -> _Pair:
        r, z = state
        row = lax.squeeze(lax.dynamic_slice(r, [k, np.int32(0)], (1, n)), (0,))
        x = lax.squeeze(lax.dynamic_slice(row, [k], (1,)), (0,))
        y = lax.squeeze(lax.dynamic_slice(z, [k], (1,)), (0,))
        # LAPACK's drotg, scaled by max(|x|, |y|) against overflow.
        den = lax.max(lax.abs(x), lax.abs(y))
        safe = lax.select(lax.eq(den, zero), one, den)
        xs, ys = lax.div(x, safe), lax.div(y, safe)
        rh = lax.rsqrt(lax.add(lax.mul(xs, xs), lax.mul(ys, ys)))
        no_turn = lax.eq(y, zero)
        c = lax.select(no_turn, one, lax.mul(xs, rh))
        s = lax.select(no_turn, zero, lax.neg(lax.mul(ys, rh)))
        new_row = lax.sub(lax.mul(c, row), lax.mul(s, z))
        z = lax.add(lax.mul(c, z), lax.mul(s, row))
        is_k = lax.eq(rows, _bcast(k, (n, n), ()))
        return lax.select(is_k, _bcast(new_row, (n, n), (1,)), r), z

    r, _ = lax.fori_loop(np.int32(0), np.int32(n), body, (r, z))
    return r


register_lowering(P.cholesky_update_p, lower_fun(_cholesky_update_python))


# --------------------------------------------------------- symmetric_product


def _symmetric_product_python(a: Array, c: Array, *, alpha: float, beta: float) -> Array:
    nb = get_aval_of(a).ndim - 2
    b = tuple(range(nb))
    dtype = get_aval_of(c).dtype
    aat = lax.dot_general(a, a, (((nb + 1,), (nb + 1,)), (b, b)), precision=lax.Precision.HIGHEST)
    return lax.add(lax.mul(np.asarray(alpha, dtype), aat), lax.mul(np.asarray(beta, dtype), c))


register_lowering(P.symmetric_product_p, lower_fun(_symmetric_product_python))


# The GPU platforms' rules (cuSOLVER/hipSOLVER kernels), defined in _cusolver.
for _platform in _cusolver.GPU_PLATFORMS:
    for _prim, _rule in _cusolver.GPU_STRUCTURED_RULES.items():
        register_lowering(_prim, _rule, platform=_platform)
