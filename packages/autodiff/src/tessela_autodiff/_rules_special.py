r"""JVP rules of the special-function family (incomplete gamma and beta, Bessel).

The derivatives are JAX 0.10.2's:

- ``igamma(a, x)``: :math:`\partial_a P = ` ``igamma_grad_a(a, x)`` and
  :math:`\partial_x P = e^{-x} x^{a - 1} / \Gamma(a)`; ``igammac`` is their
  negation.
- ``regularized_incomplete_beta(a, b, x)``: :math:`\partial_x I_x(a, b) =
  x^{a - 1} (1 - x)^{b - 1} / B(a, b)`; the derivatives in ``a`` and ``b``
  raise ``ValueError``, as in JAX.
- ``bessel_i0e``: :math:`i_1^e(x) - \operatorname{sign}(x)\, i_0^e(x)`;
  ``bessel_i1e``: :math:`i_0^e(x) - i_1^e(x) (\operatorname{sign}(x) + 1/x)`,
  ``1/2`` where ``|x|`` is below the dtype's epsilon.
- ``igamma_grad_a`` and ``random_gamma_grad`` have no derivative: their rules
  raise ``NotImplementedError`` naming the primitive (JAX has no rule for the
  first, and computes the second inline with loops reverse mode cannot cross).
"""

from __future__ import annotations

from typing import Any, NoReturn

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import finfo
from tessela_tracer.extend import get_aval_of

from tessela_autodiff._rule_helpers import const, defjvp

__all__: list[str] = []


def _igamma_grad_x(g: Any, ans: Any, a: Any, x: Any) -> Any:
    logpdf = lax.sub(lax.sub(lax.mul(lax.sub(a, const(a, 1.0)), lax.log(x)), x), lax.lgamma(a))
    return lax.mul(g, lax.exp(logpdf))


def _igamma_grad_a(g: Any, ans: Any, a: Any, x: Any) -> Any:
    return lax.mul(g, lax.igamma_grad_a(a, x))


defjvp(P.igamma_p, _igamma_grad_a, _igamma_grad_x)
defjvp(
    P.igammac_p,
    lambda g, ans, a, x: lax.neg(_igamma_grad_a(g, ans, a, x)),
    lambda g, ans, a, x: lax.neg(_igamma_grad_x(g, ans, a, x)),
)


def _no_rule(name: str) -> Any:
    def rule(g: object, ans: object, *args: object) -> NoReturn:
        raise NotImplementedError(
            f"Differentiation rule for '{name}' not implemented: it is itself a derivative; "
            f"take the derivative you need with finite differences or stop_gradient its inputs"
        )

    return rule


defjvp(P.igamma_grad_a_p, _no_rule("igamma_grad_a"), _no_rule("igamma_grad_a"))
defjvp(P.random_gamma_grad_p, _no_rule("random_gamma_grad"), _no_rule("random_gamma_grad"))


def _betainc_grad_ab(g: Any, ans: Any, a: Any, b: Any, x: Any) -> Any:
    raise ValueError(
        "Betainc gradient with respect to a and b not supported: differentiate with respect "
        "to x only (pass a and b as constants, or through lax.stop_gradient)"
    )


def _betainc_grad_x(g: Any, ans: Any, a: Any, b: Any, x: Any) -> Any:
    lbeta = lax.sub(lax.add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(lax.add(a, b)))
    log_pdf = lax.add(
        lax.mul(lax.sub(b, const(b, 1.0)), lax.log1p(lax.neg(x))),
        lax.mul(lax.sub(a, const(a, 1.0)), lax.log(x)),
    )
    return lax.mul(lax.exp(lax.sub(log_pdf, lbeta)), g)


defjvp(P.regularized_incomplete_beta_p, _betainc_grad_ab, _betainc_grad_ab, _betainc_grad_x)


def _i0e_grad(g: Any, ans: Any, x: Any) -> Any:
    return lax.mul(g, lax.sub(lax.bessel_i1e(x), lax.mul(lax.sign(x), ans)))


defjvp(P.bessel_i0e_p, _i0e_grad)


def _i1e_grad(g: Any, ans: Any, x: Any) -> Any:
    dtype = get_aval_of(x).dtype
    eps = const(x, finfo(dtype).eps)
    not_tiny = lax.gt(lax.abs(x), eps)
    safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
    slope = lax.sub(
        lax.bessel_i0e(safe_x),
        lax.mul(ans, lax.add(lax.sign(safe_x), lax.div(const(x, 1.0), safe_x))),
    )
    return lax.mul(g, lax.select(not_tiny, slope, lax.full_like(x, 0.5)))


defjvp(P.bessel_i1e_p, _i1e_grad)
