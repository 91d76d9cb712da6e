"""Lowering rules for the higher-order primitives, and the built-in rule set.

- ``jit``: a ``func.call`` of a private function built once per jaxpr in the
  module (``inline=True`` emits the body in place).
- ``cond``: ``stablehlo.case`` with one region per branch.
- ``while``: ``stablehlo.while`` threading the constants through the loop.
- ``scan``: a ``stablehlo.while`` over a counter, slicing ``xs`` with
  ``dynamic_slice`` and writing ``ys`` with ``dynamic_update_slice``.
- ``custom_jvp_call`` / ``custom_vjp_call``: the primal ``call_jaxpr`` in
  place (derivative rules matter only to autodiff); ``remat``: its jaxpr in
  place.
- ``device_put``: the identity inside a program; eagerly it places host data
  on the device without compiling anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import ClosedJaxpr, Primitive, register_impl
from tessela_tracer import primitives as P

from tessela_lowering import (
    _hlo,
    _rules,
    _rules_conv,
    _rules_fft,
    _rules_index,
    _rules_linalg,
    _rules_linalg_lapack,
    _rules_misc,
    _rules_reduce,
)
from tessela_lowering._array import device_put_impl
from tessela_lowering._lowering import (
    LoweringRule,
    LoweringRuleContext,
    lower_jaxpr,
    register_lowering,
)
from tessela_lowering._xla import Value, func_dialect, ir, stablehlo

__all__ = ["RULES", "register_standard_lowerings"]


def _inline(ctx: LoweringRuleContext, closed: ClosedJaxpr, args: Sequence[Value]) -> list[Value]:
    jaxpr = closed.jaxpr
    consts = [
        _hlo.constant(np.asarray(c, dtype=v.aval.dtype))
        for v, c in zip(jaxpr.constvars, closed.consts, strict=True)
    ]
    return lower_jaxpr(ctx.module_context, jaxpr, consts, list(args))


def _jit(
    ctx: LoweringRuleContext, *args: Value, jaxpr: ClosedJaxpr, name: str, inline: bool = False,
    **_: Any,
) -> list[Value]:  # fmt: skip
    if inline:
        return _inline(ctx, jaxpr, args)
    symbol = ctx.module_context.function(name, jaxpr)
    types = [_rules.out_type(a) for a in ctx.avals_out]
    call = func_dialect.CallOp(types, ir.FlatSymbolRefAttr.get(symbol), list(args))
    return list(call.results)


def _cond(
    ctx: LoweringRuleContext, index: Value, *args: Value, branches: Sequence[ClosedJaxpr]
) -> list[Value]:
    index = _hlo.convert(index, np.int32)
    types = [_rules.out_type(a) for a in ctx.avals_out]
    op = stablehlo.CaseOp(types, index, len(branches))
    for region, branch in zip(op.regions, branches, strict=True):
        block: Any = region.blocks.append()
        with ir.InsertionPoint(block):
            stablehlo.ReturnOp(_inline(ctx, branch, args))
    return list(op.results)


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


def _while(
    ctx: LoweringRuleContext,
    *args: Value,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[Value]:
    nc = cond_nconsts + body_nconsts

    def cond(vals: list[Value]) -> Value:
        return _inline(ctx, cond_jaxpr, [*vals[:cond_nconsts], *vals[nc:]])[0]

    def body(vals: list[Value]) -> list[Value]:
        outs = _inline(ctx, body_jaxpr, [*vals[cond_nconsts:nc], *vals[nc:]])
        return [*vals[:nc], *outs]

    return _loop(args, cond, body)[nc:]


def _scan(
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
    x_avals = ctx.avals_in[num_consts + num_carry :]
    y_avals = ctx.avals_out[num_carry:]
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
        return _rules.compare_values(vals[0], bound, "LT", np.dtype(np.int32))

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
        outs = _inline(ctx, jaxpr, [*consts, *carry, *x_t])
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


def _custom_call(
    ctx: LoweringRuleContext, *args: Value, call_jaxpr: ClosedJaxpr, **_: Any
) -> list[Value]:
    return _inline(ctx, call_jaxpr, args)


def _device_put(ctx: LoweringRuleContext, *args: Value, **_: Any) -> list[Value]:
    return list(args)


def _remat(ctx: LoweringRuleContext, *args: Value, jaxpr: Any, **_: Any) -> list[Value]:
    return lower_jaxpr(ctx.module_context, jaxpr, [], list(args))


RULES: dict[Primitive, LoweringRule] = {
    P.remat_p: _remat,
    P.jit_p: _jit,
    P.cond_p: _cond,
    P.while_p: _while,
    P.scan_p: _scan,
    P.custom_jvp_call_p: _custom_call,
    P.custom_vjp_call_p: _custom_call,
    P.device_put_p: _device_put,
}
"""The rules of this module, by primitive."""


def register_standard_lowerings() -> list[str]:
    """Attach the built-in rules to every primitive of ``tessela_tracer.primitives``.

    Returns:
      The names of the primitives that received a rule.

    Example:
      >>> from tessela_lowering._rules_control import register_standard_lowerings
      >>> "scatter-add" in register_standard_lowerings()
      True
    """
    done: list[str] = []
    for table in (
        _rules.RULES,
        _rules_index.RULES,
        _rules_reduce.RULES,
        _rules_linalg.RULES,
        _rules_linalg_lapack.RULES,
        _rules_conv.RULES,
        _rules_fft.RULES,
        _rules_misc.RULES,
        RULES,
    ):
        for prim, rule in table.items():
            register_lowering(prim, rule)
            done.append(prim.name)
    # Eager device_put places host data directly instead of running a program.
    register_impl(P.device_put_p, device_put_impl)
    return done
