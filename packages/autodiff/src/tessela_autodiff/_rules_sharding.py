"""JVP and transpose rules of ``sharding_constraint``.

The constraint is the identity on values, so it is linear: the tangent is the
input tangent under the same constraint, and the cotangent of the input is
the output cotangent under the same constraint (as JAX's rules, so that the
backward pass is laid out as the forward one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P

from tessela_autodiff._rule_helpers import deflinear

__all__: list[str] = []


def _sharding_constraint_transpose(ct: Any, **params: Any) -> Sequence[Any]:
    return [P.sharding_constraint_p.bind(ct, **params)]


deflinear(P.sharding_constraint_p, _sharding_constraint_transpose)
