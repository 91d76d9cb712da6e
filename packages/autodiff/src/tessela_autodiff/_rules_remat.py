"""JVP, partial-evaluation and transpose rules of ``checkpoint`` (remat) and ``checkpoint_name``.

Partial evaluation splits a remat body equation by equation: known equations
run now, and those the policy does not let the known part save are copied
into the staged remat to be recomputed in the backward pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from tessela_tracer import primitives as P
from tessela_tracer.checkpoint_policies import saves_residual
from tessela_tracer.extend import (
    eval_jaxpr,
    has_effects,
    set_current_trace,
    tangent_aval,
    trace_to_jaxpr,
)
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, instantiate, is_undefined
from tessela_autodiff._jvp import jvp_jaxpr, register_jvp
from tessela_autodiff._partial_eval import (
    PartialEvalTrace,
    merge_by,
    partial_eval_jaxpr,
    register_partial_eval,
    split_by,
)
from tessela_autodiff._transpose import register_transpose, transpose_jaxpr

__all__: list[str] = []


# ------------------------------------------------------------------ remat


def _remat_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    closed = ClosedJaxpr(params["jaxpr"], ())
    nz = [type(t) is not Zero for t in tangents]
    nout = len(closed.out_avals)
    jj, consts, out_nz = jvp_jaxpr(closed, nz, [False] * nout)
    args = [*consts, *primals, *[t for t in tangents if type(t) is not Zero]]
    outs = P.remat_p.bind(*args, **{**params, "jaxpr": jj.jaxpr})
    it = iter(outs[nout:])
    avals = closed.out_avals
    touts = [next(it) if m else Zero(tangent_aval(a)) for m, a in zip(out_nz, avals, strict=True)]
    return outs[:nout], touts


def _nothing_saveable(*_: Any, **__: Any) -> bool:
    return False


def _dce(eqns: Sequence[JaxprEqn], outs: Sequence[Any]) -> tuple[list[JaxprEqn], set[Var]]:
    # Keep the equations the outputs depend on, and those with effects (a
    # debug print); also return every variable read.
    live = {v for v in outs if isinstance(v, Var)}
    kept = []
    for eqn in reversed(eqns):
        if any(v in live for v in eqn.outvars) or has_effects(eqn):
            kept.append(eqn)
            live.update(v for v in eqn.invars if isinstance(v, Var))
    kept.reverse()
    return kept, live


def _call_params(jaxpr: ClosedJaxpr, name: str, nargs: int) -> dict[str, Any]:
    return {
        "jaxpr": jaxpr, "name": name, "donated_invars": (False,) * nargs,
        "keep_unused": False, "inline": False,
    }  # fmt: skip


def _split_call(eqn: JaxprEqn, eqn_uk: Sequence[bool]) -> tuple[JaxprEqn, JaxprEqn] | None:
    # Split a scan, cond or jit equation of a remat body whose operands are
    # partly unknown into a known call (known outputs, then residuals) and a
    # staged call (residuals and unknown operands to unknown outputs), as the
    # partial evaluation of the primitive would. Staged whole instead, its
    # primal outputs would count as unknown: a scan would carry recomputed
    # primal values beside tangents into the linear program.
    if eqn.primitive not in (P.scan_p, P.cond_p, P.jit_p) or all(eqn_uk) or has_effects(eqn):
        return None
    prim, params = eqn.primitive, eqn.params
    one = trace_to_jaxpr(lambda *xs: prim.bind(*xs, **params), [v.aval for v in eqn.invars])
    known, kconsts, staged, out_uk, nres = partial_eval_jaxpr(one, eqn_uk, False)
    if kconsts:
        return None
    res = [Var(a) for a in known.out_avals[len(known.out_avals) - nres :]]
    k_ins, u_ins = split_by(eqn.invars, eqn_uk)
    k_outs, u_outs = split_by(eqn.outvars, out_uk)
    name = f"{prim.name}_known"
    known_eqn = eqn.replace(
        primitive=P.jit_p, invars=k_ins, outvars=[*k_outs, *res],
        params=_call_params(known, name, len(k_ins)),
    )  # fmt: skip
    staged_eqn = eqn.replace(
        primitive=P.jit_p, invars=[*res, *u_ins], outvars=u_outs,
        params=_call_params(staged, f"{prim.name}_staged", len(res) + len(u_ins)),
    )  # fmt: skip
    return known_eqn, staged_eqn


def _split_remat_body(
    jaxpr: Jaxpr, uk: Sequence[bool], policy: Any
) -> tuple[Jaxpr, Jaxpr, list[bool], list[int], int]:
    # Split a remat body given unknown inputs into ``known`` (known inputs to
    # known outputs then residuals) and ``staged`` (residuals then the inputs
    # listed in ``used`` to unknown outputs). Known equations the policy calls
    # saveable may have their results saved as residuals; the others are also
    # copied into ``staged`` and recomputed there.
    unknown = {v for v, u in zip(jaxpr.invars, uk, strict=True) if u}
    saved: set[Var] = set()
    known_eqns: list[JaxprEqn] = []
    staged_eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        eqn_uk = [isinstance(v, Var) and v in unknown for v in eqn.invars]
        after: list[JaxprEqn] = []
        if any(eqn_uk) and eqn.primitive is P.remat_p:
            # A nested remat splits the same way under its own policy.
            sub = eqn.params
            k, st, sub_out_uk, used, nres = _split_remat_body(
                sub["jaxpr"], eqn_uk, sub["policy"] or _nothing_saveable
            )
            res = [Var(v.aval) for v in k.outvars[len(k.outvars) - nres :]]
            k_ins = [v for v, u in zip(eqn.invars, eqn_uk, strict=True) if not u]
            k_outs = [v for v, u in zip(eqn.outvars, sub_out_uk, strict=True) if not u]
            s_outs = [v for v, u in zip(eqn.outvars, sub_out_uk, strict=True) if u]
            unknown.update(s_outs)
            known_eqn = eqn.replace(
                invars=k_ins, outvars=[*k_outs, *res], params={**sub, "jaxpr": k}
            )
            after.append(
                eqn.replace(
                    invars=[*res, *[eqn.invars[i] for i in used]],
                    outvars=s_outs,
                    params={**sub, "jaxpr": st, "differentiated": True},
                )
            )
            eqn = known_eqn
        elif any(eqn_uk) and (split := _split_call(eqn, eqn_uk)) is not None:
            eqn, staged_eqn = split
            unknown.update(staged_eqn.outvars)
            after.append(staged_eqn)
        elif any(eqn_uk):
            staged_eqns.append(eqn)
            unknown.update(eqn.outvars)
            continue
        known_eqns.append(eqn)
        if saves_residual(policy(eqn.primitive, *[v.aval for v in eqn.invars], **eqn.params)):
            saved.update(eqn.outvars)
        else:
            staged_eqns.append(eqn)
        staged_eqns.extend(after)
    out_uk = [isinstance(v, Var) and v in unknown for v in jaxpr.outvars]
    staged_outs = [v for v, u in zip(jaxpr.outvars, out_uk, strict=True) if u]
    staged_eqns, staged_reads = _dce(staged_eqns, staged_outs)
    residuals = [v for e in known_eqns for v in e.outvars if v in saved and v in staged_reads]
    known_outs = [v for v, u in zip(jaxpr.outvars, out_uk, strict=True) if not u]
    known_eqns, _ = _dce(known_eqns, [*known_outs, *residuals])
    known_in = [v for v, u in zip(jaxpr.invars, uk, strict=True) if not u]
    known = Jaxpr((), known_in, [*known_outs, *residuals], known_eqns)
    used = [i for i, v in enumerate(jaxpr.invars) if v in staged_reads]
    staged_in = [*residuals, *[jaxpr.invars[i] for i in used]]
    staged = Jaxpr((), staged_in, staged_outs, staged_eqns)
    return known, staged, out_uk, used, len(residuals)


def _remat_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> Any:
    # The known part runs now, outside any remat; the staged remat recomputes
    # what the policy did not let the known part save.
    uk = [trace.is_unknown(a) for a in args]
    policy = params["policy"] or _nothing_saveable
    known, staged, out_uk, used, nres = _split_remat_body(params["jaxpr"], uk, policy)
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        vals = eval_jaxpr(known, (), *[a for a, u in zip(args, uk, strict=True) if not u])
    nk = len(vals) - nres
    k_outs, res_vals = vals[:nk], vals[nk:]
    if not staged.outvars:
        return k_outs
    new_params = {**params, "jaxpr": staged, "differentiated": True}
    outs = trace.stage(P.remat_p, [*res_vals, *[args[i] for i in used]], new_params)
    return merge_by(out_uk, k_outs, outs)


def _remat_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    linear = [is_undefined(a) for a in args]
    tj, consts = transpose_jaxpr(ClosedJaxpr(params["jaxpr"], ()), linear)
    res = [a for a in args if not is_undefined(a)]
    outs = P.remat_p.bind(
        *consts, *res, *[instantiate(c) for c in cts], **{**params, "jaxpr": tj.jaxpr}
    )
    return merge_by(linear, [None] * len(res), outs)


register_jvp(P.remat_p, _remat_jvp)
register_partial_eval(P.remat_p, _remat_partial_eval)
register_transpose(P.remat_p, _remat_transpose)


# ------------------------------------------------------------------ checkpoint_name


def _name_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, name: str
) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return P.name_p.bind(x, name=name), t  # the tangent stays unnamed


def _name_transpose(ct: Any, x: Any, *, name: str) -> list[Any]:
    return [None if type(ct) is Zero else ct]


register_jvp(P.name_p, _name_jvp)
register_transpose(P.name_p, _name_transpose)
