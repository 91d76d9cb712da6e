"""Batching rules of the special-function family (incomplete gamma and beta, Bessel).

Every primitive of the family is elementwise: ``bessel_i0e`` and
``bessel_i1e`` keep their operand's batch dimension (:func:`defvectorized`);
the two- and three-operand ones (``igamma``, ``igammac``, ``igamma_grad_a``,
``random_gamma_grad``, ``regularized_incomplete_beta``) broadcast their
operands to one batch axis (:func:`defbroadcasting`).
"""

from __future__ import annotations

from tessela_tracer import primitives as P

from tessela_batching._rule_helpers import defbroadcasting, defvectorized

__all__: list[str] = []

defvectorized(P.bessel_i0e_p)
defvectorized(P.bessel_i1e_p)
defbroadcasting(P.igamma_p)
defbroadcasting(P.igammac_p)
defbroadcasting(P.igamma_grad_a_p)
defbroadcasting(P.random_gamma_grad_p)
defbroadcasting(P.regularized_incomplete_beta_p)
