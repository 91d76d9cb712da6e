"""Lowering rules of the control-flow primitives: ``jit``, ``cond``, ``while``, ``scan``.

- ``jit``: a ``func.call`` of a private function built once per jaxpr in the
  module (``inline=True`` emits the body in place).
- ``cond``: ``stablehlo.case`` with one region per branch.
- ``while``: ``stablehlo.while`` threading the constants through the loop.
- ``scan``: a ``stablehlo.while`` over a counter, slicing ``xs`` with
  ``dynamic_slice`` and writing ``ys`` with ``dynamic_update_slice``.

None of them has an eager implementation: bound on concrete operands, each
runs as one compiled equation through the eager backend
(:func:`~tessela_lowering.apply_primitive`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import ClosedJaxpr
from tessela_tracer import primitives as P
from tessela_tracer.extend import physical_aval

from tessela_lowering import _hlo
from tessela_lowering._hlo import compare_values, out_type
from tessela_lowering._lowering import LoweringRuleContext, lower_closed_jaxpr, register_lowering
from tessela_lowering._xla import Value, func_dialect, ir, stablehlo

__all__: list[str] = []


def _jit_lowering(
    ctx: LoweringRuleContext, *args: Value, jaxpr: ClosedJaxpr, name: str, inline: bool = False,
    **_: Any,
) -> list[Value]:  # fmt: skip
    if inline:
        return lower_closed_jaxpr(ctx.module_context, jaxpr, args)
    symbol = ctx.module_context.function(name, jaxpr)
    types = [out_type(a) for a in ctx.avals_out]
    call = func_dialect.CallOp(types, ir.FlatSymbolRefAttr.get(symbol), list(args))
    return list(call.results)


register_lowering(P.jit_p, _jit_lowering)


def _cond_lowering(
    ctx: LoweringRuleContext, index: Value, *args: Value, branches: Sequence[ClosedJaxpr]
) -> list[Value]:
    index = _hlo.convert(index, np.int32)
    types = [out_type(a) for a in ctx.avals_out]
    op = stablehlo.CaseOp(types, index, len(branches))
    for region, branch in zip(op.regions, branches, strict=True):
        block: Any = region.blocks.append()
        with ir.InsertionPoint(block):
            stablehlo.ReturnOp(lower_closed_jaxpr(ctx.module_context, branch, args))
    return list(op.results)


register_lowering(P.cond_p, _cond_lowering)


def _loop(
    state: Sequence[Value],
    cond: Any,
    body: Any,
) -> list[Value]:
    """A ``stablehlo.while`` over ``state``; ``cond``/``body`` emit ops on block args."""
    types = [v.type for v in state]
    op = stablehlo.WhileOp(types, list(state))
    cond_block: Any = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        stablehlo.ReturnOp([cond(list(cond_block.arguments))])
    body_block: Any = op.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        stablehlo.ReturnOp(list(body(list(body_block.arguments))))
    return list(op.results)


def _while_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[Value]:
    nc = cond_nconsts + body_nconsts
    mctx = ctx.module_context

    def cond(vals: list[Value]) -> Value:
        return lower_closed_jaxpr(mctx, cond_jaxpr, [*vals[:cond_nconsts], *vals[nc:]])[0]

    def body(vals: list[Value]) -> list[Value]:
        outs = lower_closed_jaxpr(mctx, body_jaxpr, [*vals[cond_nconsts:nc], *vals[nc:]])
        return [*vals[:nc], *outs]

    return _loop(args, cond, body)[nc:]


register_lowering(P.while_p, _while_lowering)


def _scan_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    jaxpr: ClosedJaxpr,
    length: int,
    num_consts: int,
    num_carry: int,
    reverse: bool,
    unroll: int,
) -> list[Value]:
    n_xs = len(args) - num_consts - num_carry
    # Key arrays are scanned as their uint32 data (trailing words included).
    x_avals = [physical_aval(a) for a in ctx.avals_in[num_consts + num_carry :]]
    y_avals = [physical_aval(a) for a in ctx.avals_out[num_carry:]]
    ys_init = [
        _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), a.dtype)), a.shape, []) for a in y_avals
    ]
    zero_i = _hlo.constant(np.zeros((), np.int32))
    one_i = _hlo.constant(np.ones((), np.int32))
    bound = _hlo.constant(np.array(length, np.int32))
    last = _hlo.constant(np.array(length - 1, np.int32))
    state = [zero_i, *args, *ys_init]
    n_in = len(args)

    def cond(vals: list[Value]) -> Value:
        return compare_values(vals[0], bound, "LT", np.dtype(np.int32))

    def body(vals: list[Value]) -> list[Value]:
        i = vals[0]
        consts = vals[1 : 1 + num_consts]
        carry = vals[1 + num_consts : 1 + num_consts + num_carry]
        xs = vals[1 + num_consts + num_carry : 1 + n_in]
        ys = vals[1 + n_in :]
        t = stablehlo.SubtractOp(last, i).result if reverse else i
        x_t = []
        for x, aval in zip(xs, x_avals, strict=True):
            starts = [t] + [zero_i] * (aval.ndim - 1)
            piece = stablehlo.DynamicSliceOp(x, starts, [1, *aval.shape[1:]]).result
            x_t.append(
                stablehlo.ReshapeOp(_hlo.tensor_type(aval.shape[1:], aval.dtype), piece).result
            )
        outs = lower_closed_jaxpr(ctx.module_context, jaxpr, [*consts, *carry, *x_t])
        new_ys = []
        for y, y_t, aval in zip(ys, outs[num_carry:], y_avals, strict=True):
            row = stablehlo.ReshapeOp(
                _hlo.tensor_type((1, *aval.shape[1:]), aval.dtype), y_t
            ).result
            starts = [t] + [zero_i] * (aval.ndim - 1)
            new_ys.append(stablehlo.DynamicUpdateSliceOp(y, row, starts).result)
        i_next = stablehlo.AddOp(i, one_i).result
        return [i_next, *consts, *outs[:num_carry], *xs, *new_ys]

    del n_xs
    results = _loop(state, cond, body)
    return [*results[1 + num_consts : 1 + num_consts + num_carry], *results[1 + n_in :]]


register_lowering(P.scan_p, _scan_lowering)
