"""Batching rule of ``sharding_constraint``.

The mapped axis keeps its place; the constraint gains an
``UNCONSTRAINED`` entry there (the partitioner may lay the batch out as it
likes, as JAX's rule without ``spmd_axis_name`` does), and the dimensions
after it shift by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.sharding import NamedSharding, PartitionSpec
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import register_batching

__all__: list[str] = []


def _batched_sharding(sharding: Any, bdim: int) -> Any:
    if not isinstance(sharding, NamedSharding):
        return sharding
    spec = sharding.spec
    entries = list(spec) + [None] * max(0, bdim - len(spec))
    entries.insert(bdim, PartitionSpec.UNCONSTRAINED)
    new = PartitionSpec(*entries, unreduced=spec.unreduced, reduced=spec.reduced)
    return NamedSharding(sharding.mesh, new)


def _sharding_constraint_rule(
    args: Sequence[ArrayLike],
    dims: Sequence[Any],
    *,
    sharding: Any,
    layout: Any,
    context_mesh: Any,
    unconstrained_dims: frozenset[int],
) -> tuple[Any, int]:
    (x,), (d,) = args, dims
    new = _batched_sharding(sharding, d)
    shifted = frozenset({d} | {i + 1 if i >= d else i for i in unconstrained_dims})
    out = P.sharding_constraint_p.bind(
        x, sharding=new, layout=layout, context_mesh=context_mesh, unconstrained_dims=shifted
    )
    return out, d


register_batching(P.sharding_constraint_p, _sharding_constraint_rule)
