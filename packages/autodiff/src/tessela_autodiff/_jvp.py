"""Forward mode: the JVP rule table, the JVP trace and its tracer, the JVP of a jaxpr."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from tessela_tracer import ClosedJaxpr, Primitive, ShapedArray, Trace, Tracer
from tessela_tracer.extend import (
    eval_jaxpr,
    get_aval_of,
    get_current_trace,
    new_trace,
    set_current_trace,
    tangent_aval,
    trace_with_aux,
)
from tessela_tracer.typing import ArrayLike, Value

from tessela_autodiff._ad_util import Tangent, Zero, instantiate, is_differentiable

__all__ = ["JVPTrace", "JVPTracer", "jvp_flat", "jvp_jaxpr", "register_jvp"]

Aux = TypeVar("Aux")

JVPRule = Callable[..., tuple[Any, Any]]

_jvp_rules: dict[Primitive, JVPRule] = {}


def register_jvp(prim: Primitive, rule: JVPRule, /) -> None:
    """Register the forward-mode rule of a primitive.

    ``rule(primals, tangents, **params)`` receives the operands and their
    tangents (a :class:`Zero` where a tangent vanishes) and returns
    ``(primal_out, tangent_out)`` (lists for ``multiple_results`` primitives).
    It runs under the trace that was current outside the JVP, so it simply
    calls primitives on its inputs.

    Args:
      prim: the primitive.
      rule: the rule.

    Returns:
      None.

    Example:
        >>> from tessela_tracer import Primitive, register_abstract_eval, lax
        >>> twice_p = Primitive("twice_example")
        >>> register_abstract_eval(twice_p, lambda x: x)
        >>> register_jvp(twice_p, lambda p, t: (twice_p.bind(p[0]), lax.mul(2.0, t[0])))
    """
    _jvp_rules[prim] = rule


def jvp_rule(prim: Primitive, /) -> JVPRule:
    """The registered JVP rule of ``prim``; ``NotImplementedError`` names the fix."""
    rule = _jvp_rules.get(prim)
    if rule is None:
        raise NotImplementedError(
            f"Differentiation rule for '{prim.name}' not implemented; register one with "
            "tessela_autodiff.register_jvp"
        )
    return rule


class JVPTracer(Tracer):
    """A primal value paired with its tangent inside a JVP trace."""

    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal: ArrayLike, tangent: Tangent) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        """The primal's abstract value."""
        return get_aval_of(self.primal)

    def to_concrete_value(self) -> ArrayLike | None:
        """The primal's concrete value, when it has one (Python control flow)."""
        p = self.primal
        if isinstance(p, Tracer):
            return cast("ArrayLike | None", p.to_concrete_value())
        return p


class JVPTrace(Trace):
    """Pushes tangents forward through each primitive with its JVP rule."""

    __slots__ = ()
    tracer_name = "JVPTracer"

    def to_primal_tangent(self, x: ArrayLike) -> tuple[ArrayLike, Tangent]:
        """Split an operand into its primal and tangent (a Zero for constants)."""
        if type(x) is JVPTracer and x._trace is self:
            return x.primal, x.tangent
        return x, Zero.from_primal(x)

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Value | list[Value]:
        primals: list[object] = []
        tangents: list[Tangent] = []
        nonzero = False
        for x in args:
            if type(x) is JVPTracer and x._trace is self:
                primals.append(x.primal)
                tangents.append(x.tangent)
                nonzero = nonzero or type(x.tangent) is not Zero
            else:
                primals.append(x)
                tangents.append(Zero.from_primal(x))
        parent = self.parent
        assert parent is not None
        with set_current_trace(parent):
            if not nonzero:
                out: Value | list[Value] = prim.bind(*primals, **params)
                return out
            primal_out, tangent_out = jvp_rule(prim)(primals, tangents, **params)
        if prim.multiple_results:
            return [self.box(p, t) for p, t in zip(primal_out, tangent_out, strict=True)]
        return self.box(primal_out, tangent_out)

    def box(self, primal: ArrayLike, tangent: Tangent) -> ArrayLike:
        """Wrap a result; a symbolic-zero tangent leaves the bare primal."""
        if type(tangent) is Zero:
            return primal
        return JVPTracer(self, primal, tangent)


def jvp_flat(
    fun: Callable[..., tuple[Sequence[ArrayLike], Aux]],
    primals: Sequence[ArrayLike],
    tangents: Sequence[Tangent],
    /,
) -> tuple[list[ArrayLike], list[Tangent], Aux]:
    """Run ``fun`` on flat primals and tangents (``Zero`` allowed) under a new JVP trace.

    Args:
      fun: ``fun(*xs) -> (outputs, aux)``; ``aux`` is any Python value computed
        while it runs (an output tree), passed through.
      primals: the flat inputs.
      tangents: their tangents.

    Returns:
      ``(primals_out, tangents_out, aux)``; absent tangents are ``Zero``.
    """
    trace = JVPTrace(get_current_trace())
    with new_trace(trace):
        ins = [
            JVPTracer(trace, p, t)
            if type(t) is not Zero and is_differentiable(get_aval_of(p))
            else p
            for p, t in zip(primals, tangents, strict=True)
        ]
        outs, aux = fun(*ins)
        primals_out = []
        tangents_out = []
        for o in outs:
            if type(o) is JVPTracer and o._trace is trace:
                primals_out.append(o.primal)
                tangents_out.append(o.tangent)
            else:
                primals_out.append(o)
                tangents_out.append(Zero(tangent_aval(get_aval_of(o))))
    return primals_out, tangents_out, aux


def jvp_jaxpr(
    closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate_out: Sequence[bool], /
) -> tuple[ClosedJaxpr, list[ArrayLike], list[bool]]:
    """The JVP of a jaxpr as a jaxpr.

    Args:
      closed: the program.
      nonzeros: which inputs have a (non-symbolic-zero) tangent.
      instantiate_out: which outputs must get a tangent even if it is zero.

    Returns:
      ``(jvp, consts, out_nonzeros)``: ``jvp`` takes ``consts``, the primals and
      the nonzero tangents, and returns the primal outputs then the nonzero
      output tangents.
    """
    avals = closed.in_avals
    n = len(avals)
    nz_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros, strict=True) if nz]

    def run(*xs: ArrayLike) -> tuple[list[ArrayLike], None]:
        return eval_jaxpr(closed.jaxpr, closed.consts, *xs), None

    def fun(*args: ArrayLike) -> tuple[list[ArrayLike], list[bool]]:
        it = iter(args[n:])
        tangents = [
            next(it) if nz else Zero(tangent_aval(a)) for a, nz in zip(avals, nonzeros, strict=True)
        ]
        outs, touts, _ = jvp_flat(run, args[:n], tangents)
        out_nz = [
            is_differentiable(get_aval_of(o)) and (type(t) is not Zero or inst)
            for o, t, inst in zip(outs, touts, instantiate_out, strict=True)
        ]
        nz_touts = [instantiate(t) for t, nz in zip(touts, out_nz, strict=True) if nz]
        return [*outs, *nz_touts], out_nz

    return trace_with_aux(fun, [*avals, *nz_avals])
