"""Lowering rule of ``custom_linear_solve``: its ``solve`` jaxpr in place.

The equation's operands are the constants of its four jaxprs (``matvec``,
``vecmat``, ``solve``, ``transpose_solve``, counted by ``const_lengths``)
followed by the right-hand side ``b``. A compiled program computes
``solve(b)`` on the solve constants; the other jaxprs matter only to
derivatives (tessela_autodiff) and to batching, so they emit nothing.
"""

from __future__ import annotations

from tessela_tracer import primitives as P
from tessela_tracer.extend import LinearSolveTuple, split_solve_args

from tessela_lowering._lowering import LoweringRuleContext, lower_closed_jaxpr, register_lowering
from tessela_lowering._xla import Value

__all__: list[str] = []


def _custom_linear_solve_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    const_lengths: LinearSolveTuple,
    jaxprs: LinearSolveTuple,
) -> list[Value]:
    consts, b = split_solve_args(args, const_lengths)
    return lower_closed_jaxpr(ctx.module_context, jaxprs.solve, [*consts.solve, *b])


register_lowering(P.custom_linear_solve_p, _custom_linear_solve_lowering)
