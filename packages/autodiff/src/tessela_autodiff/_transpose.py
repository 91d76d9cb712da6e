"""Reverse mode: the transpose rule table and the backward pass over linear jaxprs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from tessela_tracer import ClosedJaxpr, Jaxpr, Literal, Primitive, ShapedArray, Var
from tessela_tracer.extend import hoist_consts, trace_to_jaxpr
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import (
    Tangent,
    UndefinedPrimal,
    Zero,
    add_tangents,
    instantiate,
    is_undefined,
)

__all__ = ["backward_pass", "register_transpose", "transpose_jaxpr"]

TransposeRule = Callable[..., Sequence[Any]]

_transpose_rules: dict[Primitive, TransposeRule] = {}


def register_transpose(prim: Primitive, rule: TransposeRule, /) -> None:
    """Register the transpose rule of a primitive that is linear in some operands.

    ``rule(cts, *operands, **params)`` receives the output cotangent(s) (a
    :class:`Zero` where it vanishes; a list for ``multiple_results``
    primitives) and the operands, where each linear operand is an
    :class:`UndefinedPrimal` carrying only its aval. It returns one entry per
    operand: the cotangent of each linear operand, ``None`` for the others.

    Args:
      prim: the primitive.
      rule: the rule.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval, lax
        >>> twice_p = Primitive("twice_transpose_example")
        >>> register_abstract_eval(twice_p, lambda x: x)
        >>> register_transpose(twice_p, lambda ct, x: [lax.mul(2.0, ct)])
    """
    _transpose_rules[prim] = rule


def transpose_rule(prim: Primitive, /) -> TransposeRule:
    """The registered transpose rule of ``prim``; ``NotImplementedError`` names the fix."""
    rule = _transpose_rules.get(prim)
    if rule is None:
        raise NotImplementedError(
            f"Transpose rule (for reverse-mode differentiation) for '{prim.name}' not "
            "implemented; register one with tessela_autodiff.register_transpose"
        )
    return rule


def backward_pass(
    jaxpr: Jaxpr,
    consts: Sequence[ArrayLike],
    args: Sequence[ArrayLike | UndefinedPrimal],
    cts_out: Sequence[Tangent],
    /,
) -> list[Tangent | None]:
    """Propagate output cotangents back to the linear inputs of a jaxpr.

    Equations whose operands are all known run forward first (under the
    current trace); the others are transposed in reverse order.

    Args:
      jaxpr: a program linear in the inputs given as :class:`UndefinedPrimal`.
      consts: values of its constvars.
      args: one entry per input: a value, or an UndefinedPrimal for linear ones.
      cts_out: one cotangent (or :class:`Zero`) per output.

    Returns:
      One cotangent per input (``Zero`` where none flows, None for known inputs).
    """
    primal_env: dict[Any, Any] = {}
    linear: set[Any] = set()
    for v, c in zip(jaxpr.constvars, consts, strict=True):
        primal_env[v] = c
    for v, a in zip(jaxpr.invars, args, strict=True):
        if is_undefined(a):
            linear.add(v)
        else:
            primal_env[v] = a
    lin_eqns = []
    for eqn in jaxpr.eqns:
        if any(type(a) is not Literal and a in linear for a in eqn.invars):
            lin_eqns.append(eqn)
            linear.update(eqn.outvars)
            continue
        invals = [a.val if type(a) is Literal else primal_env[a] for a in eqn.invars]
        out = eqn.primitive.bind(*invals, **eqn.params)
        if eqn.primitive.multiple_results:
            primal_env.update(zip(eqn.outvars, out, strict=True))
        else:
            primal_env[eqn.outvars[0]] = out

    ct_env: dict[Any, Any] = {}

    def write(v: Var | Literal, ct: Tangent | None) -> None:
        if ct is None or type(ct) is Zero or type(v) is Literal or v not in linear:
            return
        prev = ct_env.get(v)
        ct_env[v] = ct if prev is None else add_tangents(prev, ct)

    for out, ct in zip(jaxpr.outvars, cts_out, strict=True):
        write(out, ct)
    for eqn in reversed(lin_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(c is None for c in cts):
            continue
        cts = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, cts, strict=True)]
        invals = [
            a.val
            if type(a) is Literal
            else (UndefinedPrimal(a.aval) if a in linear else primal_env[a])
            for a in eqn.invars
        ]
        rule = transpose_rule(eqn.primitive)
        cts_in = rule(cts if eqn.primitive.multiple_results else cts[0], *invals, **eqn.params)
        for atom, ct in zip(eqn.invars, cts_in, strict=True):
            write(atom, ct)
    return [(ct_env.get(v, Zero(v.aval)) if v in linear else None) for v in jaxpr.invars]


def transpose_jaxpr(
    closed: ClosedJaxpr, linear: Sequence[bool], /
) -> tuple[ClosedJaxpr, list[ArrayLike]]:
    """Build the transpose of a jaxpr linear in the flagged inputs.

    Args:
      closed: the program (consts allowed).
      linear: one flag per input.

    Returns:
      ``(transposed, consts)``: ``transposed`` takes ``consts``, then the
      non-linear inputs, then one cotangent per output, and returns one
      cotangent (instantiated) per linear input.
    """
    in_avals = closed.in_avals
    res_avals: list[ShapedArray] = [a for a, lin in zip(in_avals, linear, strict=True) if not lin]
    nres = len(res_avals)

    def fun(*args: ArrayLike) -> list[ArrayLike]:
        res, cts = list(args[:nres]), list(args[nres:])
        it = iter(res)
        ins = [
            UndefinedPrimal(a) if lin else next(it) for a, lin in zip(in_avals, linear, strict=True)
        ]
        outs = backward_pass(closed.jaxpr, closed.consts, ins, cts)
        # Every linear input gets a cotangent (None only marks the others).
        return [instantiate(cast(Tangent, ct)) for ct, lin in zip(outs, linear, strict=True) if lin]

    return hoist_consts(trace_to_jaxpr(fun, [*res_avals, *closed.out_avals]))
