"""Lowering rules of the windowed reductions.

- ``reduce_window``: ``stablehlo.reduce_window`` whose region is the
  computation's jaxpr (any number of operands and initial values).
- ``reduce_window_{sum,max,min}``: ``stablehlo.reduce_window`` from the
  reduction's identity (``or``/``and`` for the max/min of booleans).
- ``select_and_gather_add`` (the tangent of a max/min pool): a variadic
  ``stablehlo.reduce_window`` over (operand, tangent) pairs that keeps the
  pair whose operand wins ``select_prim``; ties keep the earlier element.
- ``select_and_scatter_add`` (its transpose): ``stablehlo.select_and_scatter``
  on the operand padded with the selection's identity, then sliced back, as
  XLA's CPU backend needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import ClosedJaxpr, Primitive
from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._hlo import compare_values, out_type, padding_attr, scalar_identity
from tessela_lowering._lowering import (
    LoweringRuleContext,
    lower_reduction_region,
    register_lowering,
)
from tessela_lowering._xla import DType, Value, ir, stablehlo

__all__: list[str] = []


def _window_op(
    types: Sequence[ir.Type],
    operands: Sequence[Value],
    inits: Sequence[Value],
    params: dict[str, Any],
) -> Any:
    nd = len(params["window_dimensions"])
    return stablehlo.ReduceWindowOp(
        list(types), list(operands), list(inits), [int(d) for d in params["window_dimensions"]],
        window_strides=[int(d) for d in params["window_strides"]],
        base_dilations=[int(d) for d in params["base_dilation"]],
        window_dilations=[int(d) for d in params["window_dilation"]],
        padding=padding_attr(params["padding"]) if nd else None,
    )  # fmt: skip


def _register_reduce_window(
    prim: Primitive,
    identity: str,
    combine: Callable[[Value, Value], Value],
    bool_combine: Callable[[Value, Value], Value],
) -> None:
    """Lower ``prim`` to ``stablehlo.reduce_window`` of ``combine`` (``bool_combine`` on booleans)."""

    def rule(ctx: LoweringRuleContext, x: Value, **params: Any) -> list[Value]:
        dtype = ctx.avals_in[0].dtype
        combine_ = bool_combine if dtype == np.bool_ else combine
        init = _hlo.constant(scalar_identity(identity, dtype))
        op = _window_op([out_type(ctx.avals_out[0])], [x], [init], params)
        scalar = _hlo.tensor_type((), dtype)
        block: Any = op.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            stablehlo.ReturnOp([combine_(block.arguments[0], block.arguments[1])])
        return [op.result]

    register_lowering(prim, rule)


def _reduce_window_lowering(
    ctx: LoweringRuleContext, *args: Value, jaxpr: ClosedJaxpr, **params: Any
) -> list[Value]:
    # The general reduction: its region is the computation's jaxpr, lowered
    # on (accumulated..., element...) scalars.
    n = len(args) // 2
    types = [out_type(a) for a in ctx.avals_out]
    op = _window_op(types, args[:n], args[n:], params)
    lower_reduction_region(ctx.module_context, op, jaxpr, ctx.avals_in[n:])
    return list(op.results)


register_lowering(P.reduce_window_p, _reduce_window_lowering)


def _op(name: str) -> Callable[[Value, Value], Value]:
    # StableHLO's op ``name`` on two values (looked up when a lowering runs).
    return lambda a, b: getattr(stablehlo, name)(a, b).result


_register_reduce_window(P.reduce_window_sum_p, "sum", _op("AddOp"), _op("AddOp"))
_register_reduce_window(
    P.reduce_window_max_p, "max", lambda a, b: _hlo.extremum(a, b, larger=True), _op("OrOp")
)
_register_reduce_window(
    P.reduce_window_min_p,
    "min",
    lambda a, b: _hlo.extremum(a, b, larger=False),
    _op("AndOp"),
)


def _direction(select_prim: Primitive) -> str:
    if select_prim is P.ge_p:
        return "GE"
    if select_prim is P.le_p:
        return "LE"
    raise NotImplementedError(f"select_prim must be ge or le, got {select_prim}")


def _select_identity(select_prim: Primitive, dtype: DType) -> Any:
    return scalar_identity("max" if select_prim is P.ge_p else "min", dtype)


def _select_and_gather_add_lowering(
    ctx: LoweringRuleContext, tangents: Value, x: Value, *, select_prim: Primitive, **params: Any
) -> list[Value]:
    t_aval, x_aval = ctx.avals_in
    out = ctx.avals_out[0]
    direction = _direction(select_prim)
    init_x = _hlo.constant(_select_identity(select_prim, x_aval.dtype))
    init_t = _hlo.constant(np.zeros((), t_aval.dtype))
    types = [_hlo.tensor_type(out.shape, x_aval.dtype), out_type(out)]
    op = _window_op(types, [x, tangents], [init_x, init_t], params)
    sx, st = _hlo.tensor_type((), x_aval.dtype), _hlo.tensor_type((), t_aval.dtype)
    block: Any = op.regions[0].blocks.append(sx, st, sx, st)
    with ir.InsertionPoint(block):
        kx, vx, ky, vy = block.arguments
        which = compare_values(kx, ky, direction, x_aval.dtype)
        stablehlo.ReturnOp([
            stablehlo.SelectOp(which, kx, ky).result,
            stablehlo.SelectOp(which, vx, vy).result,
        ])  # fmt: skip
    return [op.results[1]]


register_lowering(P.select_and_gather_add_p, _select_and_gather_add_lowering)


def _select_and_scatter_add_lowering(
    ctx: LoweringRuleContext,
    source: Value,
    x: Value,
    *,
    select_prim: Primitive,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
) -> list[Value]:
    s_aval, x_aval = ctx.avals_in
    out = ctx.avals_out[0]
    direction = _direction(select_prim)
    nd = x_aval.ndim
    if any(lo or hi for lo, hi in padding):
        fill = _hlo.constant(_select_identity(select_prim, x_aval.dtype))
        lows = [int(lo) for lo, _ in padding]
        highs = [int(hi) for _, hi in padding]
        x = stablehlo.PadOp(x, fill, lows, highs, [0] * nd).result
    padded_shape = _hlo.shape_of(x)
    zero = _hlo.constant(np.zeros((), s_aval.dtype))
    op = stablehlo.SelectAndScatterOp(
        _hlo.tensor_type(padded_shape, out.dtype), x, source, zero,
        window_dimensions=[int(d) for d in window_dimensions],
        window_strides=[int(d) for d in window_strides],
        padding=padding_attr([(0, 0)] * nd) if nd else None,
    )  # fmt: skip
    sx, ss = _hlo.tensor_type((), x_aval.dtype), _hlo.tensor_type((), s_aval.dtype)
    select: Any = op.select.blocks.append(sx, sx)
    with ir.InsertionPoint(select):
        a, b = select.arguments
        stablehlo.ReturnOp([compare_values(a, b, direction, x_aval.dtype)])
    scatter: Any = op.scatter.blocks.append(ss, ss)
    with ir.InsertionPoint(scatter):
        a, b = scatter.arguments
        combine = stablehlo.OrOp if s_aval.dtype == np.bool_ else stablehlo.AddOp
        stablehlo.ReturnOp([combine(a, b).result])
    result = op.result
    if tuple(padded_shape) != tuple(out.shape):
        starts = [int(lo) for lo, _ in padding]
        limits = [s + d for s, d in zip(starts, x_aval.shape, strict=True)]
        result = stablehlo.SliceOp(result, starts, limits, [1] * nd).result
    return [result]


register_lowering(P.select_and_scatter_add_p, _select_and_scatter_add_lowering)
