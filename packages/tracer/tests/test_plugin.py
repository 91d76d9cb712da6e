"""A third-party transformation written only against ``tessela_tracer.extend``.

``count_ops`` counts primitive applications (looking inside ``jit`` calls
through the uniform sub-jaxpr API) and ``double_muls`` rewrites every ``mul``
into ``2 * mul``. Both must compose with ``make_jaxpr`` and the staging
``jit``, in either order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tessela_tracer as tt
from tessela_tracer import lax
from tessela_tracer.extend import (
    ShapedArray,
    Trace,
    Tracer,
    eval_jaxpr,
    get_aval_of,
    jit_p,
    new_trace,
    set_current_trace,
)
from tessela_tracer.primitives import mul_p

# ----------------------------------------------------------------- the plugin


class _ValTracer(Tracer):
    def __init__(self, trace: Trace, val: Any) -> None:
        self._trace = trace
        self.val = val

    @property
    def aval(self) -> ShapedArray:
        return get_aval_of(self.val)


class _RewriteTrace(Trace):
    def __init__(self, rule: Callable[[Any, Sequence[Any], dict[str, Any]], Any]) -> None:
        super().__init__()
        self.rule = rule

    def lower(self, x: Any) -> Any:
        return x.val if isinstance(x, _ValTracer) and x._trace is self else x

    def process_primitive(self, prim: Any, args: Sequence[Any], params: dict[str, Any]) -> Any:
        if prim is jit_p:
            # Interpret the call's body under this trace, so the rule sees inside.
            body = params["jaxpr"]
            return eval_jaxpr(body.jaxpr, body.consts, *args)
        vals = [self.lower(a) for a in args]
        assert self.parent is not None
        with set_current_trace(self.parent):
            out = self.rule(prim, vals, params)
        if prim.multiple_results:
            return [_ValTracer(self, o) for o in out]
        return _ValTracer(self, out)


def _transform(rule: Callable[..., Any], fun: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any) -> Any:
        with new_trace(_RewriteTrace(rule)) as trace:
            outs = fun(*[_ValTracer(trace, a) for a in args])
            flat = outs if isinstance(outs, (list, tuple)) else [outs]
            res = [trace.lower(o) for o in flat]
        return type(outs)(res) if isinstance(outs, (list, tuple)) else res[0]

    return wrapped


def count_ops(fun: Callable[..., Any], counts: Counter[str]) -> Callable[..., Any]:
    def rule(prim: Any, vals: Sequence[Any], params: dict[str, Any]) -> Any:
        counts[prim.name] += 1
        return prim.bind(*vals, **params)

    return _transform(rule, fun)


def double_muls(fun: Callable[..., Any]) -> Callable[..., Any]:
    def rule(prim: Any, vals: Sequence[Any], params: dict[str, Any]) -> Any:
        out = prim.bind(*vals, **params)
        if prim is mul_p:
            out = mul_p.bind(out, np.array(2, get_aval_of(out).dtype))
        return out

    return _transform(rule, fun)


# ----------------------------------------------------------------- the tests


def f(x, y):
    return lax.sin(lax.mul(lax.add(x, y), y))


X = np.ones(3, np.float32)


def _names(closed: tt.ClosedJaxpr) -> list[str]:
    return [e.primitive.name for e in closed.eqns]


def test_count_under_make_jaxpr_leaves_program_unchanged() -> None:
    counts: Counter[str] = Counter()
    closed = tt.make_jaxpr(count_ops(f, counts))(X, X)
    assert str(closed) == str(tt.make_jaxpr(f)(X, X))
    assert counts == Counter({"add": 1, "mul": 1, "sin": 1})


def test_count_sees_inside_staging_jit() -> None:
    counts: Counter[str] = Counter()
    closed = tt.make_jaxpr(count_ops(tt.jit(f), counts))(X, X)
    assert counts == Counter({"add": 1, "mul": 1, "sin": 1})
    assert _names(closed) == ["add", "mul", "sin"]


def test_jit_of_plugin_stages_one_call() -> None:
    counts: Counter[str] = Counter()
    closed = tt.make_jaxpr(tt.jit(count_ops(f, counts)))(X, X)
    assert _names(closed) == ["jit"]
    assert _names(closed.eqns[0].params["jaxpr"]) == ["add", "mul", "sin"]
    tt.check_jaxpr(closed)


def test_double_muls_rewrites_program() -> None:
    closed = tt.make_jaxpr(double_muls(tt.jit(f)))(X, X)
    assert _names(closed) == ["add", "mul", "mul", "sin"]
    last_mul = closed.eqns[2]
    assert last_mul.invars[0] is closed.eqns[1].outvars[0]
    tt.check_jaxpr(closed)


def test_plugins_nest() -> None:
    counts: Counter[str] = Counter()
    closed = tt.make_jaxpr(count_ops(double_muls(f), counts))(X, X)
    assert counts == Counter({"add": 1, "mul": 2, "sin": 1})
    assert _names(closed) == ["add", "mul", "mul", "sin"]
