"""Interval rules: how each primitive maps bounds of its operands to bounds of its results.

A rule receives one ``(lo, hi)`` pair per operand and the primitive's
parameters, and returns a pair (a list of pairs for primitives with several
results). The values in a pair are ordinary arrays, or tracers of the
transformations around ``interval``: a rule computes with ``lax`` and
``Primitive.bind`` only, so it is itself differentiable, batchable and
stageable. An operand that is not an interval (a constant of the traced
function) comes as ``(x, x)``, the same object twice.

The bounds are those of exact interval arithmetic evaluated in floating point,
without outward rounding: they can be off by a few ulps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of

__all__ = ["IntervalError", "Pair", "interval_rule", "register_interval_rule"]

Pair = tuple[Any, Any]
IntervalRule = Callable[..., Any]

_rules: dict[Primitive, IntervalRule] = {}


class IntervalError(TypeError):
    """An operand that must be exact (an index, a divisor of integers) is an interval."""


def register_interval_rule(prim: Primitive, rule: IntervalRule, /) -> None:
    """Give ``prim`` an interval rule (for a plugin's own primitives, say).

    Args:
        prim: the primitive.
        rule: ``rule(*pairs, **params)`` returning a ``(lo, hi)`` pair, or a
            list of pairs for ``multiple_results`` primitives.

    Returns:
        None.

    Example:
        >>> from tessela_tracer import lax
        >>> from tessela_tracer.extend import Primitive, register_abstract_eval
        >>> twice_p = Primitive("interval_twice_example")
        >>> register_abstract_eval(twice_p, lambda x: x)
        >>> register_interval_rule(twice_p, lambda x: (lax.mul(x[0], 2.0), lax.mul(x[1], 2.0)))
        >>> interval_rule(twice_p) is not None
        True
    """
    _rules[prim] = rule


def interval_rule(prim: Primitive, /) -> IntervalRule | None:
    """Return the interval rule of ``prim``, if it has one.

    Args:
        prim: the primitive.

    Returns:
        The rule, or None.

    Example:
        >>> from tessela_tracer.primitives import sin_p
        >>> interval_rule(sin_p) is not None
        True
    """
    return _rules.get(prim)


def is_point(pair: Pair) -> bool:
    """Whether a pair stands for an exact value (a constant of the traced function)."""
    return pair[0] is pair[1]


def _require_points(prim: Primitive, pairs: Sequence[Pair], positions: Sequence[int]) -> None:
    for i in positions:
        if i < len(pairs) and not is_point(pairs[i]):
            raise IntervalError(
                f"interval: operand {i} of {prim.name!r} depends on an interval input, and "
                f"{prim.name} needs it exact (an index or a shape); compute it from "
                "constants only, or pass that input as a plain array instead of an Interval."
            )


def _shape(x: Any) -> tuple[int, ...]:
    return get_aval_of(x).shape


def _bcast(x: Any, shape: tuple[int, ...]) -> Any:
    """Broadcast ``x`` (rank 0, or equal rank with size-1 dimensions) to ``shape``."""
    xs = _shape(x)
    if xs == shape:
        return x
    dims = () if not xs else tuple(range(len(shape)))
    return lax.broadcast_in_dim(x, shape, dims)


def _where(pred: Any, on_true: Any, on_false: Any) -> Any:
    shape = _shape(on_false)
    return lax.select_n(_bcast(pred, shape), _bcast(on_false, shape), _bcast(on_true, shape))


def _full(like: Any, value: float) -> Any:
    return lax.full_like(like, value)


# ----------------------------------------------------------------- families


def monotone(prim: Primitive, exact: Sequence[int] = ()) -> IntervalRule:
    """The rule of a primitive non-decreasing in every operand not listed in ``exact``."""

    def rule(*pairs: Pair, **params: Any) -> Any:
        _require_points(prim, pairs, exact)
        lo = prim.bind(*(p[0] for p in pairs), **params)
        hi = prim.bind(*(p[1] for p in pairs), **params)
        if prim.multiple_results:
            return list(zip(lo, hi, strict=True))
        return lo, hi

    return rule


def decreasing(prim: Primitive) -> IntervalRule:
    """The rule of a non-increasing unary primitive."""

    def rule(x: Pair, **params: Any) -> Pair:
        return prim.bind(x[1], **params), prim.bind(x[0], **params)

    return rule


for _p in (
    P.add_p, P.max_p, P.min_p, P.exp_p, P.exp2_p, P.log_p, P.log1p_p, P.expm1_p,
    P.tanh_p, P.logistic_p, P.sqrt_p, P.cbrt_p, P.atan_p, P.asinh_p, P.erf_p, P.sinh_p,
    P.floor_p, P.ceil_p, P.round_p, P.sign_p, P.stop_gradient_p, P.reduce_precision_p,
    P.broadcast_in_dim_p, P.reshape_p, P.transpose_p, P.squeeze_p, P.rev_p, P.slice_p,
    P.concatenate_p, P.pad_p, P.stack_p, P.tile_p, P.unstack_p, P.split_p, P.clamp_p,
    P.reduce_sum_p, P.reduce_max_p, P.reduce_min_p, P.cumsum_p, P.cummax_p, P.cummin_p,
    P.optimization_barrier_p, P.name_p,
):  # fmt: skip
    register_interval_rule(_p, monotone(_p))
register_interval_rule(P.dynamic_slice_p, monotone(P.dynamic_slice_p, exact=range(1, 64)))
register_interval_rule(
    P.dynamic_update_slice_p, monotone(P.dynamic_update_slice_p, exact=range(2, 64))
)
register_interval_rule(P.gather_p, monotone(P.gather_p, exact=(1,)))
register_interval_rule(P.neg_p, decreasing(P.neg_p))
register_interval_rule(P.rsqrt_p, decreasing(P.rsqrt_p))


# ----------------------------------------------------------------- arithmetic


def _sub(x: Pair, y: Pair) -> Pair:
    return lax.sub(x[0], y[1]), lax.sub(x[1], y[0])


def _mul(x: Pair, y: Pair) -> Pair:
    if is_point(x) and is_point(y):
        p = lax.mul(x[0], y[0])
        return p, p
    prods = [lax.mul(a, b) for a in x for b in y]
    return (
        lax.min(lax.min(prods[0], prods[1]), lax.min(prods[2], prods[3])),
        lax.max(lax.max(prods[0], prods[1]), lax.max(prods[2], prods[3])),
    )


def _reciprocal(y: Pair) -> tuple[Pair, Any]:
    """``1 / y`` where ``y`` excludes 0, and where it contains 0."""
    lo, hi = y
    has_zero = lax.bitwise_and(lax.le(lo, 0.0), lax.ge(hi, 0.0))
    one = _full(lo, 1.0)
    safe_lo, safe_hi = _where(has_zero, one, lo), _where(has_zero, one, hi)
    return (lax.div(1.0, safe_hi), lax.div(1.0, safe_lo)), has_zero


def _unbounded_where(has_zero: Any, q: Pair) -> Pair:
    return (
        _where(has_zero, _full(q[0], -math.inf), q[0]),
        _where(has_zero, _full(q[1], math.inf), q[1]),
    )


def _div(x: Pair, y: Pair) -> Pair:
    if not np.issubdtype(get_aval_of(x[0]).dtype, np.inexact):
        _require_points(P.div_p, (x, y), (0, 1))
        return monotone(P.div_p)(x, y)  # type: ignore[no-any-return]
    if is_point(y):
        q = lax.div(x[0], y[0]), lax.div(x[1], y[0])
        return lax.min(*q), lax.max(*q)
    recip, has_zero = _reciprocal(y)
    return _unbounded_where(has_zero, _mul(x, recip))


def _abs(x: Pair) -> Pair:
    lo, hi = x
    return lax.max(lax.max(lo, lax.neg(hi)), _full(lo, 0)), lax.max(lax.neg(lo), hi)


def _integer_pow(x: Pair, *, y: int) -> Pair:
    if y == 0:
        one = _full(x[0], 1)
        return one, one
    base = _abs(x) if y % 2 == 0 else x
    pos = lax.integer_pow(base[0], abs(y)), lax.integer_pow(base[1], abs(y))
    if y > 0:
        return pos
    recip, has_zero = _reciprocal(pos)
    return _unbounded_where(has_zero, recip)


def _square(x: Pair) -> Pair:
    return _integer_pow(x, y=2)


def _sin(x: Pair) -> Pair:
    lo, hi = x
    two_pi = 2 * math.pi
    # The first maximum (pi/2 + 2k pi) and minimum (-pi/2 + 2k pi) at or after lo.
    top = lax.add(lax.mul(lax.ceil(lax.div(lax.sub(lo, math.pi / 2), two_pi)), two_pi), math.pi / 2)
    bottom = lax.sub(
        lax.mul(lax.ceil(lax.div(lax.add(lo, math.pi / 2), two_pi)), two_pi), math.pi / 2
    )
    s_lo, s_hi = lax.sin(lo), lax.sin(hi)
    return (
        _where(lax.le(bottom, hi), _full(lo, -1.0), lax.min(s_lo, s_hi)),
        _where(lax.le(top, hi), _full(lo, 1.0), lax.max(s_lo, s_hi)),
    )


def _cos(x: Pair) -> Pair:
    return _sin((lax.add(x[0], math.pi / 2), lax.add(x[1], math.pi / 2)))


def _dot_general(x: Pair, y: Pair, **params: Any) -> Pair:
    def dot(a: Any, b: Any) -> Any:
        return P.dot_general_p.bind(a, b, **params)

    if is_point(x) and is_point(y):
        d = dot(x[0], y[0])
        return d, d
    # Midpoint and radius: [m - r, m + r] encloses the product of the boxes.
    mx, rx = lax.mul(lax.add(x[0], x[1]), 0.5), lax.mul(lax.sub(x[1], x[0]), 0.5)
    my, ry = lax.mul(lax.add(y[0], y[1]), 0.5), lax.mul(lax.sub(y[1], y[0]), 0.5)
    mid = dot(mx, my)
    rad = lax.add(lax.add(dot(lax.abs(mx), ry), dot(rx, lax.abs(my))), dot(rx, ry))
    return lax.sub(mid, rad), lax.add(mid, rad)


def _convert_element_type(x: Pair, **params: Any) -> Pair:
    new, old = np.dtype(params["new_dtype"]), get_aval_of(x[0]).dtype
    if new == np.bool_ and old != np.bool_:
        _require_points(P.convert_element_type_p, (x,), (0,))
    return monotone(P.convert_element_type_p)(x, **params)  # type: ignore[no-any-return]


register_interval_rule(P.sub_p, _sub)
register_interval_rule(P.mul_p, _mul)
register_interval_rule(P.div_p, _div)
register_interval_rule(P.abs_p, _abs)
register_interval_rule(P.integer_pow_p, _integer_pow)
register_interval_rule(P.square_p, _square)
register_interval_rule(P.sin_p, _sin)
register_interval_rule(P.cos_p, _cos)
register_interval_rule(P.dot_general_p, _dot_general)
register_interval_rule(P.convert_element_type_p, _convert_element_type)


# ----------------------------------------------------------------- booleans


def _compare(strict: bool) -> Callable[[Pair, Pair], Pair]:
    """``x < y`` (strict) or ``x <= y`` as a pair (surely true, possibly true)."""
    op = lax.lt if strict else lax.le

    def rule(x: Pair, y: Pair) -> Pair:
        return op(x[1], y[0]), op(x[0], y[1])

    return rule


def _swap(rule: Callable[[Pair, Pair], Pair]) -> Callable[[Pair, Pair], Pair]:
    return lambda x, y: rule(y, x)


def _eq(x: Pair, y: Pair) -> Pair:
    overlap = lax.bitwise_and(lax.le(x[0], y[1]), lax.le(y[0], x[1]))
    same = lax.bitwise_and(
        lax.bitwise_and(lax.eq(x[0], x[1]), lax.eq(y[0], y[1])), lax.eq(x[0], y[0])
    )
    return same, overlap


def _ne(x: Pair, y: Pair) -> Pair:
    surely_eq, maybe_eq = _eq(x, y)
    return lax.bitwise_not(maybe_eq), lax.bitwise_not(surely_eq)


def _bool_only(prim: Primitive, rule: IntervalRule) -> IntervalRule:
    def checked(*pairs: Pair, **params: Any) -> Any:
        if get_aval_of(pairs[0][0]).dtype != np.bool_:
            _require_points(prim, pairs, range(len(pairs)))
        return rule(*pairs, **params)

    return checked


def hull_select(which: Pair, cases: Sequence[Pair]) -> Pair:
    """``select_n`` of intervals: the hull of the cases ``which`` may pick."""
    if is_point(which):
        w = which[0]
        return lax.select_n(w, *(c[0] for c in cases)), lax.select_n(w, *(c[1] for c in cases))
    w_lo, w_hi = (lax.convert_element_type(w, np.int32) for w in which)
    # Fold the cases in; ``picked`` says whether some earlier case may be taken.
    lo: Any = cases[0][0]
    hi: Any = cases[0][1]
    picked: Any = lax.bitwise_and(lax.le(w_lo, 0), lax.ge(w_hi, 0))
    for i, (c_lo, c_hi) in enumerate(cases[1:], start=1):
        may = lax.bitwise_and(lax.le(w_lo, i), lax.ge(w_hi, i))
        lo = _where(picked, _where(may, lax.min(lo, c_lo), lo), c_lo)
        hi = _where(picked, _where(may, lax.max(hi, c_hi), hi), c_hi)
        picked = lax.bitwise_or(picked, may)
    return lo, hi


register_interval_rule(P.lt_p, _compare(strict=True))
register_interval_rule(P.le_p, _compare(strict=False))
register_interval_rule(P.gt_p, _swap(_compare(strict=True)))
register_interval_rule(P.ge_p, _swap(_compare(strict=False)))
register_interval_rule(P.eq_p, _eq)
register_interval_rule(P.ne_p, _ne)
register_interval_rule(P.and_p, _bool_only(P.and_p, monotone(P.and_p)))
register_interval_rule(P.or_p, _bool_only(P.or_p, monotone(P.or_p)))
register_interval_rule(P.not_p, _bool_only(P.not_p, decreasing(P.not_p)))
register_interval_rule(P.select_n_p, lambda which, *cases: hull_select(which, cases))
