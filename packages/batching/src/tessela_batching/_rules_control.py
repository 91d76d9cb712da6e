"""Batching rules of higher-order primitives: jit, cond, while, scan, custom_jvp/vjp.

Each batches its sub-jaxprs with :func:`batch_jaxpr`; batched values inside
carry the batch at axis 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    ClosedJaxpr,
    Jaxpr,
    NamedCallable,
    Var,
    get_aval_of,
    hoist_consts,
    trace_to_jaxpr,
)

from tessela_batching._api import vmap
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

__all__: list[str] = []


def _batched(dims: Sequence[Any]) -> list[bool]:
    return [not isinstance(d, NotMapped) for d in dims]


def _front(args: Sequence[Any], dims: Sequence[Any], force: Sequence[bool], size: int) -> list[Any]:
    """Batched (or forced) values with the batch at 0; the others as they are."""
    out = []
    for x, d, f in zip(args, dims, force, strict=True):
        out.append(bdim_at_front(x, d, size) if f or not isinstance(d, NotMapped) else x)
    return out


def _out_dims(flags: Sequence[bool], at: int = 0) -> list[Any]:
    return [at if b else not_mapped for b in flags]


# ----------------------------------------------------------------- jit


def _jit_rule(
    args: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr, **params: Any
) -> Any:
    size = batch_size(args, dims)
    in_b = _batched(dims)
    new, consts, out_b = batch_jaxpr(jaxpr, size, in_b, [False] * len(jaxpr.out_avals),
                                     rule_axis_name())  # fmt: skip
    params = dict(params)
    if "donated_invars" in params:
        params["donated_invars"] = (False,) * len(consts) + tuple(params["donated_invars"])
    outs = P.jit_p.bind(*consts, *_front(args, dims, in_b, size), jaxpr=new, **params)
    return outs, _out_dims(out_b)


register_batching(P.jit_p, _jit_rule)


def _remat_rule(args: Sequence[Any], dims: Sequence[Any], *, jaxpr: Jaxpr, **params: Any) -> Any:
    size = batch_size(args, dims)
    in_b = _batched(dims)
    new, consts, out_b = batch_jaxpr(ClosedJaxpr(jaxpr, ()), size, in_b,
                                     [False] * len(jaxpr.outvars), rule_axis_name())  # fmt: skip
    body, hoisted = hoist_consts(new)
    outs = P.remat_p.bind(*hoisted, *consts, *_front(args, dims, in_b, size),
                          jaxpr=body.jaxpr, **params)  # fmt: skip
    return outs, _out_dims(out_b)


register_batching(P.remat_p, _remat_rule)


# ----------------------------------------------------------------- cond


def _cond_rule(
    args: Sequence[Any], dims: Sequence[Any], *, branches: tuple[ClosedJaxpr, ...]
) -> Any:
    (index, *ops), (di, *dops) = args, dims
    size = batch_size(args, dims)
    in_b = _batched(dops)
    if not isinstance(di, NotMapped):
        index = moveaxis(index, di, 0)
        index = lax.clamp(np.int32(0), lax.convert_element_type(index, np.int32),
                          np.int32(len(branches) - 1))  # fmt: skip
        ops = _front(ops, dops, in_b, size)
        results = []
        for br in branches:
            outs, odims = batched_eval(br, size, rule_axis_name(), ops, _out_dims(in_b))
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
    all_consts = [c for _, cs, _ in done for c in cs]
    ops = _front(ops, dops, in_b, size)
    outs = P.cond_p.bind(index, *all_consts, *ops, branches=_merge_consts(done))
    return outs, _out_dims(force)


def _merge_consts(done: Sequence[tuple[ClosedJaxpr, list[Any], Any]]) -> tuple[ClosedJaxpr, ...]:
    """Give every branch the hoisted consts of all branches (each reads its own)."""
    if not any(cs for _, cs, _ in done):
        return tuple(j for j, _, _ in done)
    out = []
    for k, (j, cs, _) in enumerate(done):
        mine, ops = list(j.jaxpr.invars[: len(cs)]), list(j.jaxpr.invars[len(cs) :])
        pre: list[Var] = []
        for i, (ji, csi, _) in enumerate(done):
            pre += mine if i == k else [Var(v.aval) for v in ji.jaxpr.invars[: len(csi)]]
        out.append(ClosedJaxpr(j.jaxpr.replace(invars=[*pre, *ops]), j.consts))
    return tuple(out)


register_batching(P.cond_p, _cond_rule)


# ----------------------------------------------------------------- while


def _while_rule(
    args: Sequence[Any], dims: Sequence[Any], *, cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, carry = args[:nc], args[nc : nc + nb], args[nc + nb :]
    dcc, dbc, dcarry = dims[:nc], dims[nc : nc + nb], dims[nc + nb :]
    cc_b, bc_b, carry_b = _batched(dcc), _batched(dbc), _batched(dcarry)
    for _ in range(len(carry) + 1):
        _, _, out_b = batch_jaxpr(body_jaxpr, size, bc_b + carry_b, carry_b, name)
        new = [a or b for a, b in zip(carry_b, out_b, strict=True)]
        if new == carry_b:
            break
        carry_b = new
    _, _, (pred_b,) = batch_jaxpr(cond_jaxpr, size, cc_b + carry_b, [False], name)
    cc_f, bc_f = _front(cc, dcc, cc_b, size), _front(bc, dbc, bc_b, size)
    if not pred_b:
        cj, cx, _ = batch_jaxpr(cond_jaxpr, size, cc_b + carry_b, [False], name)
        bj, bx, _ = batch_jaxpr(body_jaxpr, size, bc_b + carry_b, carry_b, name)
        outs = P.while_p.bind(
            *cx, *cc_f, *bx, *bc_f, *_front(carry, dcarry, carry_b, size), cond_jaxpr=cj,
            body_jaxpr=bj, cond_nconsts=len(cx) + nc, body_nconsts=len(bx) + nb,
        )  # fmt: skip
        return outs, _out_dims(carry_b)
    carry_f = [bdim_at_front(x, d, size) for x, d in zip(carry, dcarry, strict=True)]
    c_dims, b_dims, k_dims = _out_dims(cc_b), _out_dims(bc_b), [0] * len(carry)

    def pred_of(ccs: Sequence[Any], cs: Sequence[Any]) -> Any:
        (pred,), (pd,) = batched_eval(cond_jaxpr, size, name, [*ccs, *cs], c_dims + k_dims)
        return bdim_at_front(pred, pd, size)

    def new_cond(*xs: Any) -> list[Any]:
        return [lax.reduce_or(pred_of(xs[:nc], xs[nc:]), (0,))]

    def new_body(*xs: Any) -> list[Any]:
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
    args: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr, num_consts: int,
    num_carry: int, **params: Any,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    n1, n2 = num_consts, num_consts + num_carry
    const_b, carry_b, xs_b = _batched(dims[:n1]), _batched(dims[n1:n2]), _batched(dims[n2:])
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
    consts_f = _front(args[:n1], dims[:n1], const_b, size)
    carry_f = _front(args[n1:n2], dims[n1:n2], carry_b, size)
    xs_f = [x if isinstance(d, NotMapped) else moveaxis(x, d, 1)
            for x, d in zip(args[n2:], dims[n2:], strict=True)]  # fmt: skip
    outs = P.scan_p.bind(
        *extra, *consts_f, *carry_f, *xs_f, jaxpr=j, num_consts=len(extra) + num_consts,
        num_carry=num_carry, **params,
    )  # fmt: skip
    return outs, _out_dims(carry_b) + _out_dims(out_b[num_carry:], at=1)


register_batching(P.scan_p, _scan_rule)


# ----------------------------------------------------------------- custom_jvp / custom_vjp


def _custom_rule(kind: str) -> Any:
    prim = P.custom_jvp_call_p if kind == "jvp" else P.custom_vjp_call_p

    def rule(
        args: Sequence[Any], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr, num_consts: int,
        **params: Any,
    ) -> Any:  # fmt: skip
        size, name = batch_size(args, dims), rule_axis_name()
        const_b = _batched(dims[:num_consts])
        n_args, n_out = len(args) - num_consts, len(call_jaxpr.out_avals)
        j, extra, _ = batch_jaxpr(call_jaxpr, size, const_b + [True] * n_args, [True] * n_out, name)
        ops = [*_front(args[:num_consts], dims[:num_consts], const_b, size),
               *(bdim_at_front(x, d, size) for x, d in zip(args[num_consts:], dims[num_consts:], strict=False))]  # fmt: skip
        if kind == "jvp":
            params["jvp"] = NamedCallable(
                _batched_jvp(params["jvp"], size, name), str(params["jvp"])
            )
        else:
            params["fwd"] = NamedCallable(
                _batched_fwd(params["fwd"], size, name), str(params["fwd"])
            )
            params["bwd"] = NamedCallable(
                _batched_bwd(params["bwd"], size, name), str(params["bwd"])
            )
        outs = prim.bind(*extra, *ops, call_jaxpr=j, num_consts=len(extra) + num_consts, **params)
        return outs, [0] * n_out

    return rule


def _batched_jvp(jvp: Any, size: int, name: Any) -> Any:
    """The flat JVP rule mapped over axis 0 of primals and (non-None) tangents."""

    def batched_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
        f = vmap(lambda p, t: jvp(p, t), axis_name=name, axis_size=size)
        outs, touts = f(list(primals), list(tangents))
        return list(outs), list(touts)

    return batched_jvp


def _batched_fwd(fwd: Any, size: int, name: Any) -> Any:
    """The flat fwd rule mapped over axis 0 of the primals (residuals batched at 0)."""

    def batched_fwd(primals: Sequence[Any], perturbed: Sequence[bool]) -> list[Any]:
        f = vmap(lambda *xs: fwd(list(xs), perturbed), axis_name=name, axis_size=size)
        return list(f(*primals))

    return batched_fwd


def _batched_bwd(bwd: Any, size: int, name: Any) -> Any:
    """The flat bwd rule mapped over axis 0 of residuals and (non-None) cotangents."""

    def batched_bwd(res: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
        f = vmap(lambda r, c: bwd(r, c), axis_name=name, axis_size=size)
        return list(f(list(res), list(cts)))

    return batched_bwd


register_batching(P.custom_jvp_call_p, _custom_rule("jvp"))
register_batching(P.custom_vjp_call_p, _custom_rule("vjp"))
