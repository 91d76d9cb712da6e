"""Batching rules of the window family: windowed reductions and the max-pool helpers.

``reduce_window_sum``/``max``/``min`` get a window of size 1, stride 1 and no
padding or dilation along the mapped axis, which therefore stays where it is;
the general ``reduce_window`` gets the same window with every operand's batch
moved to axis 0.
``select_and_gather_add`` and ``select_and_scatter_add`` (the JVP and
transpose of max pooling) take two operands that may be batched differently:
both move the batch to axis 0 (broadcasting an unbatched one) and get a
window of 1 there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import ClosedJaxpr, Primitive
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import BDim, NotMapped, register_batching
from tessela_batching._rule_helpers import all_at_front

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


def _generic_window_rule(
    args: Sequence[ArrayLike],
    dims: Sequence[BDim],
    *,
    jaxpr: ClosedJaxpr,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> tuple[list[Array], list[int]]:
    # As JAX's: every operand's batch at axis 0 under a window of 1 there;
    # batched initial values are not supported.
    n = len(args) // 2
    if any(not isinstance(d, NotMapped) for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial values")
    ops = all_at_front(args[:n], dims[:n])
    outs = P.reduce_window_p.bind(
        *ops, *args[n:], jaxpr=jaxpr, window_dimensions=(1, *window_dimensions),
        window_strides=(1, *window_strides), padding=((0, 0), *padding),
        base_dilation=(1, *base_dilation), window_dilation=(1, *window_dilation),
    )  # fmt: skip
    return list(outs), [0] * n


register_batching(P.reduce_window_p, _generic_window_rule)


def _select_window_rule(prim: Primitive, *window: str) -> Callable[..., tuple[Array, int]]:
    """Batch a select-and-add window primitive with its operands' batch axes at the front.

    Each parameter named in ``window`` gains a leading window of 1 (padding
    ``(0, 0)``) over the batch axis.
    """

    def rule(args: Sequence[ArrayLike], dims: Sequence[BDim], **params: Any) -> tuple[Array, int]:
        a, x = all_at_front(args, dims)
        front = {k: ((0, 0), *params[k]) if k == "padding" else (1, *params[k]) for k in window}
        return prim.bind(a, x, select_prim=params["select_prim"], **front), 0

    return rule


_SELECT_WINDOW = ("window_dimensions", "window_strides", "padding")
register_batching(
    P.select_and_gather_add_p,
    _select_window_rule(
        P.select_and_gather_add_p, *_SELECT_WINDOW, "base_dilation", "window_dilation"
    ),
)
register_batching(
    P.select_and_scatter_add_p, _select_window_rule(P.select_and_scatter_add_p, *_SELECT_WINDOW)
)
