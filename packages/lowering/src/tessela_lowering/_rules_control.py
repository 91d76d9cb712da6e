"""Lowering rules of the control-flow primitives: ``jit``, ``cond``, ``while``, ``scan``.

- ``jit``: a ``func.call`` of a private function built once per jaxpr in the
  module (``inline=True`` emits the body in place).
- ``cond``: ``stablehlo.case`` with one region per branch.
- ``while``: ``stablehlo.while`` threading the constants through the loop.
- ``scan``: a ``stablehlo.while`` over a counter, slicing ``xs`` with
  ``dynamic_slice`` and writing ``ys`` with ``dynamic_update_slice``.

- ``composite``: ``stablehlo.composite`` naming its decomposition, a private
  function, with the attributes as ``composite_attributes``.
- ``platform_index``: a constant, the index of the compiled-for platform.

When a body has ordered effects, each of them carries the ordered-effects
token (:attr:`~tessela_lowering.ModuleContext.token`): as the first argument
and result of the called function, as an extra result of ``stablehlo.case``
(every branch returns the token it ends with), and as the last loop carry of
``stablehlo.while``. The predicate of a ``while_loop`` may not have ordered
effects (as in JAX).

None of them has an eager implementation: bound on concrete operands, each
runs as one compiled equation through the eager backend
(:func:`~tessela_lowering.apply_primitive`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_pytree import tree_unflatten
from tessela_tracer import ClosedJaxpr
from tessela_tracer import primitives as P
from tessela_tracer.extend import physical_aval

from tessela_lowering import _hlo
from tessela_lowering._hlo import compare_values
from tessela_lowering._lowering import (
    LoweringRuleContext,
    aval_type,
    has_ordered_effects,
    lower_closed_jaxpr,
    ordered_token,
    register_lowering,
)
from tessela_lowering._xla import Value, dense_attr, func_dialect, ir, ir_element_type, stablehlo

__all__: list[str] = []


def _jit_lowering(
    ctx: LoweringRuleContext, *args: Value, jaxpr: ClosedJaxpr, name: str, inline: bool = False,
    **_: Any,
) -> list[Value]:  # fmt: skip
    mctx = ctx.module_context
    if inline:
        return lower_closed_jaxpr(mctx, jaxpr, args)
    symbol = mctx.function(name, jaxpr)
    types = [aval_type(a) for a in ctx.avals_out]
    if not has_ordered_effects(jaxpr):
        call = func_dialect.CallOp(types, ir.FlatSymbolRefAttr.get(symbol), list(args))
        return list(call.results)
    token = ordered_token(mctx)
    call = func_dialect.CallOp(
        [stablehlo.TokenType.get(), *types], ir.FlatSymbolRefAttr.get(symbol), [token, *args]
    )
    results: list[Value] = list(call.results)
    mctx.token = results[0]
    return results[1:]


register_lowering(P.jit_p, _jit_lowering)


def _cond_lowering(
    ctx: LoweringRuleContext, index: Value, *args: Value, branches: Sequence[ClosedJaxpr]
) -> list[Value]:
    mctx = ctx.module_context
    index = _hlo.convert(index, np.int32)
    types = [aval_type(a) for a in ctx.avals_out]
    threaded = has_ordered_effects(*branches)
    token = ordered_token(mctx) if threaded else None
    if threaded:
        types.append(stablehlo.TokenType.get())
    op = stablehlo.CaseOp(types, index, len(branches))
    for region, branch in zip(op.regions, branches, strict=True):
        block: Any = region.blocks.append()
        with ir.InsertionPoint(block):
            mctx.token = token
            outs = lower_closed_jaxpr(mctx, branch, args)
            if threaded:
                outs.append(ordered_token(mctx))
            stablehlo.ReturnOp(outs)
    results: list[Value] = list(op.results)
    mctx.token = results.pop() if threaded else token
    return results


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
    if has_ordered_effects(cond_jaxpr):
        raise NotImplementedError(
            "Ordered effects (e.g. debug.print(..., ordered=True)) are not supported in the "
            "cond_fun of a while_loop; move them to body_fun."
        )
    nc = cond_nconsts + body_nconsts
    mctx = ctx.module_context
    threaded = has_ordered_effects(body_jaxpr)
    state = [*args, ordered_token(mctx)] if threaded else list(args)
    n = len(args)

    def cond(vals: list[Value]) -> Value:
        return lower_closed_jaxpr(mctx, cond_jaxpr, [*vals[:cond_nconsts], *vals[nc:n]])[0]

    def body(vals: list[Value]) -> list[Value]:
        if threaded:
            mctx.token = vals[n]
        outs = lower_closed_jaxpr(mctx, body_jaxpr, [*vals[cond_nconsts:nc], *vals[nc:n]])
        return [*vals[:nc], *outs, *([ordered_token(mctx)] if threaded else [])]

    results = _loop(state, cond, body)
    if threaded:
        mctx.token = results.pop()
    return results[nc:]


register_lowering(P.while_p, _while_lowering)


def _scan_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    jaxpr: ClosedJaxpr,
    length: int,
    num_consts: int,
    num_carry: int,
    reverse: bool,
    **_: object,  # unroll: the loop runs one step per iteration
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
    mctx = ctx.module_context
    threaded = has_ordered_effects(jaxpr)
    state = [zero_i, *args, *ys_init, *([ordered_token(mctx)] if threaded else [])]
    n_in = len(args)
    n_ys = len(ys_init)

    def cond(vals: list[Value]) -> Value:
        return compare_values(vals[0], bound, "LT", np.dtype(np.int32))

    def body(vals: list[Value]) -> list[Value]:
        i = vals[0]
        consts = vals[1 : 1 + num_consts]
        carry = vals[1 + num_consts : 1 + num_consts + num_carry]
        xs = vals[1 + num_consts + num_carry : 1 + n_in]
        ys = vals[1 + n_in : 1 + n_in + n_ys]
        if threaded:
            mctx.token = vals[-1]
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
        token = [ordered_token(mctx)] if threaded else []
        return [i_next, *consts, *outs[:num_carry], *xs, *new_ys, *token]

    del n_xs
    results = _loop(state, cond, body)
    if threaded:
        mctx.token = results.pop()
    return [*results[1 + num_consts : 1 + num_consts + num_carry], *results[1 + n_in :]]


register_lowering(P.scan_p, _scan_lowering)


def _attribute(v: Any) -> ir.Attribute:
    """An MLIR attribute for a composite attribute value, as JAX makes them."""
    if isinstance(v, str):
        return ir.StringAttr.get(v)
    if isinstance(v, (list, tuple)):
        return ir.ArrayAttr.get([_attribute(x) for x in v])
    if isinstance(v, dict):
        return ir.DictAttr.get({k: _attribute(x) for k, x in v.items()})
    if isinstance(v, np.dtype):
        return ir.TypeAttr.get(ir_element_type(v))
    python = {bool: np.bool_, int: np.int64, float: np.float64}.get(type(v))
    arr = np.asarray(getattr(v, "val", v), python)
    if arr.ndim:
        return dense_attr(arr, _hlo.tensor_type(arr.shape, arr.dtype))
    element = ir_element_type(arr.dtype)
    if arr.dtype.kind == "f":
        return ir.FloatAttr.get(element, float(arr))
    if arr.dtype.kind in "iub":
        return ir.IntegerAttr.get(element, int(arr))
    raise TypeError(f"Unsupported scalar attribute type: {type(v)}")


def _composite_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    name: str,
    attributes: Sequence[tuple[str, tuple[Any, ...], Any]],
    version: int,
    jaxpr: ClosedJaxpr,
) -> list[Value]:
    mctx = ctx.module_context
    if has_ordered_effects(jaxpr):
        return lower_closed_jaxpr(mctx, jaxpr, args)
    symbol = mctx.function(name, jaxpr)
    attrs = {}
    for key, leaves, treedef in attributes:
        value = tree_unflatten(treedef, leaves)
        if value is not None:
            attrs[key] = _attribute(value)
    i32 = ir.IntegerType.get_signless(32)
    # jaxlib's wrapper fills in the region count its generated builder may require.
    composite_op: Any = stablehlo.CompositeOp
    op = composite_op(
        [aval_type(a) for a in ctx.avals_out],
        list(args),
        name=ir.StringAttr.get(name),
        decomposition=ir.FlatSymbolRefAttr.get(symbol),
        composite_attributes=ir.DictAttr.get(attrs),
        version=ir.IntegerAttr.get(i32, int(version)),
    )
    return list(op.results)


register_lowering(P.composite_p, _composite_lowering)


def _platform_index_lowering(
    ctx: LoweringRuleContext, *, platforms: Sequence[Sequence[str] | None]
) -> list[Value]:
    platform = "cuda" if ctx.platform == "gpu" else ctx.platform
    for i, names in enumerate(platforms):
        if names is None or platform in names:
            return [_hlo.constant(np.array(i, np.int32))]
    raise NotImplementedError(
        f"MLIR translation rule for primitive 'platform_index(platforms={tuple(platforms)})' "
        f"not found for platform {platform}"
    )


register_lowering(P.platform_index_p, _platform_index_lowering)
