"""The interval transformation: its Trace, its Tracer and ``interval(fun)``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from tessela_pytree import tree_flatten, tree_unflatten
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    ClosedJaxpr,
    DebugInfo,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    debug_info_for,
    eval_jaxpr,
    get_aval_of,
    hoist_consts,
    new_trace,
    set_current_trace,
    trace_to_jaxpr,
)

from tessela_interval._rules import Pair, hull_select, interval_rule, is_point

__all__ = ["Interval", "IntervalTrace", "IntervalTracer", "interval"]


class Interval(NamedTuple):
    """Bounds ``lo <= x <= hi`` of an array, elementwise; a pytree with two leaves.

    Example:
        >>> Interval(0.0, 1.0).hi
        1.0
    """

    lo: Any
    hi: Any


class IntervalTracer(Tracer):
    """A value known only by its bounds, inside an :class:`IntervalTrace`."""

    __slots__ = ("hi", "lo")

    def __init__(self, trace: IntervalTrace, lo: Any, hi: Any) -> None:
        super().__init__(trace)
        self.lo = lo
        self.hi = hi

    @property
    def aval(self) -> ShapedArray:
        """The abstract value of the bounds."""
        return get_aval_of(self.lo)

    def to_concrete_value(self) -> Any:
        """The value when both bounds are concrete and equal (a comparison known for sure)."""
        lo, hi = _concrete(self.lo), _concrete(self.hi)
        if lo is None or hi is None or not np.array_equal(np.asarray(lo), np.asarray(hi)):
            return None
        return lo


def _concrete(x: Any) -> Any:
    return x.to_concrete_value() if isinstance(x, Tracer) else x


class IntervalTrace(Trace):
    """Runs each primitive's interval rule on the bounds of its operands.

    Values that are not this trace's tracers are exact: ``(x, x)``. Rules run
    under the parent trace, so the bounds themselves can be traced, differentiated
    or batched by the transformations around ``interval``. ``jit`` calls stay
    staged (their body is transformed into a new ``jit`` on the bounds); ``cond``,
    ``custom_jvp``/``custom_vjp`` calls and ``checkpoint`` are evaluated inline.
    """

    __slots__ = ("debug_info",)
    tracer_name = "IntervalTracer"

    def __init__(self, debug_info: DebugInfo | None = None) -> None:
        super().__init__()
        self.debug_info = debug_info

    def to_pair(self, x: Any) -> Pair:
        """The bounds of ``x``: its own if it is one of this trace's tracers, else ``(x, x)``."""
        if isinstance(x, IntervalTracer) and self.owns(x):
            return x.lo, x.hi
        return x, x

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        """Apply ``prim``'s interval rule (or stage, or inline, a higher-order one)."""
        parent = self.parent
        assert parent is not None
        if not any(self.owns(a) for a in args):
            with set_current_trace(parent):
                return prim.bind(*args, **params)
        inline = _inline_jaxpr(prim, params)
        if inline is not None:
            # Evaluated with this trace current, so each equation comes back here.
            return eval_jaxpr(inline.jaxpr, inline.consts, *args)
        pairs = [self.to_pair(a) for a in args]
        if all(is_point(p) for p in pairs):
            # Exact operands give exact results: one evaluation, kept exact.
            with set_current_trace(parent):
                out = prim.bind(*(p[0] for p in pairs), **params)
            if prim.multiple_results:
                return [IntervalTracer(self, o, o) for o in out]
            return IntervalTracer(self, out, out)
        if prim is P.jit_p:
            return self._stage_jit(pairs, params)
        if prim is P.cond_p:
            return self._cond(args, params)
        rule = interval_rule(prim)
        if rule is None:
            raise NotImplementedError(
                f"interval: no interval rule for primitive {prim.name!r}; give it one with "
                "tessela_interval.register_interval_rule(prim, rule)."
            )
        with set_current_trace(parent):
            out = rule(*pairs, **params)
        if prim.multiple_results:
            return [IntervalTracer(self, lo, hi) for lo, hi in out]
        return IntervalTracer(self, *out)

    def _stage_jit(self, pairs: list[Pair], params: dict[str, Any]) -> list[IntervalTracer]:
        body: ClosedJaxpr = params["jaxpr"]
        flat = [v for pair in pairs for v in pair]

        def bounds_fun(*xs: Any) -> list[Any]:
            with new_trace(IntervalTrace(self.debug_info)) as inner:
                ins = [IntervalTracer(inner, xs[2 * i], xs[2 * i + 1]) for i in range(len(pairs))]
                outs = eval_jaxpr(body.jaxpr, body.consts, *ins)
                return [v for o in outs for v in inner.to_pair(o)]

        assert self.parent is not None
        with set_current_trace(self.parent):
            jaxpr, consts = hoist_consts(trace_to_jaxpr(bounds_fun, [get_aval_of(v) for v in flat]))
            operands = [*consts, *flat]
            outs = P.jit_p.bind(
                *operands,
                jaxpr=jaxpr,
                name=params["name"],
                donated_invars=(False,) * len(operands),
                keep_unused=params["keep_unused"],
                inline=params["inline"],
            )
        return [IntervalTracer(self, outs[i], outs[i + 1]) for i in range(0, len(outs), 2)]

    def _cond(self, args: Sequence[Any], params: dict[str, Any]) -> list[IntervalTracer]:
        index, *ops = args
        # Every branch the index may take runs; the result is the hull of theirs.
        results = [eval_jaxpr(b.jaxpr, b.consts, *ops) for b in params["branches"]]
        which = self.to_pair(index)
        assert self.parent is not None
        with set_current_trace(self.parent):
            hulls = [
                hull_select(which, [self.to_pair(r[k]) for r in results])
                for k in range(len(results[0]))
            ]
        return [IntervalTracer(self, lo, hi) for lo, hi in hulls]

    def describe_function(self) -> str:
        """``"f at file.py:12 traced for interval"``."""
        d = self.debug_info
        return "" if d is None else f"{d.func_src_info} traced for {d.traced_for}"

    def describe_provenance(self, tracer: Any) -> str:
        """Name the function, and say that the bounds do not decide the value."""
        d = self.debug_info
        if d is None:
            return ""
        msg = f"The error occurred while tracing the function {d.func_src_info} for interval."
        if isinstance(tracer, IntervalTracer):
            msg += (
                " The value is only known to lie between two bounds, which do not give the "
                "same answer; use lax.cond or lax.select_n (interval takes the hull of the "
                "branches) instead of Python control flow."
            )
        return msg


def _inline_jaxpr(prim: Primitive, params: dict[str, Any]) -> ClosedJaxpr | None:
    """The jaxpr that a call-like primitive evaluates on its operands, if it is one."""
    if prim is P.custom_jvp_call_p or prim is P.custom_vjp_call_p:
        call: ClosedJaxpr = params["call_jaxpr"]
        return call
    if prim is P.remat_p:
        return ClosedJaxpr(params["jaxpr"], [])
    return None


def _as_pair(leaf: Any) -> Pair:
    if isinstance(leaf, Interval):
        lo_aval, hi_aval = get_aval_of(leaf.lo), get_aval_of(leaf.hi)
        if (lo_aval.shape, lo_aval.dtype) != (hi_aval.shape, hi_aval.dtype):
            raise ValueError(
                "interval: the bounds of an Interval must have one shape and dtype, got "
                f"lo {lo_aval.str_short()} and hi {hi_aval.str_short()}."
            )
        return leaf.lo, leaf.hi
    return leaf, leaf


def interval(fun: Callable[..., Any], /) -> Callable[..., Any]:
    """Transform ``fun`` to compute bounds of its outputs from bounds of its inputs.

    Arguments may be pytrees; an :class:`Interval` leaf gives bounds, any other
    leaf is exact. Every output leaf comes back as an ``Interval``.

    Args:
        fun: a function of arrays built from Tessela operations.

    Returns:
        ``wrapped(*args, **kwargs)`` returning ``fun``'s output tree with
        ``Interval`` leaves.

    Example:
        >>> import tessela  # the XLA backend, to run eagerly
        >>> from tessela_tracer import lax
        >>> out = interval(lambda x: lax.mul(x, x))(Interval(-1.0, 2.0))
        >>> print(out.lo, out.hi)
        -2.0 4.0
    """

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        leaves, in_tree = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Interval))
        info = debug_info_for("interval", fun, args, kwargs)
        with new_trace(IntervalTrace(info)) as trace:
            tracers = [IntervalTracer(trace, *_as_pair(leaf)) for leaf in leaves]
            in_args, in_kwargs = tree_unflatten(in_tree, tracers)
            out_leaves, out_tree = tree_flatten(fun(*in_args, **in_kwargs))
            pairs = [trace.to_pair(o) for o in out_leaves]
        return tree_unflatten(out_tree, [Interval(lo, hi) for lo, hi in pairs])

    return wrapped
