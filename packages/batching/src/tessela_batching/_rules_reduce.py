"""Batching rules of the reduce family: reductions, cumulative ops, sorting, ``dot_general``.

- Reductions over ``axes`` (``reduce_*``, ``argmax``, ``argmin``) renumber
  their axes past the batch dimension (:func:`defreducer`); the result's batch
  dimension drops by the number of reduced axes before it.
- Cumulative ops, ``top_k`` and ``sort`` act along one axis, so the batch
  stays where it is (``sort`` moves it to the front, with every operand, since
  it sorts several operands together).
- ``dot_general`` with both operands batched adds the batch to the batch
  dimensions of the contraction (the result's leading axis); with one batched
  operand, the batch becomes a free dimension of that operand and the result
  keeps it at the position of that operand's free axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import NotMapped, register_batching
from tessela_batching._rule_helpers import all_at_front, bump, defreducer

__all__: list[str] = []


# ----------------------------------------------------------------- reductions

for _p in (
    P.reduce_sum_p, P.reduce_prod_p, P.reduce_max_p, P.reduce_min_p, P.reduce_and_p,
    P.reduce_or_p, P.reduce_xor_p, P.argmax_p, P.argmin_p,
):  # fmt: skip
    defreducer(_p)


def _cumulative_rule(prim: Primitive) -> Any:
    def rule(
        args: Sequence[ArrayLike], dims: Sequence[int], *, axis: int, reverse: bool
    ) -> tuple[Array, int]:
        (x,), (d,) = args, dims
        return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d

    return rule


for _p in (P.cumsum_p, P.cumprod_p, P.cummax_p, P.cummin_p, P.cumlogsumexp_p):
    register_batching(_p, _cumulative_rule(_p))


def _sort_rule(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    xs = all_at_front(args, dims)
    params = {**params, "dimension": params["dimension"] + 1}
    return P.sort_p.bind(*xs, **params), [0] * len(xs)


register_batching(P.sort_p, _sort_rule)


def _top_k_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, k: int, axis: int) -> Any:
    (x,), (d,) = args, dims
    axis %= get_aval_of(x).ndim - 1
    return P.top_k_p.bind(x, k=k, axis=axis + (axis >= d)), [d, d]


register_batching(P.top_k_p, _top_k_rule)


def _dot_general_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, dimension_numbers: Any, **params: Any
) -> Any:
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if not isinstance(ld, NotMapped) and not isinstance(rd, NotMapped):
        dn = ((bump(lc, ld), bump(rc, rd)), ((ld, *bump(lb, ld)), (rd, *bump(rb, rd))))
        return P.dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), 0
    if not isinstance(ld, NotMapped):
        lc2, lb2 = bump(lc, ld), bump(lb, ld)
        dn = ((lc2, tuple(rc)), (lb2, tuple(rb)))
        free_before = sum(1 for i in range(ld) if i not in lc2 and i not in lb2)
        return P.dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), (
            len(lb) + free_before
        )
    assert not isinstance(rd, NotMapped)
    rc2, rb2 = bump(rc, rd), bump(rb, rd)
    dn = ((tuple(lc), rc2), (tuple(lb), rb2))
    lhs_free = get_aval_of(lhs).ndim - len(lc) - len(lb)
    free_before = sum(1 for i in range(rd) if i not in rc2 and i not in rb2)
    out = P.dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params)
    return out, len(lb) + lhs_free + free_before


register_batching(P.dot_general_p, _dot_general_rule)
