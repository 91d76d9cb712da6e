"""JVP and transpose rules of ``custom_jvp_call``, ``custom_vjp_call``, ``custom_lin`` and
``custom_vmap_call``.

The equations carry the user's rules as closures on flat leaves (see
``tessela_tracer.custom_jvp``): a ``None`` tangent or cotangent is a zero.

- ``custom_jvp_call``: the JVP rule runs on the primals and their tangents
  (zeros instantiated unless the rule asked for ``symbolic_zeros``).
- ``custom_vjp_call``: the fwd rule runs on the primals; the output tangents
  are a ``custom_lin`` equation of the residuals and the input tangents,
  which reverse mode stages and then transposes by calling the bwd rule.
- ``custom_lin`` (defined in ``tessela_tracer``): its transpose calls the bwd
  rule; forward mode cannot evaluate or differentiate it and says so with
  JAX's ``TypeError``.
- ``custom_vmap_call``: differentiated through the function's jaxpr (its
  batching rule is only for ``vmap``; a ``vmap`` outside the JVP runs the
  rule and differentiates what it computes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import Var
from tessela_tracer import primitives as P
from tessela_tracer.errors import UnexpectedTracerError
from tessela_tracer.extend import ClosedJaxpr, NamedCallable, eval_jaxpr, get_aval_of, tangent_aval
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, convert_like, instantiate, is_undefined
from tessela_autodiff._jvp import jvp_flat, register_jvp
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


class ClosedOverDifferentiationError(UnexpectedTracerError):
    """A custom-derivative function was differentiated with respect to a closed-over value."""

    def __init__(self, tracer: Any, kind: str) -> None:
        self.tracer = tracer
        rule = "JVP rule" if kind == "jvp" else "fwd and bwd rules"
        Exception.__init__(
            self,
            f"Detected differentiation of a custom_{kind} function with respect to a "
            f"closed-over value. That isn't supported because the custom {kind.upper()} rule "
            f"only specifies how to differentiate the custom_{kind} function with respect to "
            "explicit input parameters. Try passing the closed-over value into the "
            f"custom_{kind} function as an argument, and adapting the custom_{kind} {rule}.",
        )


def _check_consts(tangents: Sequence[Any], num_consts: int, kind: str) -> None:
    for t in tangents[:num_consts]:
        if type(t) is not Zero:
            raise ClosedOverDifferentiationError(t, kind)


def _custom_jvp_call_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, call_jaxpr: Any, jvp: Any, name: str,
    num_consts: int, symbolic_zeros: bool,
) -> tuple[Any, Any]:  # fmt: skip
    _check_consts(tangents, num_consts, "jvp")
    args = list(primals[num_consts:])
    ts = [
        None if symbolic_zeros and type(t) is Zero else instantiate(t)
        for t in tangents[num_consts:]
    ]
    outs, touts = jvp(args, ts)
    touts = [
        Zero(tangent_aval(get_aval_of(o))) if t is None else t
        for o, t in zip(outs, touts, strict=True)
    ]
    return outs, touts


register_jvp(P.custom_jvp_call_p, _custom_jvp_call_jvp)


def _custom_vjp_call_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, call_jaxpr: Any, fwd: Any, bwd: Any,
    name: str, num_consts: int, out_trees: Any, symbolic_zeros: bool,
) -> tuple[Any, Any]:  # fmt: skip
    _check_consts(tangents, num_consts, "vjp")
    args = list(primals[num_consts:])
    ts = tangents[num_consts:]
    perturbed = [type(t) is not Zero for t in ts]
    res_outs = fwd(args, perturbed)
    num_res = out_trees()[1].num_leaves
    res, outs = res_outs[:num_res], res_outs[num_res:]
    if not any(perturbed):
        return outs, [Zero(tangent_aval(get_aval_of(o))) for o in outs]
    out_avals = tuple(tangent_aval(get_aval_of(o)) for o in outs)
    touts = P.custom_lin_p.bind(
        *res, *[instantiate(t) for t in ts], num_res=num_res, bwd=bwd,
        out_avals=NamedCallable(lambda: out_avals, "out_avals"), symbolic_zeros=symbolic_zeros,
    )  # fmt: skip
    return outs, touts


register_jvp(P.custom_vjp_call_p, _custom_vjp_call_jvp)


def _custom_lin_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> Any:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


register_jvp(P.custom_lin_p, _custom_lin_jvp)


def _custom_lin_transpose(
    cts: Sequence[Any], *args: Any, num_res: int, bwd: Any, out_avals: Any, symbolic_zeros: bool
) -> list[Any]:
    res = list(args[:num_res])
    cts_out = [None if symbolic_zeros and type(c) is Zero else instantiate(c) for c in cts]
    cts_in = bwd(res, cts_out)
    out: list[Any] = [None] * num_res
    for ct, x in zip(cts_in, args[num_res:], strict=True):
        aval = tangent_aval(x.aval if is_undefined(x) else get_aval_of(x))
        out.append(Zero(aval) if ct is None else convert_like(ct, aval))
    return out


register_transpose(P.custom_lin_p, _custom_lin_transpose)


def _custom_vmap_call_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, call: ClosedJaxpr, **params: Any
) -> tuple[Any, Any]:
    def run(*xs: ArrayLike) -> tuple[list[ArrayLike], None]:
        return eval_jaxpr(call.jaxpr, call.consts, *xs), None

    outs, touts, _ = jvp_flat(run, primals, tangents)
    return outs, touts


register_jvp(P.custom_vmap_call_p, _custom_vmap_call_jvp)


def _linear_call_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, num_callee_consts: int, num_res: int,
    **params: Any,
) -> tuple[Any, Any]:  # fmt: skip
    k = num_callee_consts + num_res
    if any(type(t) is not Zero for t in tangents[:k]):
        raise ValueError(
            "linear_call: the function is linear in its linear arguments only; its residual "
            "arguments (and the values it closes over) cannot be differentiated. Pass "
            "values that depend on the differentiated inputs as linear arguments."
        )
    params.update(num_callee_consts=num_callee_consts, num_res=num_res)
    outs = P.linear_call_p.bind(*primals, **params)
    lin_tangents = [instantiate(t) for t in tangents[k:]]
    touts = P.linear_call_p.bind(*primals[:k], *lin_tangents, **params)
    return outs, touts


register_jvp(P.linear_call_p, _linear_call_jvp)


def _linear_call_transpose(
    cts: Sequence[Any], *args: Any, callee: ClosedJaxpr, transpose_thunk: Any,
    num_callee_consts: int, num_res: int,
) -> list[Any]:  # fmt: skip
    transpose, t_consts = transpose_thunk()
    k = num_callee_consts + num_res
    res = list(args[num_callee_consts:k])
    if any(is_undefined(r) for r in args[:k]):
        raise ValueError("linear_call: a residual argument depends on the linear inputs.")
    callee_consts = list(args[:num_callee_consts])
    # The transposed call's own transpose is ``callee``. Its constants travel
    # as leading residuals of the transposed call (which ignores them), never
    # in the thunk's closure: a traced constant there would outlive its trace
    # in every jaxpr the equation is recorded into.
    nt = len(t_consts)
    tj = transpose.jaxpr
    extra = [Var(get_aval_of(c)) for c in callee_consts]
    padded = ClosedJaxpr(
        tj.replace(invars=[*tj.invars[:nt], *extra, *tj.invars[nt:]]), transpose.consts
    )

    def back() -> tuple[ClosedJaxpr, list[ArrayLike]]:
        return callee, []

    outs = P.linear_call_p.bind(
        *t_consts, *callee_consts, *res, *[instantiate(c) for c in cts], callee=padded,
        transpose_thunk=NamedCallable(back, "transpose"), num_callee_consts=nt,
        num_res=len(callee_consts) + len(res),
    )  # fmt: skip
    lin = args[k:]
    return [None] * k + [
        convert_like(o, tangent_aval(x.aval)) for o, x in zip(outs, lin, strict=True)
    ]


register_transpose(P.linear_call_p, _linear_call_transpose)
