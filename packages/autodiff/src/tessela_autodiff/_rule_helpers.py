"""Small helpers shared by the rule families: ``defjvp``, ``deflinear``, ``deflinear2``, ``defjvp_zero``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tessela_tracer import Primitive

from tessela_autodiff._ad_util import (
    Zero,
    add_tangents,
    aval_of,
    broadcast_to,
    instantiate,
    tangent_aval,
)
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._transpose import register_transpose

__all__ = ["defjvp", "defjvp_zero", "deflinear", "deflinear2"]


def _zero_outs(prim: Primitive, out: Any) -> Any:
    if prim.multiple_results:
        return [Zero(tangent_aval(aval_of(o))) for o in out]
    return Zero(tangent_aval(aval_of(out)))


def defjvp(prim: Primitive, /, *jvps: Callable[..., Any] | None) -> None:
    """Define a JVP rule from one derivative formula per operand.

    Each ``jvp(g, ans, *primals, **params)`` gives the contribution of
    operand ``i``'s tangent ``g`` to the output tangent (``None`` marks a
    non-differentiable operand). Contributions are broadcast to the output
    shape and summed; symbolic zeros are skipped.

    Args:
      prim: a single-result primitive.
      *jvps: one formula (or None) per operand.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval, lax
        >>> cube_p = Primitive("cube_example")
        >>> register_abstract_eval(cube_p, lambda x: x)
        >>> defjvp(cube_p, lambda g, ans, x: lax.mul(g, lax.mul(3.0, lax.mul(x, x))))
    """

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        ans = prim.bind(*primals, **params)
        shape = aval_of(ans).shape
        out: Any = Zero(tangent_aval(aval_of(ans)))
        for fn, t in zip(jvps, tangents, strict=False):
            if fn is None or type(t) is Zero:
                continue
            out = add_tangents(out, broadcast_to(fn(t, ans, *primals, **params), shape))
        return ans, out

    register_jvp(prim, rule)


def defjvp_zero(prim: Primitive, /) -> None:
    """Declare a primitive's outputs constant to first order (integer-valued, sort order).

    Args:
      prim: the primitive.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval
        >>> step_p = Primitive("step_example")
        >>> register_abstract_eval(step_p, lambda x: x)
        >>> defjvp_zero(step_p)
    """

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        out = prim.bind(*primals, **params)
        return out, _zero_outs(prim, out)

    register_jvp(prim, rule)


def _linear_jvp(prim: Primitive) -> Callable[..., tuple[Any, Any]]:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        ans = prim.bind(*primals, **params)
        return ans, prim.bind(*[instantiate(t) for t in tangents], **params)

    return rule


def deflinear(prim: Primitive, transpose: Callable[..., Sequence[Any]], /) -> None:
    """Define a primitive linear in all its operands whose transpose needs only the cotangent.

    The JVP applies the primitive to the tangents. ``transpose(ct, **params)``
    returns one cotangent per operand.

    Args:
      prim: the primitive.
      transpose: the cotangent map.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval, lax
        >>> flip_p = Primitive("flip_example")
        >>> register_abstract_eval(flip_p, lambda x: x)
        >>> deflinear(flip_p, lambda ct: [lax.neg(ct)])
    """
    register_jvp(prim, _linear_jvp(prim))

    def t_rule(ct: Any, *operands: Any, **params: Any) -> Sequence[Any]:
        if type(ct) is Zero:
            return [None] * len(operands)
        return transpose(ct, **params)

    register_transpose(prim, t_rule)


def deflinear2(prim: Primitive, transpose: Callable[..., Sequence[Any]], /) -> None:
    """Define a primitive linear in its operands whose transpose reads the operands.

    ``transpose(ct, *operands, **params)`` sees each linear operand as an
    :class:`~tessela_autodiff.UndefinedPrimal` (for its shape) and returns one
    cotangent (or None) per operand.

    Args:
      prim: the primitive.
      transpose: the cotangent map.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval
        >>> plus_p = Primitive("plus_example")
        >>> register_abstract_eval(plus_p, lambda x, y: x)
        >>> deflinear2(plus_p, lambda ct, x, y: [ct, ct])
    """
    register_jvp(prim, _linear_jvp(prim))

    def t_rule(ct: Any, *operands: Any, **params: Any) -> Sequence[Any]:
        if type(ct) is Zero:
            return [None] * len(operands)
        return transpose(ct, *operands, **params)

    register_transpose(prim, t_rule)
