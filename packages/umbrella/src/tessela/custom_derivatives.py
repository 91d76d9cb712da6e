"""``tessela.custom_derivatives``: the ``jax.custom_derivatives`` names.

``custom_jvp``, ``custom_vjp``, ``SymbolicZero``, ``CustomVJPPrimal``,
``zero_from_primal`` and ``custom_vjp_primal_tree_values`` are the tracer's,
with the primitives ``custom_jvp_call_p`` and ``custom_vjp_call_p``;
``custom_gradient``, ``closure_convert`` and ``linear_call`` are the umbrella's.

Example:
    >>> from tessela.custom_derivatives import SymbolicZero, custom_jvp
    >>> custom_jvp is __import__("tessela").custom_jvp
    True
"""

from tessela_tracer.custom_derivatives import (
    CustomVJPPrimal,
    SymbolicZero,
    custom_jvp,
    custom_vjp,
    custom_vjp_primal_tree_values,
    zero_from_primal,
)
from tessela_tracer.primitives import custom_jvp_call_p, custom_vjp_call_p

from ._closure import closure_convert, custom_gradient, linear_call

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "closure_convert",
    "custom_gradient",
    "custom_jvp",
    "custom_jvp_call_p",
    "custom_vjp",
    "custom_vjp_call_p",
    "custom_vjp_primal_tree_values",
    "linear_call",
    "zero_from_primal",
]
