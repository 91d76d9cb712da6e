"""Lowering rules of the collectives (``psum``, ``pmax``, ``pmin``, ``all_gather``, ``axis_index``).

A collective communicates across the members of a named axis. Today the only
transformation that binds axis names is ``vmap``, whose batching rules
replace every collective over its axis by ordinary array operations before
anything is lowered; a collective equation that reaches lowering names an
axis that no mapped computation over devices provides. Its rule raises JAX's
``NameError`` for an unbound axis, naming the fix.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from tessela_tracer import primitives as P

from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value

__all__: list[str] = []


def _unbound_axis_lowering(
    ctx: LoweringRuleContext, *args: Value, axis_name: tuple[Hashable, ...], **params: Any
) -> list[Value]:
    names = ", ".join(repr(n) for n in axis_name)
    raise NameError(
        f"unbound axis name: {names}. The {ctx.primitive.name} collective reached XLA with no "
        "mapped axis of that name: call it inside vmap(..., axis_name=...) (which computes it "
        "over the batch axis) rather than on its own under jit."
    )


for _prim in (P.psum_p, P.pmax_p, P.pmin_p, P.all_gather_p, P.axis_index_p):
    register_lowering(_prim, _unbound_axis_lowering)
