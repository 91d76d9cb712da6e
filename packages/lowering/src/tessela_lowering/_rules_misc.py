"""Lowering rules of ``reduce_precision``, ``optimization_barrier``, ``reduce`` and ``custom_linear_solve``.

- ``reduce_precision``: ``stablehlo.reduce_precision`` with the exponent and
  mantissa bit counts.
- ``optimization_barrier``: one ``stablehlo.optimization_barrier`` over all
  operands.
- ``reduce`` (the general, traced-computation reduction): a variadic
  ``stablehlo.reduce`` whose region is the computation's jaxpr on scalars.
- ``custom_linear_solve``: the ``solve`` jaxpr in place, on its constants and
  the right-hand side (the other jaxprs matter only to derivatives).
"""

from __future__ import annotations

from typing import Any

from tessela_tracer import ClosedJaxpr, Primitive
from tessela_tracer import primitives as P
from tessela_tracer.extend import LinearSolveTuple, split_solve_args

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRule, LoweringRuleContext
from tessela_lowering._rules import out_type
from tessela_lowering._xla import Value, ir, stablehlo

__all__ = ["RULES"]


def _inline(ctx: LoweringRuleContext, closed: ClosedJaxpr, args: list[Value]) -> list[Value]:
    from tessela_lowering._rules_control import _inline as inline

    return inline(ctx, closed, args)


def _reduce_precision(
    ctx: LoweringRuleContext, x: Value, *, exponent_bits: int, mantissa_bits: int
) -> list[Value]:
    op = stablehlo.ReducePrecisionOp(x, int(exponent_bits), int(mantissa_bits))
    return [op.result]


def _optimization_barrier(ctx: LoweringRuleContext, *args: Value) -> list[Value]:
    op = stablehlo.OptimizationBarrierOp(list(args))
    return list(op.results)


def _reduce(
    ctx: LoweringRuleContext,
    *args: Value,
    computation: Any,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> list[Value]:
    n = len(args) // 2
    ops, inits = list(args[:n]), list(args[n:])
    types = [out_type(a) for a in ctx.avals_out]
    op = stablehlo.ReduceOp(types, ops, inits, [int(d) for d in dimensions])
    scalars = [_hlo.tensor_type((), a.dtype) for a in ctx.avals_in[n:]]
    block: Any = op.regions[0].blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        stablehlo.ReturnOp(_inline(ctx, jaxpr, list(block.arguments)))
    return list(op.results)


def _custom_linear_solve(
    ctx: LoweringRuleContext,
    *args: Value,
    const_lengths: LinearSolveTuple,
    jaxprs: LinearSolveTuple,
) -> list[Value]:
    consts, b = split_solve_args(args, const_lengths)
    return _inline(ctx, jaxprs.solve, [*consts.solve, *b])


RULES: dict[Primitive, LoweringRule] = {
    P.reduce_precision_p: _reduce_precision,
    P.optimization_barrier_p: _optimization_barrier,
    P.reduce_p: _reduce,
    P.custom_linear_solve_p: _custom_linear_solve,
}
"""The rules of this module, by primitive."""
