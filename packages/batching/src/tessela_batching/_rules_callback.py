"""Batching rules of the host-callback primitives.

- ``debug_callback`` / ``debug_print``: unrolled, one call per batch element
  (each sees the element's slice of the batched operands), as JAX does.
- ``pure_callback``: per its ``vmap_method``: "sequential" and
  "sequential_unrolled" loop over the elements with ``scan``; "expand_dims"
  calls once on the whole batch, unbatched operands getting a leading axis of
  size 1; "broadcast_all" tiles them to the batch size instead;
  "legacy_vectorized" passes unbatched operands unchanged. ``None`` raises.
- ``io_callback``: sequential, one call per element, in order; ordered IO
  callbacks cannot be batched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import Primitive, ShapedArray, lax
from tessela_tracer import primitives as P
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import BDim, NotMapped, batch_size, moveaxis, register_batching

__all__: list[str] = []


def _debug_rule(prim: Primitive) -> Any:
    def rule(
        args: Sequence[ArrayLike], dims: Sequence[BDim], **params: Any
    ) -> tuple[list[Array], list[BDim]]:
        size = batch_size(args, dims)
        per_arg = [
            [x] * size if isinstance(d, NotMapped) else list(lax.unstack(x, d))
            for x, d in zip(args, dims, strict=True)
        ]
        for i in range(size):
            prim.bind(*[slices[i] for slices in per_arg], **params)
        return [], []

    return rule


for _prim in (P.debug_callback_p, P.debug_print_p):
    register_batching(_prim, _debug_rule(_prim))


def _batched_avals(avals: Sequence[ShapedArray], size: int) -> tuple[ShapedArray, ...]:
    return tuple(ShapedArray((size, *a.shape), a.dtype, a.weak_type) for a in avals)


def _sequential(
    prim: Primitive,
    args: Sequence[ArrayLike],
    dims: Sequence[Any],
    *,
    unroll: bool,
    **params: Any,
) -> list[Any]:
    batched = [not isinstance(d, NotMapped) for d in dims]
    fixed = [x for x, b in zip(args, batched, strict=True) if not b]
    xs = [
        moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True) if not isinstance(d, NotMapped)
    ]

    def body(carry: tuple[()], slices: list[Array]) -> tuple[tuple[()], list[Array]]:
        it_fixed, it_slice = iter(fixed), iter(slices)
        merged = [next(it_slice) if b else next(it_fixed) for b in batched]
        return carry, list(prim.bind(*merged, **params))

    _, ys = lax.scan(body, (), xs, unroll=unroll)
    return list(ys)


def _pure_callback_rule(
    args: Sequence[ArrayLike],
    dims: Sequence[Any],
    *,
    vmap_method: str | None,
    result_avals: tuple[ShapedArray, ...],
    **params: Any,
) -> tuple[Any, Any]:
    size = batch_size(args, dims)
    moved = [
        x if isinstance(d, NotMapped) else moveaxis(x, d, 0)
        for x, d in zip(args, dims, strict=True)
    ]
    if vmap_method in ("sequential", "sequential_unrolled"):
        outs = _sequential(
            P.pure_callback_p, args, dims, unroll=vmap_method == "sequential_unrolled",
            vmap_method=vmap_method, result_avals=result_avals, **params,
        )  # fmt: skip
    elif vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        if vmap_method != "legacy_vectorized":
            lead = size if vmap_method == "broadcast_all" else 1
            moved = [
                lax.broadcast(x, (lead,)) if isinstance(d, NotMapped) else x
                for x, d in zip(moved, dims, strict=True)
            ]
        outs = P.pure_callback_p.bind(
            *moved, vmap_method=vmap_method, result_avals=_batched_avals(result_avals, size),
            **params,
        )  # fmt: skip
    else:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one "
            "of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got {vmap_method=}."
        )
    return list(outs), [0] * len(outs)


register_batching(P.pure_callback_p, _pure_callback_rule)


def _io_callback_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, ordered: bool, **params: Any
) -> tuple[Any, Any]:
    if ordered:
        raise ValueError(
            "Cannot `vmap` ordered IO callback. Pass ordered=False, or call the callback "
            "outside vmap."
        )
    outs = _sequential(P.io_callback_p, args, dims, unroll=False, ordered=False, **params)
    return outs, [0] * len(outs)


register_batching(P.io_callback_p, _io_callback_rule)
