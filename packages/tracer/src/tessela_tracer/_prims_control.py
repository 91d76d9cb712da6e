"""The control family: higher-order primitives carrying jaxprs (jit call, cond, while, scan).

Also ``composite`` (a named call the compiler may recognize, lowered to
``stablehlo.composite``; params ``name``, ``attributes``, ``version``,
``jaxpr``) and ``platform_index`` (the index of the platform the program is
compiled for among ``platforms``, where ``None`` stands for any other, for
``lax.platform_dependent``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn
from tessela_tracer._pp import Doc, JaxprPpContext, pp_eqn_default, register_pp_rule

__all__ = [
    "NamedCallable",
    "composite_p",
    "cond_p",
    "hoist_consts",
    "jit_p",
    "out_avals_of",
    "platform_index_p",
    "scan_p",
    "while_p",
]


class NamedCallable:
    """A callable parameter that prints as its function's name (``jvp=<lambda>``)."""

    __slots__ = ("fun", "name")

    def __init__(self, fun: Callable[..., Any], name: str | None = None) -> None:
        self.fun = fun
        self.name = name if name is not None else getattr(fun, "__name__", type(fun).__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def hoist_consts(closed: ClosedJaxpr, /) -> tuple[ClosedJaxpr, list[Any]]:
    """Turn a closed jaxpr's constvars into leading inputs.

    Args:
      closed: a jaxpr whose consts may include tracers of enclosing traces.

    Returns:
      ``(jaxpr_without_consts, consts)``: pass ``consts`` as leading operands.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> c = np.ones(3, np.float32)
        >>> j, consts = hoist_consts(make_jaxpr(lambda x: lax.add(x, c))(c))
        >>> len(j.jaxpr.invars), len(consts)
        (2, 1)
    """
    j = closed.jaxpr
    if not j.constvars:
        return closed, []
    new = Jaxpr((), (*j.constvars, *j.invars), j.outvars, j.eqns)
    return ClosedJaxpr(new, ()), list(closed.consts)


def out_avals_of(closed: ClosedJaxpr) -> list[ShapedArray]:
    """The output avals of a closed jaxpr."""
    return [v.aval for v in closed.jaxpr.outvars]


# ------------------------------------------------------------------ jit call


def _jit_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, **params: Any) -> list[ShapedArray]:
    if len(avals) != len(jaxpr.jaxpr.invars):
        raise TypeError(
            f"jit call got {len(avals)} operands for a jaxpr of {len(jaxpr.jaxpr.invars)} inputs"
        )
    return out_avals_of(jaxpr)


jit_p = Primitive("jit", multiple_results=True)
register_abstract_eval(jit_p, _jit_abstract_eval)


def _jit_pp_rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    params = dict(eqn.params)
    params.pop("inline", None)
    if not any(params.get("donated_invars", ())):
        params.pop("donated_invars", None)
    if not params.get("keep_unused", False):
        params.pop("keep_unused", None)
    sub = params["jaxpr"].jaxpr
    if sub not in ctx.shared_jaxprs:
        ctx.suggest_same_var_names(sub.invars, eqn.invars)
        ctx.suggest_same_var_names(sub.outvars, eqn.outvars)
    params.pop("name")
    return pp_eqn_default(eqn.replace(params={**params, "name": eqn.params["name"]}), ctx,
                          ["name", *sorted(params)])  # fmt: skip


register_pp_rule(jit_p, _jit_pp_rule)


# ------------------------------------------------------------------ cond


def _cond_abstract_eval(
    index: ShapedArray, *avals: ShapedArray, branches: tuple[ClosedJaxpr, ...]
) -> list[ShapedArray]:
    if index.shape or index.dtype.kind not in "iu":
        raise TypeError(f"cond index must be an integer scalar, got {index.str_short()}")
    for b in branches:
        ins = b.jaxpr.invars
        if len(ins) != len(avals) or any(
            v.aval.shape != a.shape or v.aval.dtype != a.dtype
            for v, a in zip(ins, avals, strict=True)
        ):
            raise TypeError("cond branches must take the operands' types")
    return out_avals_of(branches[0])


cond_p = Primitive("cond", multiple_results=True)
register_abstract_eval(cond_p, _cond_abstract_eval)


# ------------------------------------------------------------------ while


def _while_abstract_eval(
    *avals: ShapedArray,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[ShapedArray]:
    pred = out_avals_of(cond_jaxpr)
    if len(pred) != 1 or pred[0].shape or pred[0].dtype.kind != "b":
        raise TypeError(
            "cond_fun must return a boolean scalar, but got output type(s) "
            f"{[a.str_short() for a in pred]}."
        )
    return out_avals_of(body_jaxpr)


while_p = Primitive("while", multiple_results=True)
register_abstract_eval(while_p, _while_abstract_eval)


# ------------------------------------------------------------------ scan


def _scan_abstract_eval(
    *avals: ShapedArray,
    jaxpr: ClosedJaxpr,
    length: int,
    num_consts: int,
    num_carry: int,
    reverse: bool,
    unroll: int,
) -> list[ShapedArray]:
    outs = out_avals_of(jaxpr)
    carry = outs[:num_carry]
    ys = [ShapedArray((length, *a.shape), a.dtype, a.weak_type) for a in outs[num_carry:]]
    return [*carry, *ys]


scan_p = Primitive("scan", multiple_results=True)
register_abstract_eval(scan_p, _scan_abstract_eval)


# ------------------------------------------------------------------ composite


def _composite_abstract_eval(
    *avals: ShapedArray, name: str, attributes: tuple[Any, ...], version: int, jaxpr: ClosedJaxpr
) -> list[ShapedArray]:
    if len(avals) != len(jaxpr.jaxpr.invars):
        raise TypeError(
            f"composite {name!r} got {len(avals)} operands for a decomposition of "
            f"{len(jaxpr.jaxpr.invars)} inputs"
        )
    return out_avals_of(jaxpr)


composite_p = Primitive("composite", multiple_results=True)
register_abstract_eval(composite_p, _composite_abstract_eval)


# ------------------------------------------------------------------ platform_index


def _platform_index_abstract_eval(*, platforms: tuple[tuple[str, ...] | None, ...]) -> ShapedArray:
    return ShapedArray((), np.int32)


platform_index_p = Primitive("platform_index")
register_abstract_eval(platform_index_p, _platform_index_abstract_eval)
