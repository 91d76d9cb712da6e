"""The custom family: calls with user-defined derivative rules.

``custom_jvp_call`` and ``custom_vjp_call`` carry the function's jaxpr and the
user's rules (closures on flat leaves); eagerly they evaluate the jaxpr.
``custom_vmap_call`` carries a function's jaxpr (``call``) and the user's
batching rule (``rule``, on flat leaves); only batching reads the rule.
``linear_call`` is a function linear in some operands, with a transpose of
its own (``jax.custom_derivatives.linear_call``).
``custom_lin`` is the linear part of a ``custom_vjp`` function that reverse
mode stages between linearization and transposition: its transpose calls the
user's bwd rule; it cannot be evaluated, so forward mode alone refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval, register_impl
from tessela_tracer._jaxpr import ClosedJaxpr, JaxprEqn, eval_jaxpr
from tessela_tracer._pp import Doc, JaxprPpContext, pp_eqn_default, register_pp_rule
from tessela_tracer._prims_control import out_avals_of

__all__ = [
    "custom_jvp_call_p",
    "custom_lin_p",
    "custom_vjp_call_p",
    "custom_vmap_call_p",
    "linear_call_p",
]


def _call_abstract_eval(
    *avals: ShapedArray, call_jaxpr: ClosedJaxpr, **params: Any
) -> list[ShapedArray]:
    return out_avals_of(call_jaxpr)


def _call_impl(*args: Any, call_jaxpr: ClosedJaxpr, **params: Any) -> list[Any]:
    return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
register_abstract_eval(custom_jvp_call_p, _call_abstract_eval)
register_impl(custom_jvp_call_p, _call_impl)
custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
register_abstract_eval(custom_vjp_call_p, _call_abstract_eval)
register_impl(custom_vjp_call_p, _call_impl)


def _custom_call_pp_rule(hidden: Sequence[str]) -> Callable[[JaxprEqn, JaxprPpContext], Doc]:
    def rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
        params = {k: v for k, v in eqn.params.items() if k not in hidden}
        if not params.get("num_consts"):
            params.pop("num_consts", None)
        params.pop("name")
        order = ["name", *sorted(params)]
        return pp_eqn_default(
            eqn.replace(params={**params, "name": eqn.params["name"]}), ctx, order
        )

    return rule


register_pp_rule(custom_jvp_call_p, _custom_call_pp_rule(()))
register_pp_rule(custom_vjp_call_p, _custom_call_pp_rule(("out_trees",)))


def _custom_lin_abstract_eval(
    *avals_in: ShapedArray, out_avals: Callable[[], Sequence[ShapedArray]], **params: Any
) -> list[ShapedArray]:
    return list(out_avals())


def _custom_lin_impl(*args: Any, **params: Any) -> Any:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p = Primitive("custom_lin", multiple_results=True)
"""The linear part of a ``custom_vjp`` function. Parameters: ``num_res`` (the
leading residual operands), ``bwd`` (the user's bwd rule on flat leaves),
``out_avals`` (a callable giving the tangent avals of the outputs) and
``symbolic_zeros``."""
register_abstract_eval(custom_lin_p, _custom_lin_abstract_eval)
register_impl(custom_lin_p, _custom_lin_impl)


def _custom_vmap_abstract_eval(*avals: ShapedArray, call: ClosedJaxpr, **params: Any) -> list[Any]:
    return out_avals_of(call)


def _custom_vmap_impl(*args: Any, call: ClosedJaxpr, num_consts: int, **params: Any) -> list[Any]:
    return eval_jaxpr(call.jaxpr, call.consts, *args)


custom_vmap_call_p = Primitive("custom_vmap_call", multiple_results=True)
"""A ``custom_vmap`` function. Operands: ``num_consts`` hoisted constants, then
the arguments' leaves. Parameters: ``call`` (the function's closed jaxpr),
``rule`` (``rule(axis_size, in_batched, *leaves) -> (out_leaves,
out_batched)`` on the arguments' leaves), ``in_tree``, ``out_tree`` and
``num_consts``."""
register_abstract_eval(custom_vmap_call_p, _custom_vmap_abstract_eval)
register_impl(custom_vmap_call_p, _custom_vmap_impl)


def _linear_call_abstract_eval(
    *avals: ShapedArray, callee: ClosedJaxpr, **params: Any
) -> list[Any]:
    return out_avals_of(callee)


def _linear_call_impl(*args: Any, callee: ClosedJaxpr, **params: Any) -> list[Any]:
    return eval_jaxpr(callee.jaxpr, callee.consts, *args)


linear_call_p = Primitive("linear_call", multiple_results=True)
"""``linear_call(fun, fun_transpose, residuals, linear_args)``: ``fun`` is linear
in ``linear_args`` and its transpose is ``fun_transpose``. Operands:
``num_callee_consts`` hoisted constants of ``callee``, ``num_res`` residuals,
then the linear operands. Parameters: ``callee`` (closed jaxpr over all the
operands), ``transpose_thunk`` (a callable giving ``(transpose_jaxpr,
its_consts)``, the transpose taking its consts, the residuals and the output
cotangents), ``num_callee_consts`` and ``num_res``."""
register_abstract_eval(linear_call_p, _linear_call_abstract_eval)
register_impl(linear_call_p, _linear_call_impl)
