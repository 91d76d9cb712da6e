"""Lowering rules of ``eigh`` and ``svd``: LAPACK on CPU, through jaxlib's FFI kernels.

StableHLO has no eigendecomposition or SVD op, so on CPU each equation becomes
one ``stablehlo.custom_call`` (``api_version`` 4, typed FFI) of a LAPACK
kernel that jaxlib ships and :func:`~tessela_lowering._xla.register_lapack_targets`
registers with XLA:

- ``eigh``: ``?syevd`` (real) or ``?heevd`` (complex), attributes ``mode='V'``
  and ``uplo`` (``'L'`` or ``'U'`` from ``lower``), results ``(v, w, info)``.
  ``syevd`` returns the eigenvalues in ascending order, so
  ``sort_eigenvalues`` needs no work.
- ``svd``: ``?gesdd`` (divide and conquer: JAX's default on CPU, and
  ``SvdAlgorithm.DIVIDE_AND_CONQUER``) or ``?gesvd`` (``SvdAlgorithm.QR``),
  attribute ``mode`` (``'A'`` full, ``'S'`` reduced, ``'N'`` values only),
  results ``(a, s, u, vt, info)``; matrices with a zero dimension are handled
  without LAPACK.

The kernels read and write matrices in column-major order, which the operand
and result layouts tell XLA; leading batch axes are looped over by the kernel.
Where LAPACK reports failure (``info != 0``) the results of that matrix are
NaNs, as in JAX. ``subset_by_index`` (other than everything) and the Jacobi,
polar and QDWH algorithms raise ``NotImplementedError`` on CPU, as in JAX, and
every other platform raises ``NotImplementedError`` naming itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import Primitive, ShapedArray, lax
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import issubdtype
from tessela_tracer.extend import get_aval_of
from tessela_tracer.lax.linalg import EighImplementation, SvdAlgorithm

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRule, LoweringRuleContext, lower_fun
from tessela_lowering._xla import Value, ir, register_lapack_targets, stablehlo

__all__ = ["RULES"]

_I32 = np.dtype(np.int32)
_LAPACK_PREFIX = {
    np.dtype(np.float32): "s",
    np.dtype(np.float64): "d",
    np.dtype(np.complex64): "c",
    np.dtype(np.complex128): "z",
}


def _is_complex(dtype: Any) -> bool:
    return bool(issubdtype(dtype, np.complexfloating))


def _require_cpu(ctx: LoweringRuleContext, name: str) -> None:
    if ctx.platform != "cpu":
        raise NotImplementedError(
            f"The {name} primitive has no lowering for platform {ctx.platform!r} in Tessela "
            f"yet (it calls LAPACK, which runs on the CPU); put the operands on a CPU device "
            f"to compute it there."
        )


def _target(name: str, base: str, dtype: np.dtype[Any]) -> str:
    prefix = _LAPACK_PREFIX.get(np.dtype(dtype))
    if prefix is None:
        raise NotImplementedError(
            f"{name} on CPU supports float32, float64, complex64 and complex128 operands, "
            f"not {np.dtype(dtype).name}; convert the operand to float32 first."
        )
    return f"lapack_{prefix}{base}_ffi"


def _layout(rank: int, column_major: bool) -> ir.Attribute:
    """The minor-to-major layout of a result: matrices column-major, the rest row-major."""
    if column_major:
        order = [rank - 2, rank - 1, *range(rank - 3, -1, -1)]
    else:
        order = list(range(rank - 1, -1, -1))
    data: Any = np.asarray(order, np.int64)
    attr: ir.Attribute = ir.DenseIntElementsAttr.get(data, type=ir.IndexType.get())
    return attr


def _lapack_call(
    target: str,
    operand: Value,
    operand_aval: ShapedArray,
    result_avals: Sequence[ShapedArray],
    attributes: dict[str, ir.Attribute],
) -> list[Value]:
    """One typed-FFI custom call of ``target`` on one matrix operand (batch axes leading).

    Result 0 reuses the operand's buffer, as the kernels overwrite their input.
    """
    register_lapack_targets()
    rank = operand_aval.ndim
    op = stablehlo.CustomCallOp(
        [_hlo.tensor_type(a.shape, a.dtype) for a in result_avals],
        [operand],
        call_target_name=ir.StringAttr.get(target),
        has_side_effect=ir.BoolAttr.get(False),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get(attributes),
        operand_layouts=ir.ArrayAttr.get([_layout(rank, True)]),
        result_layouts=ir.ArrayAttr.get([_layout(a.ndim, a.ndim == rank) for a in result_avals]),
        output_operand_aliases=ir.ArrayAttr.get([stablehlo.OutputOperandAlias.get([0], 0, [])]),
    )
    return list(op.results)


def _char(c: str) -> ir.Attribute:
    attr: ir.Attribute = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))
    return attr


def _nan_where_failed(info: Any, *outs: Any) -> list[Any]:
    """Each output with its matrices replaced by NaNs where ``info`` (per matrix) is nonzero."""
    batch = tuple(get_aval_of(info).shape)
    ok = lax.eq(info, lax.broadcast_in_dim(np.zeros((), _I32), batch, ()))
    fixed = []
    for x in outs:
        shape = tuple(get_aval_of(x).shape)
        nan = lax.broadcast_in_dim(np.asarray(np.nan, get_aval_of(x).dtype), shape, ())
        fixed.append(lax.select(lax.broadcast_in_dim(ok, shape, tuple(range(len(batch)))), x, nan))
    return fixed


_nan_check = lower_fun(_nan_where_failed, multiple_results=True)


def _check_info(
    ctx: LoweringRuleContext,
    info: Value,
    outs: Sequence[Value],
    info_aval: ShapedArray,
    out_avals: Sequence[ShapedArray],
) -> list[Value]:
    check_ctx = LoweringRuleContext(
        ctx.module_context, ctx.primitive, [info_aval, *out_avals], list(out_avals)
    )
    return list(_nan_check(check_ctx, info, *outs))


# ---------------------------------------------------------------------- eigh


def _eigh(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    lower: bool,
    sort_eigenvalues: bool,
    subset_by_index: tuple[int, int] | None,
    algorithm: EighImplementation | None,
) -> list[Value]:
    del sort_eigenvalues  # syevd/heevd return the eigenvalues in ascending order
    _require_cpu(ctx, "eigh")
    (aval,) = ctx.avals_in
    n = aval.shape[-1]
    if subset_by_index is not None and tuple(subset_by_index) != (0, n):
        raise NotImplementedError(
            "eigh: subset_by_index is not supported on CPU; compute every "
            "eigenpair (subset_by_index=None) and slice the results."
        )
    if algorithm in (EighImplementation.QDWH, EighImplementation.JACOBI):
        raise NotImplementedError(
            f"eigh: implementation={algorithm} is not supported on CPU; pass "
            "implementation=None or EighImplementation.QR."
        )
    base = "heevd" if _is_complex(aval.dtype) else "syevd"
    v_aval, w_aval = ctx.avals_out
    info_aval = ShapedArray(tuple(aval.shape[:-2]), _I32)
    attrs = {"mode": _char("V"), "uplo": _char("L" if lower else "U")}
    v, w, info = _lapack_call(
        _target("eigh", base, aval.dtype), x, aval, [v_aval, w_aval, info_aval], attrs
    )
    return _check_info(ctx, info, [v, w], info_aval, [v_aval, w_aval])


# ----------------------------------------------------------------------- svd


def _empty_svd(x: Any, *, full_matrices: bool, compute_uv: bool) -> list[Any]:
    """The SVD of matrices with a zero dimension, as JAX defines it (no LAPACK call)."""
    aval = get_aval_of(x)
    batch, (m, n) = tuple(aval.shape[:-2]), aval.shape[-2:]
    dtype = aval.dtype
    real = np.zeros((), dtype).real.dtype
    s = lax.broadcast_in_dim(np.zeros((), real), (*batch, 0), ())
    if not compute_uv:
        return [s]
    if full_matrices:
        size = max(m, n)
        eye = np.eye(size, dtype=dtype)
        u = lax.broadcast_in_dim(eye, (*batch, size, size), (len(batch), len(batch) + 1))
    else:
        u = lax.broadcast_in_dim(np.zeros((), dtype), (*batch, m, n), ())
    vt = lax.broadcast_in_dim(np.zeros((), dtype), (*batch, 0, 0), ())
    if m < n:
        u, vt = vt, u
    return [s, u, vt]


_empty_svd_rule = lower_fun(_empty_svd, multiple_results=True)


def _svd(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    full_matrices: bool,
    compute_uv: bool,
    subset_by_index: tuple[int, int] | None,
    algorithm: SvdAlgorithm | None,
) -> list[Value]:
    _require_cpu(ctx, "svd")
    (aval,) = ctx.avals_in
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    k = min(m, n)
    if subset_by_index is not None and tuple(subset_by_index) != (0, k):
        raise NotImplementedError(
            "svd: subset_by_index is not supported on CPU; compute every "
            "singular value (subset_by_index=None) and slice the results."
        )
    if m == 0 or n == 0:
        return list(_empty_svd_rule(ctx, x, full_matrices=full_matrices, compute_uv=compute_uv))
    if algorithm in (None, SvdAlgorithm.DEFAULT, SvdAlgorithm.DIVIDE_AND_CONQUER):
        base = "gesdd"
    elif algorithm is SvdAlgorithm.QR:
        base = "gesvd"
    else:
        raise NotImplementedError(
            f"svd: algorithm={algorithm} is not supported on CPU; pass None, "
            "SvdAlgorithm.DIVIDE_AND_CONQUER or SvdAlgorithm.QR."
        )
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    s_aval = ctx.avals_out[0]
    u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    info_aval = ShapedArray(batch, _I32)
    _, s, u, vt, info = _lapack_call(
        _target("svd", base, aval.dtype),
        x,
        aval,
        [ShapedArray(aval.shape, aval.dtype), s_aval, u_aval, vt_aval, info_aval],
        {"mode": _char(mode)},
    )
    if not compute_uv:
        return _check_info(ctx, info, [s], info_aval, [s_aval])
    return _check_info(ctx, info, [s, u, vt], info_aval, list(ctx.avals_out))


RULES: dict[Primitive, LoweringRule] = {
    P.eigh_p: _eigh,
    P.svd_p: _svd,
}
"""The rules of this module, by primitive."""
