"""LAPACK on CPU through jaxlib's FFI kernels: the plumbing of the LAPACK-backed rules.

StableHLO has no eigendecomposition or SVD op, so on CPU each such equation
becomes one ``stablehlo.custom_call`` (``api_version`` 4, typed FFI) of a
LAPACK kernel that jaxlib ships and ``_xla.register_lapack_targets``
registers with XLA. This module builds that call:

- :func:`lapack_target` names the kernel for a dtype (``lapack_sgesdd_ffi``
  and so on: ``s``/``d``/``c``/``z`` for float32, float64, complex64 and
  complex128; any other dtype is refused with the fix).
- :func:`lapack_call` emits the custom call on one matrix operand with
  leading batch axes (looped over by the kernel). The kernels read and write
  matrices in column-major order, which the operand and result layouts tell
  XLA; result 0 reuses the operand's buffer, as the kernels overwrite their
  input.
- :func:`lapack_ffi_call` is the general form: several operands (matrices
  column-major, vectors row-major) and the operand buffers that results
  reuse, as ``geev``, ``gees``, ``gehrd``, ``sytrd``, ``orgqr``, ``ormqr``
  and ``gtsv`` need.
- :func:`char_attr` encodes the one-character options (``mode``, ``uplo``);
  :func:`enum_attr`, :func:`int32_attr` and :func:`bool_attr` the kernels'
  enum, integer and boolean options.
- :func:`check_info` replaces the results of each matrix where LAPACK reports
  failure (``info != 0``) by NaNs, as JAX does.
- :func:`require_cpu` refuses other platforms, naming the primitive and the
  platform.
- ``empty_svd_rule`` lowers the SVD of matrices with a zero dimension without
  a kernel call (CPU and GPU rules share it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import ShapedArray, lax
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import Array

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRuleContext, lower_fun
from tessela_lowering._xla import Value, ir, register_lapack_targets, stablehlo

__all__ = [
    "I32", "bool_attr", "char_attr", "check_info", "empty_svd_rule", "enum_attr", "int32_attr",
    "lapack_call", "lapack_ffi_call", "lapack_target", "require_cpu", "require_whole_subset",
]  # fmt: skip

I32 = np.dtype(np.int32)
"""int32: the dtype of the kernels' status (``info``) and pivot outputs."""
_LAPACK_PREFIX = {
    np.dtype(np.float32): "s",
    np.dtype(np.float64): "d",
    np.dtype(np.complex64): "c",
    np.dtype(np.complex128): "z",
}


def require_cpu(ctx: LoweringRuleContext, name: str) -> None:
    """Raise ``NotImplementedError`` unless ``ctx`` compiles for the CPU."""
    if ctx.platform != "cpu":
        raise NotImplementedError(
            f"The {name} primitive has no lowering for platform {ctx.platform!r} in Tessela "
            f"yet (it calls LAPACK, which runs on the CPU); put the operands on a CPU device "
            f"to compute it there."
        )


def require_whole_subset(
    name: str, what: str, subset_by_index: tuple[int, int] | None, count: int, where: str
) -> None:
    """Raise ``NotImplementedError`` unless ``subset_by_index`` asks for all ``count`` results.

    Args:
      name: the primitive (``"svd"``, ``"eigh"``).
      what: one of its results, in words (``"singular value"``).
      subset_by_index: the primitive's parameter.
      count: how many results there are.
      where: the platform, in words (``"CPU"``, ``"GPU"``).

    Example:
      >>> require_whole_subset("svd", "singular value", (0, 3), 3, "CPU")  # all three: fine
      >>> require_whole_subset("svd", "singular value", (0, 2), 3, "CPU")
      Traceback (most recent call last):
      ...
      NotImplementedError: svd: subset_by_index is not supported on CPU; compute every singular value (subset_by_index=None) and slice the results.
    """
    if subset_by_index is not None and tuple(subset_by_index) != (0, count):
        raise NotImplementedError(
            f"{name}: subset_by_index is not supported on {where}; compute every {what} "
            "(subset_by_index=None) and slice the results."
        )


def lapack_target(name: str, base: str, dtype: np.dtype[Any]) -> str:
    """The FFI kernel of LAPACK routine ``base`` (e.g. "gesdd") for ``dtype``."""
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


def lapack_call(
    target: str,
    operand: Value,
    operand_aval: ShapedArray,
    result_avals: Sequence[ShapedArray],
    attributes: dict[str, ir.Attribute],
) -> list[Value]:
    """One typed-FFI custom call of ``target`` on one matrix operand (batch axes leading).

    Result 0 reuses the operand's buffer, as the kernels overwrite their input.
    """
    return lapack_ffi_call(target, [operand], [operand_aval], result_avals, attributes, {0: 0})


def lapack_ffi_call(
    target: str,
    operands: Sequence[Value],
    operand_avals: Sequence[ShapedArray],
    result_avals: Sequence[ShapedArray],
    attributes: dict[str, ir.Attribute],
    aliases: dict[int, int] | None = None,
) -> list[Value]:
    """One typed-FFI custom call of ``target`` on several operands (batch axes leading).

    The operands and results of the highest operand rank are matrices, laid
    out column-major; the others (vectors, per-matrix scalars) row-major.
    ``aliases`` maps an operand index to the result that reuses its buffer.
    """
    register_lapack_targets()
    rank = max(a.ndim for a in operand_avals)
    alias_attrs = [
        stablehlo.OutputOperandAlias.get([out] if len(result_avals) > 1 else [], operand, [])
        for operand, out in sorted((aliases or {}).items())
    ]
    op = stablehlo.CustomCallOp(
        [_hlo.tensor_type(a.shape, a.dtype) for a in result_avals],
        list(operands),
        call_target_name=ir.StringAttr.get(target),
        has_side_effect=ir.BoolAttr.get(False),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get(attributes),
        operand_layouts=ir.ArrayAttr.get([_layout(a.ndim, a.ndim == rank) for a in operand_avals]),
        result_layouts=ir.ArrayAttr.get([_layout(a.ndim, a.ndim == rank) for a in result_avals]),
        output_operand_aliases=ir.ArrayAttr.get(alias_attrs),
    )
    return list(op.results)


def enum_attr(value: int) -> ir.Attribute:
    """A LAPACK enum option (jaxlib's ``ComputationMode``, ``Sort``) as a ``ui8`` attribute."""
    attr: ir.Attribute = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), value)
    return attr


def int32_attr(value: int) -> ir.Attribute:
    """An ``i32`` scalar attribute (``gehrd``'s ``low`` and ``high``)."""
    attr: ir.Attribute = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value)
    return attr


def bool_attr(value: bool) -> ir.Attribute:
    """A boolean attribute (``ormqr``'s ``left`` and ``transpose``)."""
    attr: ir.Attribute = ir.IntegerAttr.get(ir.IntegerType.get_signless(1), int(value))
    return attr


def char_attr(c: str) -> ir.Attribute:
    """A one-character LAPACK option as the ``ui8`` attribute the kernels read."""
    attr: ir.Attribute = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))
    return attr


def _nan_where_failed(info: Array, *outs: Array) -> list[Array]:
    """Each output with its matrices replaced by NaNs where ``info`` (per matrix) is nonzero."""
    batch = tuple(get_aval_of(info).shape)
    ok = lax.eq(info, lax.broadcast_in_dim(np.zeros((), I32), batch, ()))
    fixed = []
    for x in outs:
        shape = tuple(get_aval_of(x).shape)
        nan = lax.broadcast_in_dim(np.asarray(np.nan, get_aval_of(x).dtype), shape, ())
        fixed.append(lax.select(lax.broadcast_in_dim(ok, shape, tuple(range(len(batch)))), x, nan))
    return fixed


_nan_check = lower_fun(_nan_where_failed, multiple_results=True)


def check_info(
    ctx: LoweringRuleContext,
    info: Value,
    outs: Sequence[Value],
    info_aval: ShapedArray,
    out_avals: Sequence[ShapedArray],
) -> list[Value]:
    """``outs`` with each matrix replaced by NaNs where its ``info`` is nonzero."""
    check_ctx = LoweringRuleContext(
        ctx.module_context, ctx.primitive, [info_aval, *out_avals], list(out_avals)
    )
    return list(_nan_check(check_ctx, info, *outs))


def _empty_svd(x: Array, *, full_matrices: bool, compute_uv: bool) -> list[Array]:
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


empty_svd_rule = lower_fun(_empty_svd, multiple_results=True)
