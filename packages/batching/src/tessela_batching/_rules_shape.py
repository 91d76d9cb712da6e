"""Batching rules of shape primitives, reductions, sorting and ``dot_general``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of

from tessela_batching._core import (
    NotMapped,
    batch_size,
    bdim_at_front,
    broadcast,
    moveaxis,
    register_batching,
)

__all__ = ["defreducer"]


def _bump(axes: Sequence[int], d: int) -> tuple[int, ...]:
    """Renumber per-example axes as axes of the batched value (batch at ``d``)."""
    return tuple(a + (a >= d) for a in axes)


def _front_rule(prim: Primitive, update: Any) -> Any:
    """A rule that moves the batch to axis 0 and rewrites params with ``update``."""

    def rule(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
        size = batch_size(args, dims)
        xs = [bdim_at_front(x, d, size) for x, d in zip(args, dims, strict=True)]
        return prim.bind(*xs, **update(size, **params)), 0

    return rule


register_batching(P.broadcast_in_dim_p, _front_rule(
    P.broadcast_in_dim_p,
    lambda n, *, shape, broadcast_dimensions, sharding: {
        "shape": (n, *shape), "broadcast_dimensions": (0, *(d + 1 for d in broadcast_dimensions)),
        "sharding": sharding},
))  # fmt: skip
register_batching(P.reshape_p, _front_rule(
    P.reshape_p,
    lambda n, *, new_sizes, dimensions, sharding: {
        "new_sizes": (n, *new_sizes), "sharding": sharding,
        "dimensions": None if dimensions is None else (0, *(d + 1 for d in dimensions))},
))  # fmt: skip
register_batching(P.squeeze_p, _front_rule(
    P.squeeze_p, lambda n, *, dimensions: {"dimensions": tuple(d + 1 for d in dimensions)},
))  # fmt: skip
register_batching(P.concatenate_p, _front_rule(
    P.concatenate_p, lambda n, *, dimension: {"dimension": dimension + 1},
))  # fmt: skip


def _sort_rule(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
    size = batch_size(args, dims)
    xs = [bdim_at_front(x, d, size) for x, d in zip(args, dims, strict=True)]
    params = {**params, "dimension": params["dimension"] + 1}
    return P.sort_p.bind(*xs, **params), [0] * len(xs)


register_batching(P.sort_p, _sort_rule)


def _transpose_rule(args: Sequence[Any], dims: Sequence[Any], *, permutation: Any) -> Any:
    (x,), (d,) = args, dims
    perm = (d, *(p + (p >= d) for p in permutation))
    return P.transpose_p.bind(x, permutation=perm), 0


register_batching(P.transpose_p, _transpose_rule)


def _rev_rule(args: Sequence[Any], dims: Sequence[Any], *, dimensions: Any) -> Any:
    (x,), (d,) = args, dims
    return P.rev_p.bind(x, dimensions=_bump(dimensions, d)), d


register_batching(P.rev_p, _rev_rule)


def _slice_rule(
    args: Sequence[Any], dims: Sequence[Any], *, start_indices: Any, limit_indices: Any,
    strides: Any,
) -> Any:  # fmt: skip
    (x,), (d,) = args, dims
    n = get_aval_of(x).shape[d]
    start = (*start_indices[:d], 0, *start_indices[d:])
    limit = (*limit_indices[:d], n, *limit_indices[d:])
    st = None if strides is None else (*strides[:d], 1, *strides[d:])
    return P.slice_p.bind(x, start_indices=start, limit_indices=limit, strides=st), d


register_batching(P.slice_p, _slice_rule)


def _pad_rule(args: Sequence[Any], dims: Sequence[Any], *, padding_config: Any) -> Any:
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


# ----------------------------------------------------------------- reductions


def defreducer(prim: Primitive, /) -> None:
    """Batch a primitive reducing over its ``axes`` parameter.

    Args:
      prim: the primitive (``reduce_sum``, ``argmax``, ...).

    Returns:
      None.

    Example:
        >>> from tessela_tracer.primitives import reduce_sum_p
        >>> defreducer(reduce_sum_p)
    """

    def reducer_rule(args: Sequence[Any], dims: Sequence[Any], *, axes: Any, **params: Any) -> Any:
        (x,), (d,) = args, dims
        new_axes = _bump(axes, d)
        out_d = d - sum(a < d for a in new_axes)
        return prim.bind(x, axes=new_axes, **params), out_d

    register_batching(prim, reducer_rule)


for _p in (
    P.reduce_sum_p, P.reduce_prod_p, P.reduce_max_p, P.reduce_min_p, P.reduce_and_p,
    P.reduce_or_p, P.reduce_xor_p, P.argmax_p, P.argmin_p,
):  # fmt: skip
    defreducer(_p)


def _cumulative_rule(prim: Primitive) -> Any:
    def rule(args: Sequence[Any], dims: Sequence[Any], *, axis: int, reverse: bool) -> Any:
        (x,), (d,) = args, dims
        return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d

    return rule


for _p in (P.cumsum_p, P.cumprod_p, P.cummax_p, P.cummin_p, P.cumlogsumexp_p):
    register_batching(_p, _cumulative_rule(_p))


def _top_k_rule(args: Sequence[Any], dims: Sequence[Any], *, k: int, axis: int) -> Any:
    (x,), (d,) = args, dims
    axis %= get_aval_of(x).ndim - 1
    return P.top_k_p.bind(x, k=k, axis=axis + (axis >= d)), [d, d]


register_batching(P.top_k_p, _top_k_rule)


def _dot_general_rule(
    args: Sequence[Any], dims: Sequence[Any], *, dimension_numbers: Any, **params: Any
) -> Any:
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if not isinstance(ld, NotMapped) and not isinstance(rd, NotMapped):
        dn = ((_bump(lc, ld), _bump(rc, rd)), ((ld, *_bump(lb, ld)), (rd, *_bump(rb, rd))))
        return P.dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), 0
    if not isinstance(ld, NotMapped):
        lc2, lb2 = _bump(lc, ld), _bump(lb, ld)
        dn = ((lc2, tuple(rc)), (lb2, tuple(rb)))
        free_before = sum(1 for i in range(ld) if i not in lc2 and i not in lb2)
        return P.dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), (
            len(lb) + free_before
        )
    assert not isinstance(rd, NotMapped)
    rc2, rb2 = _bump(rc, rd), _bump(rb, rd)
    dn = ((tuple(lc), rc2), (tuple(lb), rb2))
    lhs_free = get_aval_of(lhs).ndim - len(lc) - len(lb)
    free_before = sum(1 for i in range(rd) if i not in rc2 and i not in rb2)
    out = P.dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params)
    return out, len(lb) + lhs_free + free_before


register_batching(P.dot_general_p, _dot_general_rule)
