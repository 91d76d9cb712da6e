"""Batching rules of the control family: ``jit``, ``cond``, ``while``, ``scan``.

Each batches its sub-jaxprs with :func:`batch_jaxpr` (batched values inside
carry the batch at axis 0; the constants it hoists become leading operands):

- ``jit`` batches its jaxpr once; the results are batched where it says.
- ``cond`` with an unbatched index batches every branch, forcing an output
  batched when any branch batches it, and shares the branches' constants
  (``join_consts``). A batched index runs every branch on the whole batch and
  picks each member's result with ``select_n``.
- ``while`` finds which carries are batched by a fixed point over the body.
  With an unbatched predicate the loop stays as it is; with a batched one it
  runs until every member is done, and members that are done keep their
  carry (``select_n`` on each member's predicate).
- ``scan`` finds its batched carries by a fixed point too; scanned-over
  inputs and stacked outputs carry the batch at axis 1 (axis 0 is the scan).
- ``composite`` is not batched (as in JAX: ``NotImplementedError``);
  ``platform_index`` has no operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    ClosedJaxpr,
    get_aval_of,
    hoist_consts,
    join_consts,
    trace_to_jaxpr,
)
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import (
    NotMapped,
    batch_jaxpr,
    batch_size,
    batched_eval,
    bdim_at_front,
    moveaxis,
    not_mapped,
    register_batching,
    rule_axis_name,
)
from tessela_batching._rule_helpers import batched_flags, front, out_dims

__all__: list[str] = []


# ----------------------------------------------------------------- jit


def _jit_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, jaxpr: ClosedJaxpr, **params: Any
) -> Any:
    size = batch_size(args, dims)
    in_b = batched_flags(dims)
    new, consts, out_b = batch_jaxpr(jaxpr, size, in_b, [False] * len(jaxpr.out_avals),
                                     rule_axis_name())  # fmt: skip
    params = dict(params)
    if "donated_invars" in params:
        params["donated_invars"] = (False,) * len(consts) + tuple(params["donated_invars"])
    outs = P.jit_p.bind(*consts, *front(args, dims, in_b, size), jaxpr=new, **params)
    return outs, out_dims(out_b)


register_batching(P.jit_p, _jit_rule)


# ----------------------------------------------------------------- cond


def _cond_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, branches: tuple[ClosedJaxpr, ...]
) -> Any:
    (index, *ops), (di, *dops) = args, dims
    size = batch_size(args, dims)
    in_b = batched_flags(dops)
    if not isinstance(di, NotMapped):
        index = moveaxis(index, di, 0)
        index = lax.clamp(np.int32(0), lax.convert_element_type(index, np.int32),
                          np.int32(len(branches) - 1))  # fmt: skip
        ops = front(ops, dops, in_b, size)
        results = []
        for br in branches:
            outs, odims = batched_eval(br, size, rule_axis_name(), ops, out_dims(in_b))
            results.append([bdim_at_front(o, d, size) for o, d in zip(outs, odims, strict=True)])
        outs = []
        for cases in zip(*results, strict=True):
            shape = get_aval_of(cases[0]).shape
            which = lax.broadcast_in_dim(index, shape, (0,)) if len(shape) > 1 else index
            outs.append(P.select_n_p.bind(which, *cases))
        return outs, [0] * len(outs)
    n_out = len(branches[0].out_avals)
    force = [False] * n_out
    for _ in range(2):
        done = [batch_jaxpr(br, size, in_b, force, rule_axis_name()) for br in branches]
        union = [any(d[2][i] for d in done) for i in range(n_out)]
        if union == force:
            break
        force = union
    new_branches, consts = join_consts([j for j, _, _ in done], [cs for _, cs, _ in done])
    ops = front(ops, dops, in_b, size)
    outs = P.cond_p.bind(index, *consts, *ops, branches=tuple(new_branches))
    return outs, out_dims(force)


register_batching(P.cond_p, _cond_rule)


# ----------------------------------------------------------------- while


def _while_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, carry = args[:nc], args[nc : nc + nb], args[nc + nb :]
    dcc, dbc, dcarry = dims[:nc], dims[nc : nc + nb], dims[nc + nb :]
    cc_b, bc_b, carry_b = batched_flags(dcc), batched_flags(dbc), batched_flags(dcarry)
    for _ in range(len(carry) + 1):
        _, _, out_b = batch_jaxpr(body_jaxpr, size, bc_b + carry_b, carry_b, name)
        new = [a or b for a, b in zip(carry_b, out_b, strict=True)]
        if new == carry_b:
            break
        carry_b = new
    _, _, (pred_b,) = batch_jaxpr(cond_jaxpr, size, cc_b + carry_b, [False], name)
    cc_f, bc_f = front(cc, dcc, cc_b, size), front(bc, dbc, bc_b, size)
    if not pred_b:
        cj, cx, _ = batch_jaxpr(cond_jaxpr, size, cc_b + carry_b, [False], name)
        bj, bx, _ = batch_jaxpr(body_jaxpr, size, bc_b + carry_b, carry_b, name)
        outs = P.while_p.bind(
            *cx, *cc_f, *bx, *bc_f, *front(carry, dcarry, carry_b, size), cond_jaxpr=cj,
            body_jaxpr=bj, cond_nconsts=len(cx) + nc, body_nconsts=len(bx) + nb,
        )  # fmt: skip
        return outs, out_dims(carry_b)
    carry_f = [bdim_at_front(x, d, size) for x, d in zip(carry, dcarry, strict=True)]
    c_dims, b_dims, k_dims = out_dims(cc_b), out_dims(bc_b), out_dims([True] * len(carry))

    def pred_of(ccs: Sequence[ArrayLike], cs: Sequence[ArrayLike]) -> Array:
        (pred,), (pd,) = batched_eval(cond_jaxpr, size, name, [*ccs, *cs], c_dims + k_dims)
        return bdim_at_front(pred, pd, size)

    def new_cond(*xs: ArrayLike) -> list[Array]:
        return [lax.reduce_or(pred_of(xs[:nc], xs[nc:]), (0,))]

    def new_body(*xs: ArrayLike) -> list[Array]:
        ccs, bcs, cs = xs[:nc], xs[nc : nc + nb], xs[nc + nb :]
        pred = pred_of(ccs, cs)
        outs, odims = batched_eval(body_jaxpr, size, name, [*bcs, *cs], b_dims + k_dims)
        res = []
        for new_val, d, old in zip(outs, odims, cs, strict=True):
            new_val = bdim_at_front(new_val, d, size)
            shape = get_aval_of(old).shape
            which = lax.broadcast_in_dim(pred, shape, (0,)) if len(shape) > 1 else pred
            res.append(P.select_n_p.bind(which, old, new_val))
        return res

    avals = [get_aval_of(x) for x in (*cc_f, *bc_f, *carry_f)]
    cj, cx = hoist_consts(trace_to_jaxpr(new_cond, avals[:nc] + avals[nc + nb :]))
    bj, bx = hoist_consts(trace_to_jaxpr(new_body, avals))
    outs = P.while_p.bind(
        *cx, *cc_f, *bx, *cc_f, *bc_f, *carry_f, cond_jaxpr=cj, body_jaxpr=bj,
        cond_nconsts=len(cx) + nc, body_nconsts=len(bx) + nc + nb,
    )  # fmt: skip
    return outs, [0] * len(carry)


register_batching(P.while_p, _while_rule)


# ----------------------------------------------------------------- scan


def _scan_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, jaxpr: ClosedJaxpr, num_consts: int,
    num_carry: int, **params: Any,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    n1, n2 = num_consts, num_consts + num_carry
    const_b, carry_b = batched_flags(dims[:n1]), batched_flags(dims[n1:n2])
    xs_b = batched_flags(dims[n2:])
    n_ys = len(jaxpr.out_avals) - num_carry
    for _ in range(num_carry + 1):
        _, _, out_b = batch_jaxpr(
            jaxpr, size, const_b + carry_b + xs_b, carry_b + [False] * n_ys, name
        )
        new = [a or b for a, b in zip(carry_b, out_b[:num_carry], strict=True)]
        if new == carry_b:
            break
        carry_b = new
    j, extra, out_b = batch_jaxpr(
        jaxpr, size, const_b + carry_b + xs_b, carry_b + [False] * n_ys, name
    )
    consts_f = front(args[:n1], dims[:n1], const_b, size)
    carry_f = front(args[n1:n2], dims[n1:n2], carry_b, size)
    xs_f = [x if isinstance(d, NotMapped) else moveaxis(x, d, 1)
            for x, d in zip(args[n2:], dims[n2:], strict=True)]  # fmt: skip
    outs = P.scan_p.bind(
        *extra, *consts_f, *carry_f, *xs_f, jaxpr=j, num_consts=len(extra) + num_consts,
        num_carry=num_carry, **params,
    )  # fmt: skip
    return outs, out_dims(carry_b) + out_dims(out_b[num_carry:], at=1)


register_batching(P.scan_p, _scan_rule)


def _composite_rule(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    raise NotImplementedError("Batching rule for 'composite' not implemented")


register_batching(P.composite_p, _composite_rule)


def _platform_index_rule(args: Sequence[ArrayLike], dims: Sequence[Any], **params: Any) -> Any:
    return P.platform_index_p.bind(**params), not_mapped


register_batching(P.platform_index_p, _platform_index_rule)
