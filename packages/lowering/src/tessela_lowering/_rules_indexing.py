"""Lowering rules of the indexing primitives: dynamic slices, gather and the scatters.

Out-of-bounds handling follows the tracer's ``GatherScatterMode``: XLA clamps
gather start indices and drops out-of-bounds scatter windows by itself, so
``CLIP`` gathers and ``FILL_OR_DROP`` scatters need nothing extra; a
``FILL_OR_DROP`` gather selects ``fill_value`` where the window is out of
bounds, and a ``CLIP`` scatter clamps its indices first. The five scatters
share one rule, registered by :func:`_register_scatter` with each one's
combiner (none for ``scatter``, which writes the update, or emits its
``update_jaxpr`` when ``x.at[i].apply(f)`` gave one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import Jaxpr, Primitive, ShapedArray
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import physical_shape_dtype
from tessela_tracer.lax import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _hlo
from tessela_lowering._hlo import compare_values, out_type, reduce_region
from tessela_lowering._lowering import LoweringRuleContext, lower_jaxpr, register_lowering
from tessela_lowering._xla import DType, Value, ir, stablehlo

__all__: list[str] = []


def _index_dtype(avals: Sequence[ShapedArray]) -> DType:
    wide = any(a.dtype.itemsize == 8 for a in avals)
    return np.dtype(np.int64 if wide else np.int32)


def _scalar_indices(ctx: LoweringRuleContext, first: int, idx: Sequence[Value]) -> list[Value]:
    dtype = _index_dtype(ctx.avals_in[first:])
    return [_hlo.convert(i, dtype) for i in idx]


def _dynamic_slice_lowering(
    ctx: LoweringRuleContext, x: Value, *idx: Value, slice_sizes: Sequence[int]
) -> list[Value]:
    starts = _scalar_indices(ctx, 1, idx)
    t = _hlo.key_trailing(ctx.avals_in[0])  # keys: whole keys are kept
    if t:
        zero = _hlo.constant(np.zeros((), _index_dtype(ctx.avals_in[1:])))
        starts += [zero] * len(t)
    return [stablehlo.DynamicSliceOp(x, starts, [*slice_sizes, *t]).result]


register_lowering(P.dynamic_slice_p, _dynamic_slice_lowering)


def _dynamic_update_slice_lowering(
    ctx: LoweringRuleContext, x: Value, update: Value, *idx: Value
) -> list[Value]:
    starts = _scalar_indices(ctx, 2, idx)
    return [stablehlo.DynamicUpdateSliceOp(x, update, starts).result]


register_lowering(P.dynamic_update_slice_p, _dynamic_update_slice_lowering)


def _fill_mode(mode: object) -> bool:
    return getattr(mode, "name", str(mode)) == "FILL_OR_DROP"


def _clip_mode(mode: object) -> bool:
    return getattr(mode, "name", str(mode)) == "CLIP"


def _in_bounds_mask(
    idx: Value,
    idx_aval: ShapedArray,
    operand_shape: Sequence[int],
    window: Sequence[int],
    dims: Sequence[int],
) -> Value:
    """Per index vector: whether every component keeps its window inside the operand."""
    dtype = idx_aval.dtype
    shape = tuple(idx_aval.shape)
    upper = np.array([operand_shape[d] - window[d] for d in dims], dtype)
    upper_b = _hlo.broadcast_in_dim(_hlo.constant(upper), shape, [len(shape) - 1])
    zero = _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), dtype)), shape, [])
    ok = stablehlo.AndOp(
        compare_values(idx, zero, "GE", dtype), compare_values(idx, upper_b, "LE", dtype)
    ).result
    init = _hlo.constant(np.array(True))
    out = ir.RankedTensorType.get(list(shape[:-1]), ir.IntegerType.get_signless(1))
    op = stablehlo.ReduceOp([out], [ok], [init], [len(shape) - 1])
    reduce_region(op, np.dtype(bool), lambda a, b: stablehlo.AndOp(a, b).result)
    return op.result


def _gather_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    idx: Value,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool,
    mode: GatherScatterMode,
    fill_value: Any,
    **_: Any,
) -> list[Value]:
    dn = dimension_numbers
    x_aval, idx_aval = ctx.avals_in
    out = ctx.avals_out[0]
    t = _hlo.key_trailing(x_aval)  # keys: each gathers its words as trailing offset dims
    if 0 in out.shape:
        # Nothing to gather (a vmap over no examples, say): XLA would still reject
        # slices larger than an empty operand dimension.
        phys_dtype = physical_shape_dtype((), out.dtype)[1]
        return [_hlo.constant(np.zeros((*out.shape, *t), phys_dtype))]
    dims = stablehlo.GatherDimensionNumbers.get(
        offset_dims=[*dn.offset_dims, *range(out.ndim, out.ndim + len(t))],
        collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map),
        index_vector_dim=idx_aval.ndim - 1,
    )
    gathered = stablehlo.GatherOp(
        x, idx, dims, [*slice_sizes, *t], indices_are_sorted=bool(indices_are_sorted)
    ).result
    if not _fill_mode(mode):
        return [gathered]
    mask = _in_bounds_mask(idx, idx_aval, x_aval.shape, slice_sizes, dn.start_index_map)
    batch_dims = [i for i in range(out.ndim) if i not in dn.offset_dims]
    phys_shape = (*out.shape, *t)
    phys_dtype = physical_shape_dtype((), out.dtype)[1]
    mask_b = _hlo.broadcast_in_dim(mask, phys_shape, batch_dims)
    fill = np.array(fill_value if fill_value is not None else 0).astype(phys_dtype)
    fill_b = _hlo.broadcast_in_dim(_hlo.constant(fill), phys_shape, [])
    return [stablehlo.SelectOp(mask_b, gathered, fill_b).result]


register_lowering(P.gather_p, _gather_lowering)


def _scatter_window(
    x_aval: ShapedArray, upd_aval: ShapedArray, dn: ScatterDimensionNumbers
) -> list[int]:
    skipped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    kept = [d for d in range(x_aval.ndim) if d not in skipped]
    window = [1] * x_aval.ndim
    for d, u in zip(kept, dn.update_window_dims, strict=True):
        window[d] = upd_aval.shape[u]
    return window


def _clamp_indices(idx: Value, idx_aval: ShapedArray, upper: Sequence[int]) -> Value:
    dtype = idx_aval.dtype
    shape = tuple(idx_aval.shape)
    hi = _hlo.broadcast_in_dim(_hlo.constant(np.array(upper, dtype)), shape, [len(shape) - 1])
    lo = _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), dtype)), shape, [])
    return stablehlo.ClampOp(lo, idx, hi).result


def _combiner(
    ctx: LoweringRuleContext,
    combine: Callable[[Value, Value], Value] | None,
    update_jaxpr: Jaxpr | None,
    update_consts: Sequence[ArrayLike],
) -> Callable[[Value, Value], Value]:
    """How a scatter combines an operand element with an update element.

    ``scatter`` with an ``update_jaxpr`` (``x.at[i].apply(f)``) emits that
    jaxpr in the region; otherwise the family's combiner, or the update itself.
    """
    if combine is None and update_jaxpr is not None:
        jaxpr = update_jaxpr

        def apply(a: Value, b: Value) -> Value:
            consts = [
                _hlo.constant(np.asarray(c, dtype=v.aval.dtype))
                for v, c in zip(jaxpr.constvars, update_consts, strict=True)
            ]
            return lower_jaxpr(ctx.module_context, jaxpr, consts, [a, b])[0]

        return apply
    return combine if combine is not None else (lambda a, b: b)


def _register_scatter(prim: Primitive, combine: Callable[[Value, Value], Value] | None) -> None:
    """Lower ``prim`` to ``stablehlo.scatter`` whose region is ``combine`` (or the update)."""

    def rule(
        ctx: LoweringRuleContext,
        x: Value,
        idx: Value,
        updates: Value,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: GatherScatterMode,
        update_jaxpr: Jaxpr | None = None,
        update_consts: Sequence[ArrayLike] = (),
        **_: object,
    ) -> list[Value]:
        dn = dimension_numbers
        x_aval, idx_aval, upd_aval = ctx.avals_in
        if _clip_mode(mode):
            window = _scatter_window(x_aval, upd_aval, dn)
            upper = [x_aval.shape[d] - window[d] for d in dn.scatter_dims_to_operand_dims]
            idx = _clamp_indices(idx, idx_aval, upper)
        t = _hlo.key_trailing(x_aval)  # keys: each update writes whole keys
        n_upd = upd_aval.ndim
        dims = stablehlo.ScatterDimensionNumbers.get(
            update_window_dims=[*dn.update_window_dims, *range(n_upd, n_upd + len(t))],
            inserted_window_dims=list(dn.inserted_window_dims),
            input_batching_dims=list(dn.operand_batching_dims),
            scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
            scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
            index_vector_dim=idx_aval.ndim - 1,
        )
        op = stablehlo.ScatterOp(
            [out_type(ctx.avals_out[0])], [x], idx, [updates], dims,
            indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
        )  # fmt: skip
        element = physical_shape_dtype((), x_aval.dtype)[1]
        reduce_region(op, element, _combiner(ctx, combine, update_jaxpr, update_consts))
        return [op.result]

    register_lowering(prim, rule)


_register_scatter(P.scatter_p, None)
_register_scatter(P.scatter_add_p, lambda a, b: stablehlo.AddOp(a, b).result)
_register_scatter(P.scatter_sub_p, lambda a, b: stablehlo.SubtractOp(a, b).result)
_register_scatter(P.scatter_mul_p, lambda a, b: stablehlo.MulOp(a, b).result)
_register_scatter(P.scatter_min_p, lambda a, b: _hlo.extremum(a, b, larger=False))
_register_scatter(P.scatter_max_p, lambda a, b: _hlo.extremum(a, b, larger=True))
