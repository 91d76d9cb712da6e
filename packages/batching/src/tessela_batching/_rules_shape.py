"""Batching rules of the shape family.

``broadcast_in_dim``, ``reshape``, ``squeeze`` and ``concatenate`` move the
batch to axis 0 (broadcasting unbatched operands of ``concatenate``) and
shift their dimension parameters past it; ``transpose`` puts the batch first
in its permutation; ``rev`` and ``slice`` keep the batch where it is, reversing
nothing and slicing everything along it. ``pad`` with a batched padding value
pads with zeros and selects each member's value where the mask of padded
positions is set. ``iota`` has no operands, so nothing to batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import (
    NotMapped,
    batch_size,
    bdim_at_front,
    broadcast,
    moveaxis,
    register_batching,
)
from tessela_batching._rule_helpers import all_at_front, bump

__all__: list[str] = []


def _broadcast_in_dim_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, shape: tuple[int, ...],
    broadcast_dimensions: tuple[int, ...], sharding: Any,
) -> Any:  # fmt: skip
    (x,), (d,) = args, dims
    size = batch_size(args, dims)
    out = P.broadcast_in_dim_p.bind(
        moveaxis(x, d, 0), shape=(size, *shape),
        broadcast_dimensions=(0, *(b + 1 for b in broadcast_dimensions)), sharding=sharding,
    )  # fmt: skip
    return out, 0


register_batching(P.broadcast_in_dim_p, _broadcast_in_dim_rule)


def _reshape_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, new_sizes: tuple[int, ...],
    dimensions: tuple[int, ...] | None, sharding: Any,
) -> Any:  # fmt: skip
    (x,), (d,) = args, dims
    size = batch_size(args, dims)
    out = P.reshape_p.bind(
        moveaxis(x, d, 0), new_sizes=(size, *new_sizes), sharding=sharding,
        dimensions=None if dimensions is None else (0, *(i + 1 for i in dimensions)),
    )  # fmt: skip
    return out, 0


register_batching(P.reshape_p, _reshape_rule)


def _squeeze_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, dimensions: Any) -> Any:
    (x,), (d,) = args, dims
    out = P.squeeze_p.bind(moveaxis(x, d, 0), dimensions=tuple(i + 1 for i in dimensions))
    return out, 0


register_batching(P.squeeze_p, _squeeze_rule)


def _concatenate_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, dimension: int) -> Any:
    xs = all_at_front(args, dims)
    return P.concatenate_p.bind(*xs, dimension=dimension + 1), 0


register_batching(P.concatenate_p, _concatenate_rule)


def _transpose_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, permutation: Any) -> Any:
    (x,), (d,) = args, dims
    perm = (d, *(p + (p >= d) for p in permutation))
    return P.transpose_p.bind(x, permutation=perm), 0


register_batching(P.transpose_p, _transpose_rule)


def _rev_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, dimensions: Any) -> Any:
    (x,), (d,) = args, dims
    return P.rev_p.bind(x, dimensions=bump(dimensions, d)), d


register_batching(P.rev_p, _rev_rule)


def _slice_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, start_indices: Any, limit_indices: Any,
    strides: Any,
) -> Any:  # fmt: skip
    (x,), (d,) = args, dims
    n = get_aval_of(x).shape[d]
    start = (*start_indices[:d], 0, *start_indices[d:])
    limit = (*limit_indices[:d], n, *limit_indices[d:])
    st = None if strides is None else (*strides[:d], 1, *strides[d:])
    return P.slice_p.bind(x, start_indices=start, limit_indices=limit, strides=st), d


register_batching(P.slice_p, _slice_rule)


def _pad_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, padding_config: Any) -> Any:
    (x, pv), (dx, dpv) = args, dims
    size = batch_size(args, dims)
    config = ((0, 0, 0), *padding_config)
    x = bdim_at_front(x, dx, size)
    if isinstance(dpv, NotMapped):
        return P.pad_p.bind(x, pv, padding_config=config), 0
    aval = get_aval_of(x)
    zero = np.zeros((), aval.dtype)
    padded = P.pad_p.bind(x, zero, padding_config=config)
    mask = P.pad_p.bind(
        np.ones(aval.shape[1:], np.bool_), np.bool_(False), padding_config=padding_config
    )
    shape = get_aval_of(padded).shape
    mask = broadcast(mask, size, 0)
    fill = lax.broadcast_in_dim(moveaxis(pv, dpv, 0), shape, (0,))
    return P.select_n_p.bind(mask, fill, padded), 0


register_batching(P.pad_p, _pad_rule)
