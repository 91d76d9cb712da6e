"""Batching rules of the array family: ``stack``, ``unstack``, ``split``, ``tile``, ``device_put``.

The four array-assembling rules move the batch axis of every operand to the
front (broadcasting unbatched operands), shift the primitive's axis
parameter past it, and return results batched along axis 0. ``device_put``
moves whole arrays, so every operand keeps its batch axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import batch_size, bdim_at_front, register_batching
from tessela_batching._rule_helpers import all_at_front

__all__: list[str] = []


def _stack(args: Sequence[ArrayLike], dims: Sequence[Any], *, axis: int) -> Any:
    xs = all_at_front(args, dims)
    return P.stack_p.bind(*xs, axis=axis + 1), 0


register_batching(P.stack_p, _stack)


def _unstack(args: Sequence[ArrayLike], dims: Sequence[Any], *, axis: int) -> Any:
    (x,), (d,) = args, dims
    outs = P.unstack_p.bind(bdim_at_front(x, d, batch_size(args, dims)), axis=axis + 1)
    return outs, [0] * len(outs)


register_batching(P.unstack_p, _unstack)


def _split(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, sizes: Sequence[int], axis: int
) -> Any:
    (x,), (d,) = args, dims
    outs = P.split_p.bind(bdim_at_front(x, d, batch_size(args, dims)), sizes=sizes, axis=axis + 1)
    return outs, [0] * len(outs)


register_batching(P.split_p, _split)


def _tile(args: Sequence[ArrayLike], dims: Sequence[Any], *, reps: Sequence[int]) -> Any:
    (x,), (d,) = args, dims
    return P.tile_p.bind(bdim_at_front(x, d, batch_size(args, dims)), reps=(1, *reps)), 0


register_batching(P.tile_p, _tile)


def _device_put(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    # Placement moves whole arrays: batch axes stay where they are.
    return P.device_put_p.bind(*args, **params), list(dims)


register_batching(P.device_put_p, _device_put)
