"""Lowering rules of ``remat2`` (``checkpoint``) and ``name`` (``checkpoint_name``).

Rematerialization is a decision of differentiation (tessela_autodiff's
partial evaluation decides what the backward pass recomputes); a compiled
program computes ``remat2``'s jaxpr once, in place. ``name`` only tags a
value for checkpoint policies and lowers to the value itself.
"""

from __future__ import annotations

from typing import Any

from tessela_tracer import Jaxpr
from tessela_tracer import primitives as P

from tessela_lowering._lowering import LoweringRuleContext, lower_jaxpr, register_lowering
from tessela_lowering._xla import Value

__all__: list[str] = []


def _remat_lowering(ctx: LoweringRuleContext, *args: Value, jaxpr: Jaxpr, **_: Any) -> list[Value]:
    return lower_jaxpr(ctx.module_context, jaxpr, [], list(args))


register_lowering(P.remat_p, _remat_lowering)


def _name_lowering(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


register_lowering(P.name_p, _name_lowering)
