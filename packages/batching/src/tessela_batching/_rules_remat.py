"""Batching rules of the remat family: ``remat2`` (``checkpoint``) and ``name``.

- ``remat2`` batches its body jaxpr and stays a ``remat2`` equation, so the
  rematerialization survives ``vmap``. The body is an open jaxpr: the
  constants that batching hoists out of it become leading operands.
- ``name`` (``checkpoint_name``'s marker) is the identity on its operand, so
  it batches elementwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import ClosedJaxpr, Jaxpr, hoist_consts
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import batch_jaxpr, batch_size, register_batching, rule_axis_name
from tessela_batching._rule_helpers import batched_flags, defvectorized, front, out_dims

__all__: list[str] = []


def _remat_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, jaxpr: Jaxpr, **params: Any
) -> Any:
    size = batch_size(args, dims)
    in_b = batched_flags(dims)
    new, consts, out_b = batch_jaxpr(ClosedJaxpr(jaxpr, ()), size, in_b,
                                     [False] * len(jaxpr.outvars), rule_axis_name())  # fmt: skip
    body, hoisted = hoist_consts(new)
    outs = P.remat_p.bind(*hoisted, *consts, *front(args, dims, in_b, size),
                          jaxpr=body.jaxpr, **params)  # fmt: skip
    return outs, out_dims(out_b)


register_batching(P.remat_p, _remat_rule)

defvectorized(P.name_p)
