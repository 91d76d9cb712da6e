"""Batching rules of the window family: windowed reductions and the max-pool helpers.

``reduce_window_sum``/``max``/``min`` get a window of size 1, stride 1 and no
padding or dilation along the mapped axis, which therefore stays where it is.
``select_and_gather_add`` and ``select_and_scatter_add`` (the JVP and
transpose of max pooling) take two operands that may be batched differently:
both move the batch to axis 0 (broadcasting an unbatched one) and get a
window of 1 there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import batch_size, bdim_at_front, register_batching

__all__: list[str] = []


def _insert(t: tuple[Any, ...], at: int, v: Any) -> tuple[Any, ...]:
    return (*t[:at], v, *t[at:])


def _window_rule(prim: Primitive) -> Any:
    def rule(
        args: Sequence[ArrayLike],
        dims: Sequence[int],
        *,
        window_dimensions: tuple[int, ...],
        window_strides: tuple[int, ...],
        padding: tuple[tuple[int, int], ...],
        base_dilation: tuple[int, ...],
        window_dilation: tuple[int, ...],
    ) -> tuple[Array, int]:
        (x,), (d,) = args, dims
        out = prim.bind(
            x,
            window_dimensions=_insert(window_dimensions, d, 1),
            window_strides=_insert(window_strides, d, 1),
            padding=_insert(padding, d, (0, 0)),
            base_dilation=_insert(base_dilation, d, 1),
            window_dilation=_insert(window_dilation, d, 1),
        )
        return out, d

    return rule


for _p in (P.reduce_window_sum_p, P.reduce_window_max_p, P.reduce_window_min_p):
    register_batching(_p, _window_rule(_p))


def _select_gather_rule(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    size = batch_size(args, dims)
    t, x = (bdim_at_front(a, d, size) for a, d in zip(args, dims, strict=True))
    out = P.select_and_gather_add_p.bind(
        t, x, select_prim=params["select_prim"],
        window_dimensions=(1, *params["window_dimensions"]),
        window_strides=(1, *params["window_strides"]),
        padding=((0, 0), *params["padding"]),
        base_dilation=(1, *params["base_dilation"]),
        window_dilation=(1, *params["window_dilation"]),
    )  # fmt: skip
    return out, 0


register_batching(P.select_and_gather_add_p, _select_gather_rule)


def _select_scatter_rule(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    size = batch_size(args, dims)
    s, x = (bdim_at_front(a, d, size) for a, d in zip(args, dims, strict=True))
    out = P.select_and_scatter_add_p.bind(
        s, x, select_prim=params["select_prim"],
        window_dimensions=(1, *params["window_dimensions"]),
        window_strides=(1, *params["window_strides"]),
        padding=((0, 0), *params["padding"]),
    )  # fmt: skip
    return out, 0


register_batching(P.select_and_scatter_add_p, _select_scatter_rule)
