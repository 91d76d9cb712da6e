"""JVP, partial-evaluation and transpose rules of jit calls, cond, while and scan.

``composite`` has no derivative rules (JAX raises the same ``ValueError``:
wrap it in ``custom_jvp``); ``platform_index`` is constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tessela_tracer import ClosedJaxpr, ShapedArray, Var
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    eval_jaxpr,
    get_aval_of,
    has_effects,
    hoist_consts,
    join_consts,
    set_current_trace,
    tangent_aval,
    trace_to_jaxpr,
)
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import (
    Tangent,
    UndefinedPrimal,
    Zero,
    add_tangents,
    instantiate,
    is_differentiable,
    is_undefined,
    zeros_like_aval,
)
from tessela_autodiff._jvp import jvp_jaxpr, register_jvp
from tessela_autodiff._partial_eval import (
    PartialEvalTrace,
    add_unused_inputs,
    drop_outputs,
    merge_by,
    partial_eval_jaxpr,
    permute_inputs,
    permute_outputs,
    register_partial_eval,
    split_by,
)
from tessela_autodiff._rule_helpers import defjvp_zero
from tessela_autodiff._transpose import backward_pass, register_transpose, transpose_jaxpr

__all__: list[str] = []


# ------------------------------------------------------------------ jit


def _jit_params(
    params: dict[str, Any],
    jaxpr: ClosedJaxpr,
    nargs: int,
    name: str,
    donated: Sequence[bool] = (),
) -> dict[str, Any]:
    # ``donated``: the flags of the leading arguments (the rest are not donated).
    flags = (*donated, *(False,) * (nargs - len(donated)))
    return {**params, "jaxpr": jaxpr, "name": name, "donated_invars": flags}


def _jit_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    jaxpr = params["jaxpr"]
    nz = [type(t) is not Zero for t in tangents]
    nout = len(jaxpr.out_avals)
    jj, consts, out_nz = jvp_jaxpr(jaxpr, nz, [False] * nout)
    args = [*consts, *primals, *[t for t in tangents if type(t) is not Zero]]
    # The primals stay donated as the caller asked (JAX does too); tangents are not.
    donated = (*(False,) * len(consts), *params["donated_invars"])
    name = f"jvp({params['name']})"
    outs = P.jit_p.bind(*args, **_jit_params(params, jj, len(args), name, donated))
    it = iter(outs[nout:])
    touts = [
        next(it) if m else Zero(tangent_aval(a))
        for m, a in zip(out_nz, jaxpr.out_avals, strict=True)
    ]
    return outs[:nout], touts


def _jit_partial_eval(trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]) -> Any:
    jaxpr = params["jaxpr"]
    uk = [trace.is_unknown(a) for a in args]
    known, kconsts, staged, out_uk, nres = partial_eval_jaxpr(jaxpr, uk, False)
    k_in, u_in = split_by(args, uk)
    k_args = [*kconsts, *k_in]
    k_donated = [*(False,) * len(kconsts), *split_by(params["donated_invars"], uk)[0]]
    k_params = _jit_params(params, known, len(k_args), params["name"], k_donated)
    k_outs = trace.known(P.jit_p, k_args, k_params)
    nk = len(k_outs) - nres
    res = k_outs[nk:]
    u_args = [*res, *u_in]
    u_outs = trace.stage(P.jit_p, u_args, _jit_params(params, staged, len(u_args), params["name"]))
    return merge_by(out_uk, k_outs[:nk], u_outs)


def _jit_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    jaxpr = params["jaxpr"]
    linear = [is_undefined(a) for a in args]
    tj, consts = transpose_jaxpr(jaxpr, linear)
    res = [a for a in args if not is_undefined(a)]
    cts_i = [instantiate(c) for c in cts]
    t_args = [*consts, *res, *cts_i]
    outs = P.jit_p.bind(
        *t_args, **_jit_params(params, tj, len(t_args), f"transpose({params['name']})")
    )
    return merge_by(linear, [None] * len(res), outs)


register_jvp(P.jit_p, _jit_jvp)
register_partial_eval(P.jit_p, _jit_partial_eval)
register_transpose(P.jit_p, _jit_transpose)


# ------------------------------------------------------------------ cond


def _cond_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, branches: tuple[ClosedJaxpr, ...]
) -> tuple[Any, Any]:
    index, *ops = primals
    nz = [type(t) is not Zero for t in tangents[1:]]
    nout = len(branches[0].out_avals)
    out_nz = [False] * nout
    for b in branches:
        out_nz = [a or c for a, c in zip(out_nz, jvp_jaxpr(b, nz, [False] * nout)[2], strict=True)]
    jvps = [jvp_jaxpr(b, nz, out_nz) for b in branches]
    new, consts = join_consts([j for j, _, _ in jvps], [c for _, c, _ in jvps])
    nz_t = [t for t in tangents[1:] if type(t) is not Zero]
    outs = P.cond_p.bind(index, *consts, *ops, *nz_t, branches=tuple(new))
    it = iter(outs[nout:])
    avals = branches[0].out_avals
    touts = [next(it) if m else Zero(tangent_aval(a)) for m, a in zip(out_nz, avals, strict=True)]
    return outs[:nout], touts


def _pad_residuals(
    known: list[tuple[ClosedJaxpr, list[Any]]], nouts: int, res_avals: list[list[ShapedArray]]
) -> list[tuple[ClosedJaxpr, list[Any]]]:
    """Make each known branch output every branch's residuals (zeros for the others')."""
    out = []
    for k, (j, consts) in enumerate(known):

        def fun(*xs: ArrayLike, j: ClosedJaxpr = j, k: int = k) -> list[ArrayLike]:
            vals = eval_jaxpr(j.jaxpr, j.consts, *xs)
            res = []
            for m, avals in enumerate(res_avals):
                if m == k:
                    res.extend(vals[nouts:])
                else:
                    res.extend(zeros_like_aval(a) for a in avals)
            return [*vals[:nouts], *res]

        padded, extra = hoist_consts(trace_to_jaxpr(fun, j.in_avals))
        out.append((padded, [*extra, *consts]))
    return out


def _cond_partial_eval(trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]) -> Any:
    branches = params["branches"]
    index, *ops = args
    if trace.is_unknown(index):
        return trace.stage(P.cond_p, args, params)
    uk = [trace.is_unknown(a) for a in ops]
    nout = len(branches[0].out_avals)
    out_uk = [False] * nout
    for b in branches:
        out_uk = [a or c for a, c in zip(out_uk, partial_eval_jaxpr(b, uk, False)[3], strict=True)]
    splits = [partial_eval_jaxpr(b, uk, out_uk) for b in branches]
    nk = out_uk.count(False)
    res_avals = [list(k.out_avals[nk:]) for k, _, _, _, _ in splits]
    known = _pad_residuals([(k, kc) for k, kc, _, _, _ in splits], nk, res_avals)
    known_j, kconsts = join_consts([j for j, _ in known], [c for _, c in known])
    k_in, u_in = split_by(ops, uk)
    k_outs = trace.known(P.cond_p, [index, *kconsts, *k_in], {"branches": tuple(known_j)})
    all_res = k_outs[nk:]
    staged = []
    offset = 0
    total = [a for avals in res_avals for a in avals]
    for (_, _, s, _, nres), _avals in zip(splits, res_avals, strict=True):
        before, after = total[:offset], total[offset + nres :]
        sj = s.jaxpr
        invars = [
            *[Var(a) for a in before], *sj.invars[:nres], *[Var(a) for a in after],
            *sj.invars[nres:],
        ]  # fmt: skip
        staged.append(ClosedJaxpr(sj.replace(invars=invars), s.consts))
        offset += nres
    u_outs = trace.stage(P.cond_p, [index, *all_res, *u_in], {"branches": tuple(staged)})
    return merge_by(out_uk, k_outs[:nk], u_outs)


def _cond_transpose(cts: Sequence[Any], index: Any, *ops: Any, branches: Any) -> list[Any]:
    if is_undefined(index):
        raise ValueError("cond is not linear in its index")
    linear = [is_undefined(a) for a in ops]
    transposed = [transpose_jaxpr(b, linear) for b in branches]
    tjs, consts = join_consts([j for j, _ in transposed], [c for _, c in transposed])
    res = [a for a in ops if not is_undefined(a)]
    outs = P.cond_p.bind(index, *consts, *res, *[instantiate(c) for c in cts], branches=tuple(tjs))
    return [None, *merge_by(linear, [None] * len(res), outs)]


register_jvp(P.cond_p, _cond_jvp)
register_partial_eval(P.cond_p, _cond_partial_eval)
register_transpose(P.cond_p, _cond_transpose)


# ------------------------------------------------------------------ scan


def _carry_fixpoint(
    body: ClosedJaxpr, flags: list[bool], nc: int, ncarry: int, via_pe: bool
) -> list[bool]:
    carry = flags[nc : nc + ncarry]
    nys = len(body.out_avals) - ncarry
    while True:
        mask = [*flags[:nc], *carry, *flags[nc + ncarry :]]
        inst = [*carry, *[False] * nys]
        out = partial_eval_jaxpr(body, mask, inst)[3] if via_pe else jvp_jaxpr(body, mask, inst)[2]
        new = [a or b for a, b in zip(carry, out[:ncarry], strict=True)]
        if new == carry:
            return carry
        carry = new


def _scan_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    body = params["jaxpr"]
    nc, ncarry = params["num_consts"], params["num_carry"]
    nz = [
        type(t) is not Zero and is_differentiable(get_aval_of(p))
        for p, t in zip(primals, tangents, strict=True)
    ]
    nz_carry = _carry_fixpoint(body, nz, nc, ncarry, False)
    nz = [*nz[:nc], *nz_carry, *nz[nc + ncarry :]]
    nys = len(body.out_avals) - ncarry
    jj, consts, out_nz = jvp_jaxpr(body, nz, [*nz_carry, *[False] * nys])
    n = len(primals)
    groups = [(0, nc), (nc, nc + ncarry), (nc + ncarry, n)]
    tpos = {}
    k = n
    for i in range(n):
        if nz[i]:
            tpos[i] = k
            k += 1
    order: list[int] = list(range(len(consts)))
    c0 = len(consts)
    for lo, hi in groups:
        order += [c0 + i for i in range(lo, hi)]
        order += [c0 + tpos[i] for i in range(lo, hi) if nz[i]]
    jj = permute_inputs(jj, order)
    nt_carry = sum(nz_carry)
    nout_t = sum(out_nz)
    nt_ys = nout_t - nt_carry
    out_order = [
        *range(ncarry), *range(ncarry + nys, ncarry + nys + nt_carry),
        *range(ncarry, ncarry + nys), *range(ncarry + nys + nt_carry, ncarry + nys + nout_t),
    ]  # fmt: skip
    jj = permute_outputs(jj, out_order)
    ts = [instantiate(t) if m else None for t, m in zip(tangents, nz, strict=True)]
    args: list[Any] = list(consts)
    for lo, hi in groups:
        args += list(primals[lo:hi]) + [ts[i] for i in range(lo, hi) if nz[i]]
    nt_consts = sum(nz[:nc])
    outs = P.scan_p.bind(
        *args, **{**params, "jaxpr": jj, "num_consts": c0 + nc + nt_consts,
                  "num_carry": ncarry + nt_carry},
    )  # fmt: skip
    carry, tcarry = outs[:ncarry], outs[ncarry : ncarry + nt_carry]
    ys, tys = outs[ncarry + nt_carry : ncarry + nt_carry + nys], outs[ncarry + nt_carry + nys :]
    out_avals = P.scan_p.abstract_eval(*[get_aval_of(p) for p in primals], **params)
    it_c, it_y = iter(tcarry), iter(tys)
    touts = [
        next(it_c) if m else Zero(tangent_aval(a))
        for m, a in zip(nz_carry, out_avals[:ncarry], strict=True)
    ]
    touts += [
        next(it_y) if m else Zero(tangent_aval(a))
        for m, a in zip(out_nz[ncarry:], out_avals[ncarry:], strict=True)
    ]
    del nt_ys
    return [*carry, *ys], touts


def _hoist_invariant_residuals(
    trace: PartialEvalTrace,
    known: ClosedJaxpr,
    k_args: list[Any],
    n_kc: int,
    nk: int,
    stacked: list[int],
    res_c: dict[int, Any],
) -> tuple[ClosedJaxpr, list[Any], int, list[int]]:
    # Residuals of the known scan computed from its consts alone are the same
    # at every iteration: compute them once before the loop (into ``res_c``)
    # and keep only the others stacked. Returns the known body, its operands,
    # its number of consts and the residuals it still stacks. A body with
    # effects keeps every equation in the loop.
    if not stacked or any(has_effects(e) for e in known.jaxpr.eqns):
        return known, k_args, n_kc, stacked
    loop_uk = [False] * n_kc + [True] * (len(k_args) - n_kc)
    inst = [True] * nk + [False] * len(stacked)
    hoist, hconsts, loop, h_uk, _ = partial_eval_jaxpr(known, loop_uk, inst)
    invariant = [k for k, u in zip(stacked, h_uk[nk:], strict=True) if not u]
    if not invariant:
        return known, k_args, n_kc, stacked
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        vals = eval_jaxpr(hoist.jaxpr, (), *hconsts, *k_args[:n_kc])
    res_c.update(zip(invariant, vals[: len(invariant)], strict=True))
    inner = vals[len(invariant) :]  # loop-invariant values the loop body reads
    variant = [k for k, u in zip(stacked, h_uk[nk:], strict=True) if u]
    return loop, [*inner, *k_args[n_kc:]], len(inner), variant


def _scan_partial_eval(trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]) -> Any:
    body = params["jaxpr"]
    nc, ncarry = params["num_consts"], params["num_carry"]
    uk = [trace.is_unknown(a) for a in args]
    carry_uk = _carry_fixpoint(body, uk, nc, ncarry, True)
    uk = [*uk[:nc], *carry_uk, *uk[nc + ncarry :]]
    nys = len(body.out_avals) - ncarry
    known, kconsts, staged, out_uk, nres = partial_eval_jaxpr(body, uk, [*carry_uk, *[False] * nys])
    consts, init, xs = args[:nc], args[nc : nc + ncarry], args[nc + ncarry :]
    uk_c, uk_carry, uk_x = uk[:nc], uk[nc : nc + ncarry], uk[nc + ncarry :]
    kc, uc = split_by(consts, uk_c)
    kinit, uinit = split_by(init, uk_carry)
    kx, ux = split_by(xs, uk_x)
    k_args = [*kconsts, *kc, *kinit, *kx]
    n_kc, n_kcarry = len(kconsts) + len(kc), len(kinit)
    # Each residual reaches the staged scan as a const or as an xs. One that is
    # a known const or xs of the body is forwarded as it is (a const is not
    # stacked once per iteration; an xs is not copied).
    kj = known.jaxpr
    nk = len(kj.outvars) - nres
    where = {v: i for i, v in enumerate(kj.invars)}
    res_c: dict[int, Any] = {}
    fwd_x: dict[int, Any] = {}
    for k, v in enumerate(kj.outvars[nk:]):
        i = where.get(v) if isinstance(v, Var) else None
        if i is not None and i < n_kc:
            res_c[k] = k_args[i]
        elif i is not None and i >= n_kc + n_kcarry:
            fwd_x[k] = k_args[i]
    stacked = [k for k in range(nres) if k not in res_c and k not in fwd_x]
    known = ClosedJaxpr(
        kj.replace(outvars=[*kj.outvars[:nk], *[kj.outvars[nk + k] for k in stacked]]),
        known.consts,
    )
    known, k_args, n_kc, stacked = _hoist_invariant_residuals(
        trace, known, k_args, n_kc, nk, stacked, res_c
    )
    k_outs = trace.known(
        P.scan_p, k_args, {**params, "jaxpr": known, "num_consts": n_kc, "num_carry": n_kcarry}
    )
    res_x = {**dict(zip(stacked, k_outs[nk:], strict=True)), **fwd_x}
    # The staged body takes (res, uk consts, uk carry, uk xs).
    nuc, nucarry = len(uc), len(uinit)
    order = [
        *range(nres, nres + nuc), *res_c, *range(nres + nuc, nres + nuc + nucarry),
        *res_x, *range(nres + nuc + nucarry, len(staged.in_avals)),
    ]  # fmt: skip
    staged = permute_inputs(staged, order)
    u_outs = trace.stage(
        P.scan_p, [*uc, *res_c.values(), *uinit, *res_x.values(), *ux],
        {**params, "jaxpr": staged, "num_consts": nuc + len(res_c), "num_carry": nucarry},
    )  # fmt: skip
    return merge_by(out_uk, k_outs[:nk], u_outs)


def _scan_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    body = params["jaxpr"]
    nc, ncarry = params["num_consts"], params["num_carry"]
    consts, init, xs = args[:nc], args[nc : nc + ncarry], args[nc + ncarry :]
    # Every carry is transposed as linear. A carry whose initial value is known
    # (not an UndefinedPrimal) is one partial evaluation forced into the linear
    # part, such as the zeros that instantiate a symbolic-zero tangent: the body
    # is still linear in it, and its cotangent is dropped.
    lin_init = [is_undefined(c) for c in init]
    lin_c = [is_undefined(c) for c in consts]
    lin_x = [is_undefined(x) for x in xs]
    res_c, _ = split_by(consts, lin_c)
    res_x, _ = split_by(xs, lin_x)
    body_avals = body.in_avals
    c_avals, carry_avals = body_avals[:nc], body_avals[nc : nc + ncarry]
    x_avals = body_avals[nc + ncarry :]
    lc_avals = [a for a, m in zip(c_avals, lin_c, strict=True) if m]
    y_avals = body.out_avals[ncarry:]
    nrc, nlc, nrx = len(res_c), len(lc_avals), len(res_x)

    def body_t(*a: ArrayLike) -> list[Tangent]:
        rc, acc = a[:nrc], a[nrc : nrc + nlc]
        ctc = a[nrc + nlc : nrc + nlc + ncarry]
        rx, cty = a[nrc + nlc + ncarry : nrc + nlc + ncarry + nrx], a[nrc + nlc + ncarry + nrx :]
        ins = [
            *merge_by(lin_c, rc, [UndefinedPrimal(v) for v in lc_avals]),
            *[UndefinedPrimal(v) for v in carry_avals],
            *merge_by(lin_x, rx, [UndefinedPrimal(v) for v, m in zip(x_avals, lin_x, strict=True) if m]),
        ]  # fmt: skip
        cts_in = backward_pass(body.jaxpr, body.consts, ins, [*ctc, *cty])
        # Linear inputs (flagged, and every carry) always get a cotangent, never None.
        ct_c = [instantiate(cast(Tangent, c)) for c, m in zip(cts_in[:nc], lin_c, strict=True) if m]
        ct_carry = [instantiate(cast(Tangent, c)) for c in cts_in[nc : nc + ncarry]]
        ct_x = [
            instantiate(cast(Tangent, c))
            for c, m in zip(cts_in[nc + ncarry :], lin_x, strict=True)
            if m
        ]
        return [*[add_tangents(s, c) for s, c in zip(acc, ct_c, strict=True)], *ct_carry, *ct_x]

    rc_avals = [get_aval_of(c) for c in res_c]
    rx_avals = [a for a, m in zip(x_avals, lin_x, strict=True) if not m]
    t_avals = [*rc_avals, *lc_avals, *carry_avals, *rx_avals, *y_avals]
    tj, tconsts = hoist_consts(trace_to_jaxpr(body_t, t_avals))
    ct_carry, ct_ys = cts[:ncarry], cts[ncarry:]
    ys_avals = P.scan_p.abstract_eval(
        *[a.aval if is_undefined(a) else get_aval_of(a) for a in args], **params
    )[ncarry:]
    outs = P.scan_p.bind(
        *tconsts, *res_c, *[zeros_like_aval(a) for a in lc_avals],
        *[instantiate(c) for c in ct_carry], *res_x,
        *[instantiate(c) if type(c) is not Zero else zeros_like_aval(a) for c, a in zip(ct_ys, ys_avals, strict=True)],
        **{**params, "jaxpr": tj, "num_consts": len(tconsts) + nrc, "num_carry": nlc + ncarry,
           "reverse": not params["reverse"]},
    )  # fmt: skip
    ct_consts, ct_init, ct_xs = outs[:nlc], outs[nlc : nlc + ncarry], outs[nlc + ncarry :]
    return [
        *merge_by(lin_c, [None] * nrc, ct_consts),
        *[c if m else None for c, m in zip(ct_init, lin_init, strict=True)],
        *merge_by(lin_x, [None] * nrx, ct_xs),
    ]


register_jvp(P.scan_p, _scan_jvp)
register_partial_eval(P.scan_p, _scan_partial_eval)
register_transpose(P.scan_p, _scan_transpose)


# ------------------------------------------------------------------ while


def _while_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    cond, body = params["cond_jaxpr"], params["body_jaxpr"]
    bconsts, carry = primals[cn : cn + bn], primals[cn + bn :]
    bt = tangents[cn:]
    ncarry = len(carry)
    nz = [
        type(t) is not Zero and is_differentiable(get_aval_of(p))
        for p, t in zip(primals[cn:], bt, strict=True)
    ]
    nz_carry = _carry_fixpoint(body, nz, bn, ncarry, False)
    nz = [*nz[:bn], *nz_carry]
    jj, consts, _ = jvp_jaxpr(body, nz, nz_carry)
    n = bn + ncarry
    tidx = [i for i in range(n) if nz[i]]
    c0 = len(consts)
    t_of = {i: c0 + n + k for k, i in enumerate(tidx)}
    order = [
        *range(c0), *[c0 + i for i in range(bn)], *[t_of[i] for i in range(bn) if nz[i]],
        *[c0 + i for i in range(bn, n)], *[t_of[i] for i in range(bn, n) if nz[i]],
    ]  # fmt: skip
    jj = permute_inputs(jj, order)
    t_carry_avals = [
        tangent_aval(get_aval_of(c)) for c, m in zip(carry, nz_carry, strict=True) if m
    ]
    cond2 = add_unused_inputs(cond, [], t_carry_avals)
    ts = [instantiate(t) for t, m in zip(bt, nz, strict=True) if m]
    nbt = sum(nz[:bn])
    outs = P.while_p.bind(
        *primals[:cn], *consts, *bconsts, *ts[:nbt], *carry, *ts[nbt:],
        cond_jaxpr=cond2, body_jaxpr=jj, cond_nconsts=cn, body_nconsts=c0 + bn + nbt,
    )  # fmt: skip
    it = iter(outs[ncarry:])
    touts = [
        next(it) if m else Zero(tangent_aval(get_aval_of(c)))
        for c, m in zip(carry, nz_carry, strict=True)
    ]
    return outs[:ncarry], touts


def _while_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> Any:
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    cond, body = params["cond_jaxpr"], params["body_jaxpr"]
    uk = [trace.is_unknown(a) for a in args]
    carry_uk = _carry_fixpoint(body, uk[cn:], bn, len(args) - cn - bn, True)
    cond_uk = partial_eval_jaxpr(cond, [*uk[:cn], *carry_uk], False)[3]
    if any(cond_uk) or any(uk[:cn]):
        return trace.stage(P.while_p, args, params)
    staged_outs = trace.stage(P.while_p, args, params)
    kc, _ = split_by(args[:cn], uk[:cn])
    kb, _ = split_by(args[cn : cn + bn], uk[cn : cn + bn])
    kinit, _ = split_by(args[cn + bn :], carry_uk)
    nk = carry_uk.count(False)
    kcond, kcc, *_ = partial_eval_jaxpr(cond, [*uk[:cn], *carry_uk], False)
    kbody, kbc, *_ = partial_eval_jaxpr(body, [*uk[cn : cn + bn], *carry_uk], carry_uk)
    kcond, kbody = drop_outputs(kcond, 1), drop_outputs(kbody, nk)
    k_outs = trace.known(
        P.while_p, [*kcc, *kc, *kbc, *kb, *kinit],
        {"cond_jaxpr": kcond, "body_jaxpr": kbody, "cond_nconsts": len(kcc) + len(kc),
         "body_nconsts": len(kbc) + len(kb)},
    )  # fmt: skip
    return merge_by(carry_uk, k_outs, [o for o, m in zip(staged_outs, carry_uk, strict=True) if m])


def _while_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop."
    )


register_jvp(P.while_p, _while_jvp)
register_partial_eval(P.while_p, _while_partial_eval)
register_transpose(P.while_p, _while_transpose)


def _composite_jvp(primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any) -> Any:
    raise ValueError(
        "JVP rule for composite not implemented. You can use `jax.custom_jvp` to add support. "
        "See https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html"
    )


def _composite_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> Any:
    raise ValueError(
        "Transpose rule for composite not implemented. You can use`jax.custom_jvp` or "
        "`jax.custom_vjp` to add support. See "
        "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html"
    )


register_jvp(P.composite_p, _composite_jvp)
register_transpose(P.composite_p, _composite_transpose)
defjvp_zero(P.platform_index_p)
