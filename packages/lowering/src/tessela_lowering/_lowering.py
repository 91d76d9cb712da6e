"""The lowering rule table and the jaxpr-to-StableHLO translation.

A lowering rule turns one equation into StableHLO ops::

    rule(ctx: LoweringRuleContext, *operands: Value, **params) -> Sequence[Value]

It always returns a sequence (one value per output). Rules are registered per
primitive with :func:`register_lowering`, optionally per platform; the
platform-specific rule wins over the generic one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import ClosedJaxpr, Jaxpr, Literal, Primitive, ShapedArray

from tessela_lowering import _hlo
from tessela_lowering._xla import Value

__all__ = [
    "LoweringRule",
    "LoweringRuleContext",
    "has_lowering",
    "jaxpr_to_module",
    "lower_jaxpr",
    "lowering_rule",
    "register_lowering",
]

LoweringRule = Callable[..., Sequence[Value]]

_rules: dict[Primitive, dict[str | None, LoweringRule]] = {}
_on_register: list[Callable[[Primitive], None]] = []


class LoweringRuleContext:
    """What a lowering rule knows besides its operands.

    Attributes:
      primitive: the primitive being lowered.
      avals_in: abstract values of the operands.
      avals_out: abstract values of the results.
      platform: the platform compiled for ("cpu", "cuda", "rocm", "tpu").
    """

    __slots__ = ("avals_in", "avals_out", "platform", "primitive")

    def __init__(
        self,
        primitive: Primitive,
        avals_in: Sequence[ShapedArray],
        avals_out: Sequence[ShapedArray],
        platform: str,
    ) -> None:
        self.primitive = primitive
        self.avals_in = list(avals_in)
        self.avals_out = list(avals_out)
        self.platform = platform


def register_lowering(prim: Primitive, rule: LoweringRule, /, platform: str | None = None) -> None:
    """Register how ``prim`` lowers to StableHLO.

    Args:
      prim: the primitive.
      rule: ``rule(ctx, *operands, **params)`` returning one value per output.
      platform: restrict the rule to one platform ("cpu", "cuda", "rocm",
        "tpu"); ``None`` for every platform.

    Returns:
      None.

    Example:
      >>> from tessela_tracer import Primitive
      >>> from tessela_lowering import register_lowering
      >>> from tessela_lowering._xla import stablehlo
      >>> twice_p = Primitive("twice_doc")
      >>> register_lowering(twice_p, lambda ctx, x: [stablehlo.AddOp(x, x).result])
    """
    _rules.setdefault(prim, {})[platform] = rule
    for hook in _on_register:
        hook(prim)


def lowering_rule(prim: Primitive, platform: str, /) -> LoweringRule | None:
    """The rule that lowers ``prim`` on ``platform``, or ``None``."""
    table = _rules.get(prim)
    if table is None:
        return None
    return table.get(platform) or table.get(None)


def has_lowering(prim: Primitive, /) -> bool:
    """Whether any lowering rule is registered for ``prim``."""
    return prim in _rules


def _atom_value(env: dict[Any, Value], atom: Any) -> Value:
    if isinstance(atom, Literal):
        return _hlo.constant(np.asarray(atom.val, dtype=atom.aval.dtype))
    return env[atom]


def lower_jaxpr(
    jaxpr: Jaxpr, consts: Sequence[Value], args: Sequence[Value], *, platform: str
) -> list[Value]:
    """Emit the ops of ``jaxpr`` at the current insertion point.

    Args:
      jaxpr: the program.
      consts: values for its constvars.
      args: values for its invars.
      platform: the platform compiled for.

    Returns:
      The values of its outvars.

    Raises:
      NotImplementedError: a primitive has no lowering rule for ``platform``.
    """
    env: dict[Any, Value] = {}
    for var, val in zip(jaxpr.constvars, consts, strict=True):
        env[var] = val
    for var, val in zip(jaxpr.invars, args, strict=True):
        env[var] = val
    for eqn in jaxpr.eqns:
        rule = lowering_rule(eqn.primitive, platform)
        if rule is None:
            raise NotImplementedError(
                f"no lowering rule for primitive {eqn.primitive.name!r} on platform "
                f"{platform!r}; register one with "
                f"tessela_lowering.register_lowering({eqn.primitive.name}_p, rule)."
            )
        ctx = LoweringRuleContext(
            eqn.primitive,
            [v.aval for v in eqn.invars],
            [v.aval for v in eqn.outvars],
            platform,
        )
        outs = rule(ctx, *(_atom_value(env, a) for a in eqn.invars), **eqn.params)
        for var, val in zip(eqn.outvars, outs, strict=True):
            env[var] = val
    return [_atom_value(env, v) for v in jaxpr.outvars]


def jaxpr_to_module(
    closed: ClosedJaxpr,
    /,
    *,
    platform: str,
    name: str = "main",
    donated_outputs: Sequence[int | None] | None = None,
    donors: Sequence[bool] | None = None,
) -> str:
    """Lower a closed jaxpr to a StableHLO module with entry ``@main``.

    Args:
      closed: the program; its consts are embedded as constants.
      platform: the platform compiled for.
      name: the module's name.
      donated_outputs: per input, the output index that reuses its buffer.
      donors: per input, whether it is donated without a chosen output.

    Returns:
      The module text.
    """
    jaxpr = closed.jaxpr
    n = len(jaxpr.invars)
    aliases = list(donated_outputs) if donated_outputs is not None else [None] * n
    donor_flags = list(donors) if donors is not None else [False] * n
    args = [
        _hlo.ArgSpec(v.aval.shape, v.aval.dtype, alias_output=a, donor=d)
        for v, a, d in zip(jaxpr.invars, aliases, donor_flags, strict=True)
    ]
    results = [(v.aval.shape, v.aval.dtype) for v in jaxpr.outvars]

    def body(values: list[Value]) -> list[Value]:
        consts = [
            _hlo.constant(np.asarray(c, dtype=v.aval.dtype))
            for v, c in zip(jaxpr.constvars, closed.consts, strict=True)
        ]
        return lower_jaxpr(jaxpr, consts, values, platform=platform)

    return _hlo.build_module(args, results, body, name=name)
