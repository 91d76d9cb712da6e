"""Custom derivative rules: ``custom_jvp``, ``custom_vjp`` and the values their rules see.

The names follow ``jax.custom_derivatives``: :class:`SymbolicZero` is a zero
tangent or cotangent handed to rules defined with ``symbolic_zeros=True``,
:class:`CustomVJPPrimal` a primal argument of such a fwd rule.
"""

from tessela_tracer._custom import custom_jvp, custom_vjp
from tessela_tracer._custom_rules import (
    CustomVJPPrimal,
    SymbolicZero,
    custom_vjp_primal_tree_values,
    zero_from_primal,
)

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "custom_jvp",
    "custom_vjp",
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]
