"""The ``logcosh`` primitive: definition and rules for every transformation."""

from __future__ import annotations

import math
from typing import Any

import tessela_lowering
from tessela_autodiff import Zero, register_jvp
from tessela_batching import defvectorized
from tessela_tracer import ShapeDtypeStruct, lax, make_jaxpr
from tessela_tracer.extend import Primitive, ShapedArray, register_abstract_eval

__all__ = ["logcosh", "logcosh_p"]

logcosh_p = Primitive("logcosh")


def _abstract_eval(x: ShapedArray) -> ShapedArray:
    if x.dtype.kind != "f":
        raise TypeError(
            f"logcosh: x must be a floating array, got {x.dtype}; convert it with x.astype(float)."
        )
    return x


register_abstract_eval(logcosh_p, _abstract_eval)


def _decomposed(x: Any) -> Any:
    # log(cosh(x)) = |x| + log1p(exp(-2|x|)) - log(2), finite for every x
    a = lax.abs(x)
    return lax.sub(lax.add(a, lax.log1p(lax.exp(lax.mul(a, -2.0)))), math.log(2.0))


def _jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    out = logcosh_p.bind(x)
    if isinstance(t, Zero):
        return out, t
    return out, lax.mul(t, lax.tanh(x))


register_jvp(logcosh_p, _jvp)
defvectorized(logcosh_p)


def _lowering(ctx: tessela_lowering.LoweringRuleContext, x: Any) -> Any:
    (aval,) = ctx.avals_in
    closed = make_jaxpr(_decomposed)(ShapeDtypeStruct(aval.shape, aval.dtype))
    return tessela_lowering.lower_jaxpr(ctx.module_context, closed.jaxpr, [], [x])


tessela_lowering.register_lowering(logcosh_p, _lowering)


def logcosh(x: Any, /) -> Any:
    """``log(cosh(x))`` elementwise, without overflow for large ``|x|``.

    Args:
        x: a floating array.

    Returns:
        An array of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> print(logcosh(np.float32(100.0)))
        99.30685
    """
    return logcosh_p.bind(x)
