r"""Special functions beyond the elementwise family: incomplete gamma and beta, Bessel.

The primitives, under JAX 0.10.2's names, each elementwise over operands of
one floating dtype (scalars and size-1 dimensions broadcast, as for the other
n-ary ops):

- ``igamma_p(a, x)``: the regularized lower incomplete gamma function
  :math:`P(a, x) = \gamma(a, x) / \Gamma(a)`;
- ``igammac_p(a, x)``: its complement :math:`Q(a, x) = 1 - P(a, x)`;
- ``igamma_grad_a_p(a, x)``: :math:`\partial P(a, x) / \partial a`;
- ``random_gamma_grad_p(a, x)``: the derivative of a ``Gamma(a, 1)`` sample
  ``x`` with respect to ``a`` (implicit reparameterization:
  :math:`-(\partial P / \partial a) / (\partial P / \partial x)`);
- ``regularized_incomplete_beta_p(a, b, x)``: :math:`I_x(a, b)`;
- ``bessel_i0e_p(x)`` and ``bessel_i1e_p(x)``: the exponentially scaled
  modified Bessel functions :math:`e^{-|x|} I_0(x)` and :math:`e^{-|x|} I_1(x)`.

JAX computes ``random_gamma_grad`` inline from ``lax`` operations; here it is
one primitive so that batching and lowering treat it like its siblings (its
values are JAX's: the same series and continued fraction).
"""

from __future__ import annotations

from tessela_tracer._lax import _unary
from tessela_tracer._prims_elementwise import _REAL_FLOAT, nary_primitive, unary_primitive
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "bessel_i0e",
    "bessel_i0e_p",
    "bessel_i1e",
    "bessel_i1e_p",
    "betainc",
    "igamma",
    "igamma_grad_a",
    "igamma_grad_a_p",
    "igamma_p",
    "igammac",
    "igammac_p",
    "random_gamma_grad",
    "random_gamma_grad_p",
    "regularized_incomplete_beta_p",
]

igamma_p = nary_primitive("igamma", _REAL_FLOAT)
igammac_p = nary_primitive("igammac", _REAL_FLOAT)
igamma_grad_a_p = nary_primitive("igamma_grad_a", _REAL_FLOAT)
random_gamma_grad_p = nary_primitive("random_gamma_grad", _REAL_FLOAT)
regularized_incomplete_beta_p = nary_primitive("regularized_incomplete_beta", _REAL_FLOAT)
bessel_i0e_p = unary_primitive("bessel_i0e", _REAL_FLOAT)
bessel_i1e_p = unary_primitive("bessel_i1e", _REAL_FLOAT)


def igamma(a: ArrayLike, x: ArrayLike, /) -> Array:
    r"""Elementwise regularized lower incomplete gamma function :math:`P(a, x)`.

    NaN where ``a < 0``, ``x < 0``, ``a == x == 0`` or an operand is NaN; 0 at
    ``x = 0`` and 1 at ``x = inf``. Differentiable in both operands.

    Args:
      a: the shape, a floating array or scalar.
      x: the upper limit, a floating array or scalar of ``a``'s dtype.

    Returns:
      :math:`P(a, x)`, of the broadcast shape of ``a`` and ``x``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.igamma)(1.0, 2.0))
        { lambda ; a:f32[] b:f32[]. let c:f32[] = igamma a b in (c,) }
    """
    out: Array = igamma_p.bind(a, x)
    return out


def igammac(a: ArrayLike, x: ArrayLike, /) -> Array:
    r"""Elementwise regularized upper incomplete gamma function :math:`Q(a, x) = 1 - P(a, x)`.

    Args:
      a: the shape, a floating array or scalar.
      x: the lower limit, a floating array or scalar of ``a``'s dtype.

    Returns:
      :math:`Q(a, x)`, of the broadcast shape of ``a`` and ``x``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.igammac)(1.0, 2.0))
        { lambda ; a:f32[] b:f32[]. let c:f32[] = igammac a b in (c,) }
    """
    out: Array = igammac_p.bind(a, x)
    return out


def igamma_grad_a(a: ArrayLike, x: ArrayLike, /) -> Array:
    r"""Elementwise :math:`\partial P(a, x) / \partial a`, the derivative of ``igamma`` in ``a``.

    NaN where ``a <= 0`` or ``x < 0``; 0 at ``x = 0``. It has no derivative
    rule of its own, as in JAX.

    Args:
      a: the shape, a floating array or scalar.
      x: the upper limit, a floating array or scalar of ``a``'s dtype.

    Returns:
      The derivative, of the broadcast shape of ``a`` and ``x``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.igamma_grad_a)(1.0, 2.0))
        { lambda ; a:f32[] b:f32[]. let c:f32[] = igamma_grad_a a b in (c,) }
    """
    out: Array = igamma_grad_a_p.bind(a, x)
    return out


def random_gamma_grad(a: ArrayLike, x: ArrayLike, /) -> Array:
    r"""Elementwise derivative of a ``Gamma(a, 1)`` sample ``x`` with respect to ``a``.

    The implicit reparameterization gradient
    :math:`-(\partial P(a, x) / \partial a) / (\partial P(a, x) / \partial x)`,
    which ``random.gamma`` uses for its derivative. NaN where ``a <= 0`` or
    ``x < 0``; 0 at ``x = 0``.

    Args:
      a: the shape, a floating array or scalar.
      x: the sample, a floating array or scalar of ``a``'s dtype.

    Returns:
      :math:`dx/da`, of the broadcast shape of ``a`` and ``x``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.random_gamma_grad)(1.0, 2.0))
        { lambda ; a:f32[] b:f32[]. let c:f32[] = random_gamma_grad a b in (c,) }
    """
    out: Array = random_gamma_grad_p.bind(a, x)
    return out


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike, /) -> Array:
    r"""Elementwise regularized incomplete beta function :math:`I_x(a, b)`.

    NaN where ``a < 0``, ``b < 0``, ``x`` lies outside ``[0, 1]``, or ``a``
    and ``b`` are both zero. Differentiable in ``x`` only, as in JAX (the
    derivatives in ``a`` and ``b`` raise ``ValueError``).

    Args:
      a: a floating array or scalar.
      b: a floating array or scalar of ``a``'s dtype.
      x: a floating array or scalar of ``a``'s dtype.

    Returns:
      :math:`I_x(a, b)`, of the broadcast shape of the operands.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.betainc)(1.0, 2.0, 0.5))
        { lambda ; a:f32[] b:f32[] c:f32[]. let
            d:f32[] = regularized_incomplete_beta a b c
          in (d,) }
    """
    out: Array = regularized_incomplete_beta_p.bind(a, b, x)
    return out


def _bessel_doc(order: int) -> tuple[str, str, str]:
    return (
        "Elementwise exponentially scaled modified Bessel function "
        f":math:`e^{{-|x|}} I_{order}(x)`.",
        "a floating array or scalar.",
        f"``i{order}e(x)``, same shape and dtype as ``x``.",
    )


bessel_i0e = _unary(bessel_i0e_p, doc=_bessel_doc(0))
bessel_i1e = _unary(bessel_i1e_p, doc=_bessel_doc(1))
__test__ = {"bessel_i0e": bessel_i0e, "bessel_i1e": bessel_i1e}
"""Their examples run with this module's doctests (the functions are made in ``_lax``)."""
