"""Rules of ``custom_jvp_call`` and ``custom_vjp_call``, and the ``custom_lin`` primitive."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_pytree import tree_flatten, tree_unflatten
from tessela_tracer import Primitive, ShapedArray, register_abstract_eval, register_impl
from tessela_tracer import primitives as P
from tessela_tracer.extend import NamedCallable

from tessela_autodiff._ad_util import Zero, aval_of, instantiate, tangent_aval, zeros_like_aval
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._transpose import register_transpose

__all__ = ["custom_lin_p"]


def _custom_jvp_call_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, call_jaxpr: Any, jvp: Any, name: str,
    num_consts: int, symbolic_zeros: bool,
) -> tuple[Any, Any]:  # fmt: skip
    args = tuple(primals[num_consts:])
    ts = tuple(instantiate(t) for t in tangents[num_consts:])
    out, tout = jvp(args, ts)
    outs, tree = tree_flatten(out)
    touts, ttree = tree_flatten(tout)
    if tree != ttree:
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with equal container "
            f"(pytree) structures, but got {tree} and {ttree} respectively."
        )
    return outs, touts


register_jvp(P.custom_jvp_call_p, _custom_jvp_call_jvp)


def _custom_lin_abstract_eval(
    *avals: ShapedArray, out_avals: Any, **params: Any
) -> list[ShapedArray]:
    return list(out_avals.fun())


def _custom_lin_impl(*args: Any, **params: Any) -> Any:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p = Primitive("custom_lin", multiple_results=True)
register_abstract_eval(custom_lin_p, _custom_lin_abstract_eval)
register_impl(custom_lin_p, _custom_lin_impl)


def _custom_vjp_call_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, call_jaxpr: Any, fwd: Any, bwd: Any,
    name: str, num_consts: int, out_trees: Any, symbolic_zeros: bool,
) -> tuple[Any, Any]:  # fmt: skip
    args = primals[num_consts:]
    ts = tangents[num_consts:]
    out, res = fwd(*args)
    outs, out_tree = tree_flatten(out)
    res_flat, res_tree = tree_flatten(res)
    if all(type(t) is Zero for t in ts):
        return outs, [Zero(tangent_aval(aval_of(o))) for o in outs]
    out_avals = tuple(tangent_aval(aval_of(o)) for o in outs)
    in_avals = tuple(aval_of(a) for a in args)
    touts = custom_lin_p.bind(
        *res_flat, *[instantiate(t) for t in ts], num_res=len(res_flat), bwd=bwd,
        out_avals=NamedCallable(lambda: out_avals, "out_avals"),
        trees=NamedCallable(lambda: (res_tree, out_tree, in_avals), "trees"),
    )  # fmt: skip
    return outs, touts


def _custom_lin_transpose(
    cts: Sequence[Any], *args: Any, num_res: int, bwd: Any, out_avals: Any, trees: Any
) -> list[Any]:
    res_tree, out_tree, in_avals = trees.fun()
    res = tree_unflatten(res_tree, list(args[:num_res]))
    ct = tree_unflatten(out_tree, [instantiate(c) for c in cts])
    cts_in = bwd(res, ct)
    if not isinstance(cts_in, (tuple, list)):
        raise TypeError(
            f"Custom VJP bwd rule must produce a tuple, but got {type(cts_in).__name__}."
        )
    if len(cts_in) != len(in_avals):
        raise TypeError(
            f"Custom VJP bwd rule must produce an output with the same container (pytree) "
            f"structure as the args tuple of the primal function; the bwd output has "
            f"{len(cts_in)} entries for {len(in_avals)} arguments."
        )
    flat = [
        zeros_like_aval(tangent_aval(a)) if c is None else c
        for c, a in zip(cts_in, in_avals, strict=True)
    ]
    return [None] * num_res + flat


register_jvp(P.custom_vjp_call_p, _custom_vjp_call_jvp)
register_transpose(custom_lin_p, _custom_lin_transpose)
