"""Lowering rules of the custom family: ``custom_jvp_call``, ``custom_vjp_call``, ``custom_lin``,
``custom_vmap_call``.

The calls carry the function's primal jaxpr as ``call_jaxpr``, next to
the derivative rules that only tessela_autodiff reads; a compiled program
computes the primal, so each equation emits ``call_jaxpr`` inline (no
function call). Bound on concrete operands they run the tracer's own
implementation (the body evaluated op by op, as JAX does), not these rules.

``custom_lin`` (the linear part of a ``custom_vjp`` function, which reverse
mode stages and transposes away) cannot be evaluated: reaching a compiled
program means forward mode was applied to a ``custom_vjp`` function, and the
rule raises JAX's ``TypeError`` for that, as its eager implementation does.
"""

from __future__ import annotations

from typing import Any, cast

from tessela_tracer import ClosedJaxpr, Primitive
from tessela_tracer import primitives as P

from tessela_lowering._lowering import LoweringRuleContext, lower_closed_jaxpr, register_lowering
from tessela_lowering._xla import Value

__all__: list[str] = []


def _register_inline(prim: Primitive, param: str) -> None:
    # The primitive's primal program is its parameter ``param``, emitted inline.
    def rule(ctx: LoweringRuleContext, *args: Value, **params: object) -> list[Value]:
        jaxpr = cast(ClosedJaxpr, params[param])
        return lower_closed_jaxpr(ctx.module_context, jaxpr, args)

    register_lowering(prim, rule)


_register_inline(P.custom_jvp_call_p, "call_jaxpr")
_register_inline(P.custom_vjp_call_p, "call_jaxpr")


def _custom_lin_lowering(ctx: LoweringRuleContext, *args: Value, **_: Any) -> list[Value]:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


register_lowering(P.custom_lin_p, _custom_lin_lowering)

_register_inline(P.custom_vmap_call_p, "call")
_register_inline(P.linear_call_p, "callee")
