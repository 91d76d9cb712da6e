"""JVP rules of the typed-key primitives ``random_wrap`` and ``random_unwrap``.

Keys and their ``uint32`` data are not differentiable: both primitives have
``float0`` tangents (a symbolic zero), as in JAX, so a function taking a key
differentiates with respect to its other arguments. Neither is linear in a
differentiable value, so there is no transpose rule.
"""

from __future__ import annotations

from tessela_tracer import primitives as P

from tessela_autodiff._rule_helpers import defjvp_zero

__all__: list[str] = []

defjvp_zero(P.random_wrap_p)
defjvp_zero(P.random_unwrap_p)
