"""Partial evaluation: known work runs now, work on unknown values is staged.

Reverse mode linearizes a function by running its JVP on top of a
:class:`PartialEvalTrace` whose unknowns are the input tangents: primal work
(all operands known) runs under the enclosing trace, and tangent work is
recorded into a linear jaxpr whose constants are the residuals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tessela_tracer import ClosedJaxpr, Primitive, ShapedArray, Tracer, Var
from tessela_tracer.extend import (
    JaxprTrace,
    eval_jaxpr,
    get_current_trace,
    hoist_consts,
    set_current_trace,
    trace_with_aux,
)
from tessela_tracer.typing import ArrayLike, Value

__all__ = ["PartialEvalTrace", "partial_eval_jaxpr", "register_partial_eval"]

_T = TypeVar("_T")

PartialEvalRule = Callable[["PartialEvalTrace", Sequence[Any], dict[str, Any]], Any]

_partial_eval_rules: dict[Primitive, PartialEvalRule] = {}


def register_partial_eval(prim: Primitive, rule: PartialEvalRule, /) -> None:
    """Register how a higher-order primitive splits into known and staged parts.

    ``rule(trace, args, params)`` receives operands of which some are the
    trace's own (unknown) tracers; it runs the known part under
    ``trace.parent`` and stages the rest with :meth:`PartialEvalTrace.stage`.
    Primitives without a rule are staged whole when any operand is unknown.

    Args:
      prim: the primitive.
      rule: the rule.

    Returns:
      None.
    """
    _partial_eval_rules[prim] = rule


class PartialEvalTrace(JaxprTrace):
    """A jaxpr-building trace that evaluates equations whose operands are all known."""

    __slots__ = ()
    tracer_name = "JitTracer"

    def is_unknown(self, x: object) -> bool:
        """Whether ``x`` is one of this trace's (unknown) tracers."""
        return isinstance(x, Tracer) and x._trace is self

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Value | list[Value]:
        for x in args:
            if isinstance(x, Tracer) and x._trace is self:
                break
        else:
            parent = self.parent
            assert parent is not None
            with set_current_trace(parent):
                out: Value | list[Value] = prim.bind(*args, **params)
            return out
        rule = _partial_eval_rules.get(prim)
        if rule is not None:
            out = rule(self, args, params)
            return out
        out = self.stage(prim, args, params)
        return out

    def stage(self, prim: Primitive, args: Sequence[object], params: dict[str, Any]) -> Any:
        """Record ``prim`` as an equation of the staged jaxpr (known operands become residuals)."""
        return JaxprTrace.process_primitive(self, prim, args, params)

    def known(self, prim: Primitive, args: Sequence[object], params: dict[str, Any]) -> Any:
        """Run ``prim`` on known operands under the enclosing trace."""
        parent = self.parent
        assert parent is not None
        with set_current_trace(parent):
            return prim.bind(*args, **params)


def partial_eval_jaxpr(
    closed: ClosedJaxpr,
    unknowns: Sequence[bool],
    instantiate: bool | Sequence[bool],
    /,
) -> tuple[ClosedJaxpr, list[ArrayLike], ClosedJaxpr, list[bool], int]:
    """Split a jaxpr into a known part and a staged part given unknown inputs.

    Args:
      closed: the program (no constvars needed).
      unknowns: one flag per input.
      instantiate: outputs to force into the staged part (one flag per output, or one for all).

    Returns:
      ``(known, known_consts, staged, out_unknowns, num_res)``: ``known`` takes
      ``known_consts`` then the known inputs, and returns the known outputs
      followed by ``num_res`` residuals; ``staged`` maps the residuals
      followed by the unknown inputs to the unknown outputs. Both are
      const-free.
    """
    avals = closed.in_avals
    nout = len(closed.jaxpr.outvars)
    inst = [instantiate] * nout if isinstance(instantiate, bool) else list(instantiate)

    def known_fun(
        *known_ins: ArrayLike,
    ) -> tuple[list[ArrayLike], tuple[ClosedJaxpr, list[bool], int]]:
        pe = PartialEvalTrace(get_current_trace())
        it = iter(known_ins)
        ins = [pe.new_arg(a) if u else next(it) for a, u in zip(avals, unknowns, strict=True)]
        with set_current_trace(pe):
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
        out_uk = [pe.is_unknown(o) or i for o, i in zip(outs, inst, strict=True)]
        staged = pe.to_closed_jaxpr([o for o, u in zip(outs, out_uk, strict=True) if u])
        pe.valid = False
        known_outs = [o for o, u in zip(outs, out_uk, strict=True) if not u]
        # The residuals are values of the trace that runs known_fun: they leave
        # it as outputs, never in the side value, which outlives the trace.
        staged_free, residuals = hoist_consts(staged)
        return [*known_outs, *residuals], (staged_free, out_uk, len(residuals))

    known_avals = [a for a, u in zip(avals, unknowns, strict=True) if not u]
    known, known_consts, (staged_jaxpr, out_uk, nres) = trace_with_aux(known_fun, known_avals)
    return known, known_consts, staged_jaxpr, out_uk, nres


def split_by(xs: Sequence[_T], mask: Sequence[bool], /) -> tuple[list[_T], list[_T]]:
    """``(unflagged, flagged)``: the items of ``xs`` whose flag is False, then those whose flag is True."""
    yes = [x for x, m in zip(xs, mask, strict=True) if m]
    no = [x for x, m in zip(xs, mask, strict=True) if not m]
    return no, yes


def merge_by(mask: Sequence[bool], no: Sequence[_T], yes: Sequence[_T], /) -> list[_T]:
    """The inverse of :func:`split_by`: interleave two lists by the flags."""
    it_no, it_yes = iter(no), iter(yes)
    return [next(it_yes) if m else next(it_no) for m in mask]


def drop_outputs(closed: ClosedJaxpr, keep: int, /) -> ClosedJaxpr:
    """Keep only the first ``keep`` outputs of a jaxpr."""
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(outvars=list(j.outvars[:keep])), closed.consts)


def permute_inputs(closed: ClosedJaxpr, order: Sequence[int], /) -> ClosedJaxpr:
    """Reorder a jaxpr's inputs: new input ``k`` is old input ``order[k]``."""
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(invars=[j.invars[i] for i in order]), closed.consts)


def add_unused_inputs(
    closed: ClosedJaxpr, before: Sequence[ShapedArray], after: Sequence[ShapedArray], /
) -> ClosedJaxpr:
    """Give a jaxpr extra ignored inputs before and after its own."""
    j = closed.jaxpr
    invars = [Var(a) for a in before] + list(j.invars) + [Var(a) for a in after]
    return ClosedJaxpr(j.replace(invars=invars), closed.consts)


def permute_outputs(closed: ClosedJaxpr, order: Sequence[int], /) -> ClosedJaxpr:
    """Reorder a jaxpr's outputs: new output ``k`` is old output ``order[k]``."""
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(outvars=[j.outvars[i] for i in order]), closed.consts)
