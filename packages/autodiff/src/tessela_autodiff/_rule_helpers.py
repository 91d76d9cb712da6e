"""Helpers shared by the rule families (this module registers no rule itself).

- ``defjvp``, ``defjvp_zero``, ``deflinear``, ``deflinear2``, ``defbilinear``:
  define and register a primitive's rules from a formula, right after the formula.
- ``const``: a scalar constant of an operand's dtype.
- ``dilate_shape`` and ``conv_vjp_lhs_padding``: the padding that transposes a windowed
  operation (a convolution's input, a windowed sum) back to its input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from tessela_tracer import Primitive, lax
from tessela_tracer.extend import get_aval_of, tangent_aval
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import (
    Tangent,
    UndefinedPrimal,
    Zero,
    add_tangents,
    broadcast_to,
    instantiate,
)
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._transpose import register_transpose

__all__ = [
    "const",
    "conv_vjp_lhs_padding",
    "defbilinear",
    "defjvp",
    "defjvp_zero",
    "deflinear",
    "deflinear2",
    "dilate_shape",
]


def const(x: ArrayLike, value: complex | np.generic, /) -> np.generic:
    """A scalar constant of ``x``'s dtype (a literal in jaxprs).

    Args:
      x: an operand whose dtype the constant takes.
      value: the Python value.

    Returns:
      A NumPy scalar.

    Example:
        >>> import numpy as np
        >>> const(np.ones(2, np.float32), 3).dtype
        dtype('float32')
    """
    return cast(np.generic, np.array(value, get_aval_of(x).dtype)[()])


def dilate_shape(shape: Sequence[int], dilation: Sequence[int], /) -> list[int]:
    """The extent of each dimension after dilation (``dilation - 1`` holes between elements).

    Args:
      shape: the sizes.
      dilation: one factor per dimension.

    Returns:
      The dilated sizes (an empty dimension stays empty).

    Example:
        >>> dilate_shape([3, 0], [2, 2])
        [5, 0]
    """
    return [0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation, strict=True)]


def conv_vjp_lhs_padding(
    in_shape: Sequence[int],
    window: Sequence[int],
    strides: Sequence[int],
    out_shape: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
) -> list[tuple[int, int]]:
    """The padding of the cotangent that transposes a windowed operation to its input.

    Args:
      in_shape: the spatial input shape.
      window: the spatial window (kernel) shape.
      strides: the window strides.
      out_shape: the spatial output shape.
      padding: the forward ``(low, high)`` padding.
      lhs_dilation: the input dilation.
      rhs_dilation: the window dilation.

    Returns:
      One ``(low, high)`` pair per spatial dimension.

    Example:
        >>> conv_vjp_lhs_padding([5], [3], [1], [3], [(0, 0)], [1], [1])
        [(2, 2)]
    """
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window, rhs_dilation)
    out_d = dilate_shape(out_shape, strides)
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding, strict=True)]
    after = [i + k - 1 - o - b for i, k, o, b in zip(lhs_d, rhs_d, out_d, before, strict=True)]
    return [(int(b), int(a)) for b, a in zip(before, after, strict=True)]


def _zero_outs(prim: Primitive, out: Any) -> Zero | list[Zero]:
    if prim.multiple_results:
        return [Zero(tangent_aval(get_aval_of(o))) for o in out]
    return Zero(tangent_aval(get_aval_of(out)))


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

    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array, Tangent]:
        ans = prim.bind(*primals, **params)
        shape = get_aval_of(ans).shape
        out: Tangent = Zero(tangent_aval(get_aval_of(ans)))
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

    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array | list[Array], Zero | list[Zero]]:
        out = prim.bind(*primals, **params)
        return out, _zero_outs(prim, out)

    register_jvp(prim, rule)


def _linear_jvp(prim: Primitive) -> Callable[..., tuple[Any, Any]]:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array | list[Array], Array | list[Array]]:
        ans = prim.bind(*primals, **params)
        return ans, prim.bind(*[instantiate(t) for t in tangents], **params)

    return rule


def _register_linear(
    prim: Primitive, transpose: Callable[..., Sequence[Tangent | None]], with_operands: bool
) -> None:
    """Register the JVP of linear ``prim`` and its ``transpose``.

    The registered rule skips a symbolic zero cotangent and calls
    ``transpose(ct, *operands, **params)``, or ``transpose(ct, **params)``
    without ``with_operands``.
    """
    register_jvp(prim, _linear_jvp(prim))

    def t_rule(
        ct: Tangent, *operands: ArrayLike | UndefinedPrimal, **params: Any
    ) -> Sequence[Tangent | None]:
        if type(ct) is Zero:
            return [None] * len(operands)
        if with_operands:
            return transpose(ct, *operands, **params)
        return transpose(ct, **params)

    register_transpose(prim, t_rule)


def deflinear(prim: Primitive, transpose: Callable[..., Sequence[Tangent | None]], /) -> None:
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
    _register_linear(prim, transpose, False)


def deflinear2(prim: Primitive, transpose: Callable[..., Sequence[Tangent | None]], /) -> None:
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
    _register_linear(prim, transpose, True)


def defbilinear(prim: Primitive, transpose: Callable[..., Sequence[Tangent | None]], /) -> None:
    """Define a primitive linear in each of its two operands (a product).

    The JVP is ``prim(tx, y) + prim(x, ty)``, a term skipped where its tangent
    is a symbolic zero. ``transpose(ct, x, y, **params)`` is registered as is.

    Args:
      prim: a primitive of two operands.
      transpose: its transpose rule.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval
        >>> times_p = Primitive("times_example")
        >>> register_abstract_eval(times_p, lambda x, y: x)
        >>> defbilinear(times_p, lambda ct, x, y: [None, None])
    """

    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array, Tangent]:
        x, y = primals
        tx, ty = tangents
        ans = prim.bind(x, y, **params)
        out: Tangent = Zero(get_aval_of(ans))
        if type(tx) is not Zero:
            out = prim.bind(tx, y, **params)
        if type(ty) is not Zero:
            term = prim.bind(x, ty, **params)
            out = term if type(out) is Zero else lax.add(out, term)
        return ans, out

    register_jvp(prim, rule)
    register_transpose(prim, transpose)
