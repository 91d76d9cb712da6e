"""Lowering rules for the primitives of ``tessela_tracer.lax``.

Families share one rule through small helpers (:func:`_elementwise`,
:func:`_compare`, :func:`_reduction`). Rules are attached to the tracer's
primitives by name when this module is imported (``<name>_p`` in
``tessela_tracer.lax``); primitives the tracer does not define are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import Primitive, ShapedArray
from tessela_tracer import lax as _lax

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRule, LoweringRuleContext, register_lowering
from tessela_lowering._xla import DType, Value, ir, stablehlo

__all__ = ["register_standard_lowerings"]


def _out_type(aval: ShapedArray) -> ir.RankedTensorType:
    return _hlo.tensor_type(aval.shape, aval.dtype)


def _broadcast_to(value: Value, shape: tuple[int, ...]) -> Value:
    have = _hlo.shape_of(value)
    if have == shape:
        return value
    offset = len(shape) - len(have)
    return _hlo.broadcast_in_dim(value, shape, list(range(offset, len(shape))))


def _elementwise(op: Callable[..., Any]) -> LoweringRule:
    def rule(ctx: LoweringRuleContext, *args: Value, **_: Any) -> list[Value]:
        shape = tuple(ctx.avals_out[0].shape)
        operands = [_broadcast_to(a, shape) for a in args]
        return [op(*operands).result]

    return rule


def _compare_type(dtype: DType) -> str:
    if np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.complexfloating):
        return "FLOAT"
    if dtype.kind in ("u", "b"):
        return "UNSIGNED"
    if dtype.kind == "V":  # bfloat16, float8
        return "FLOAT"
    return "SIGNED"


def _compare_values(lhs: Value, rhs: Value, direction: str, dtype: DType) -> Value:
    return stablehlo.CompareOp(
        lhs,
        rhs,
        stablehlo.ComparisonDirectionAttr.get(direction),
        compare_type=stablehlo.ComparisonTypeAttr.get(_compare_type(dtype)),
    ).result


def _compare(direction: str) -> LoweringRule:
    def rule(ctx: LoweringRuleContext, x: Value, y: Value, **_: Any) -> list[Value]:
        shape = tuple(ctx.avals_out[0].shape)
        dtype = ctx.avals_in[0].dtype
        return [_compare_values(_broadcast_to(x, shape), _broadcast_to(y, shape), direction, dtype)]

    return rule


def _convert_element_type(
    ctx: LoweringRuleContext, x: Value, *, new_dtype: Any, **_: Any
) -> list[Value]:
    src = ctx.avals_in[0].dtype
    dst = np.dtype(new_dtype)
    if dst == np.bool_ and src != np.bool_:
        zero = _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), src)), ctx.avals_in[0].shape, [])
        return [_compare_values(x, zero, "NE", src)]
    if src.kind == "c" and dst.kind != "c":
        x = stablehlo.RealOp(x).result
    return [_hlo.convert(x, dst)]


def _broadcast_in_dim(
    ctx: LoweringRuleContext,
    x: Value,
    *dyn: Value,
    shape: Sequence[int],
    broadcast_dimensions: Sequence[int],
    **_: Any,
) -> list[Value]:
    return [_hlo.broadcast_in_dim(x, tuple(shape), list(broadcast_dimensions))]


def _reshape(ctx: LoweringRuleContext, x: Value, *dyn: Value, **_: Any) -> list[Value]:
    return [stablehlo.ReshapeOp(_out_type(ctx.avals_out[0]), x).result]


def _transpose(ctx: LoweringRuleContext, x: Value, *, permutation: Sequence[int]) -> list[Value]:
    return [stablehlo.TransposeOp(x, list(permutation)).result]


def _scalar_identity(name: str, dtype: DType) -> Any:
    if name == "sum":
        return np.zeros((), dtype)
    if name == "prod":
        return np.ones((), dtype)
    if name in ("and", "or"):
        return np.array(name == "and", dtype)
    if dtype.kind == "f" or dtype.kind == "V":
        return np.array(-np.inf if name == "max" else np.inf).astype(dtype)
    if dtype.kind == "b":
        return np.array(name == "min")
    info = np.iinfo(dtype)
    return np.array(info.min if name == "max" else info.max, dtype)


_REDUCERS: dict[str, Callable[..., Any]] = {
    "sum": stablehlo.AddOp,
    "prod": stablehlo.MulOp,
    "max": stablehlo.MaxOp,
    "min": stablehlo.MinOp,
    "and": stablehlo.AndOp,
    "or": stablehlo.OrOp,
}


def _reduction(name: str) -> LoweringRule:
    combine = _REDUCERS[name]

    def rule(ctx: LoweringRuleContext, x: Value, *, axes: Sequence[int], **_: Any) -> list[Value]:
        dtype = ctx.avals_in[0].dtype
        scalar = _hlo.tensor_type((), dtype)
        init = _hlo.constant(_scalar_identity(name, dtype))
        op = stablehlo.ReduceOp([_out_type(ctx.avals_out[0])], [x], [init], list(axes))
        block: Any = op.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            stablehlo.ReturnOp([combine(block.arguments[0], block.arguments[1]).result])
        return [op.result]

    return rule


def _dot_general(
    ctx: LoweringRuleContext,
    lhs: Value,
    rhs: Value,
    *,
    dimension_numbers: Any,
    preferred_element_type: Any = None,
    **_: Any,
) -> list[Value]:
    (lc, rc), (lb, rb) = dimension_numbers
    out = ctx.avals_out[0]
    dtype = out.dtype
    lhs = _hlo.convert(lhs, dtype) if ctx.avals_in[0].dtype != dtype else lhs
    rhs = _hlo.convert(rhs, dtype) if ctx.avals_in[1].dtype != dtype else rhs
    dims = stablehlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb),
        rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc),
        rhs_contracting_dimensions=list(rc),
    )
    return [stablehlo.DotGeneralOp(_out_type(out), lhs, rhs, dims).result]


def _select_n(ctx: LoweringRuleContext, which: Value, *cases: Value) -> list[Value]:
    if len(cases) == 1:
        return [cases[0]]
    shape = tuple(ctx.avals_out[0].shape)
    pred_aval = ctx.avals_in[0]
    if pred_aval.dtype == np.bool_ and len(cases) == 2:
        pred = _broadcast_to(which, shape)
        return [stablehlo.SelectOp(pred, cases[1], cases[0]).result]
    result = cases[-1]
    for index in range(len(cases) - 2, -1, -1):
        idx = _hlo.broadcast_in_dim(_hlo.constant(np.array(index, pred_aval.dtype)), shape, [])
        is_index = _compare_values(_broadcast_to(which, shape), idx, "EQ", pred_aval.dtype)
        result = stablehlo.SelectOp(is_index, cases[index], result).result
    return [result]


def _iota(ctx: LoweringRuleContext, *, dimension: int, **_: Any) -> list[Value]:
    return [stablehlo.IotaOp(_out_type(ctx.avals_out[0]), dimension).result]


def _integer_pow(ctx: LoweringRuleContext, x: Value, *, y: int) -> list[Value]:
    if y == 0:
        out = ctx.avals_out[0]
        return [_hlo.broadcast_in_dim(_hlo.constant(np.ones((), out.dtype)), out.shape, [])]
    base, exponent, acc = x, abs(y), None
    while exponent:
        if exponent & 1:
            acc = base if acc is None else stablehlo.MulOp(acc, base).result
        exponent >>= 1
        if exponent:
            base = stablehlo.MulOp(base, base).result
    assert acc is not None
    if y < 0:
        one = _hlo.broadcast_in_dim(
            _hlo.constant(np.ones((), ctx.avals_out[0].dtype)), ctx.avals_out[0].shape, []
        )
        acc = stablehlo.DivOp(one, acc).result
    return [acc]


def _square(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    return [stablehlo.MulOp(x, x).result]


def _squeeze(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    return [stablehlo.ReshapeOp(_out_type(ctx.avals_out[0]), x).result]


def _concatenate(ctx: LoweringRuleContext, *xs: Value, dimension: int) -> list[Value]:
    return [stablehlo.ConcatenateOp(list(xs), dimension).result]


def _slice(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> list[Value]:
    steps = list(strides) if strides is not None else [1] * len(start_indices)
    return [stablehlo.SliceOp(x, list(start_indices), list(limit_indices), steps).result]


def _rev(ctx: LoweringRuleContext, x: Value, *, dimensions: Sequence[int]) -> list[Value]:
    return [stablehlo.ReverseOp(x, list(dimensions)).result]


def _logistic(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    return [stablehlo.LogisticOp(x).result]


def _clamp(ctx: LoweringRuleContext, lo: Value, x: Value, hi: Value) -> list[Value]:
    shape = tuple(ctx.avals_out[0].shape)
    return [stablehlo.ClampOp(_broadcast_to(lo, shape), x, _broadcast_to(hi, shape)).result]


_ELEMENTWISE: dict[str, Callable[..., Any]] = {
    "add": stablehlo.AddOp,
    "sub": stablehlo.SubtractOp,
    "mul": stablehlo.MulOp,
    "div": stablehlo.DivOp,
    "rem": stablehlo.RemOp,
    "max": stablehlo.MaxOp,
    "min": stablehlo.MinOp,
    "pow": stablehlo.PowOp,
    "atan2": stablehlo.Atan2Op,
    "and": stablehlo.AndOp,
    "or": stablehlo.OrOp,
    "xor": stablehlo.XorOp,
    "not": stablehlo.NotOp,
    "shift_left": stablehlo.ShiftLeftOp,
    "shift_right_arithmetic": stablehlo.ShiftRightArithmeticOp,
    "shift_right_logical": stablehlo.ShiftRightLogicalOp,
    "neg": stablehlo.NegOp,
    "abs": stablehlo.AbsOp,
    "sign": stablehlo.SignOp,
    "floor": stablehlo.FloorOp,
    "ceil": stablehlo.CeilOp,
    "exp": stablehlo.ExpOp,
    "log": stablehlo.LogOp,
    "log1p": stablehlo.Log1pOp,
    "expm1": stablehlo.Expm1Op,
    "tanh": stablehlo.TanhOp,
    "sin": stablehlo.SineOp,
    "cos": stablehlo.CosineOp,
    "tan": stablehlo.TanOp,
    "sqrt": stablehlo.SqrtOp,
    "rsqrt": stablehlo.RsqrtOp,
    "cbrt": stablehlo.CbrtOp,
    "is_finite": stablehlo.IsFiniteOp,
    "real": stablehlo.RealOp,
    "imag": stablehlo.ImagOp,
    "complex": stablehlo.ComplexOp,
    "population_count": stablehlo.PopulationCountOp,
    "clz": stablehlo.ClzOp,
}

_COMPARISONS = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}

_SPECIAL: dict[str, LoweringRule] = {
    "convert_element_type": _convert_element_type,
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape,
    "transpose": _transpose,
    "dot_general": _dot_general,
    "select_n": _select_n,
    "iota": _iota,
    "integer_pow": _integer_pow,
    "square": _square,
    "squeeze": _squeeze,
    "concatenate": _concatenate,
    "slice": _slice,
    "rev": _rev,
    "logistic": _logistic,
    "clamp": _clamp,
}


def standard_rules() -> dict[str, LoweringRule]:
    """The built-in lowering rules, by primitive name."""
    rules: dict[str, LoweringRule] = {n: _elementwise(op) for n, op in _ELEMENTWISE.items()}
    rules.update({n: _compare(d) for n, d in _COMPARISONS.items()})
    rules.update({f"reduce_{n}": _reduction(n) for n in _REDUCERS})
    rules.update(_SPECIAL)
    return rules


def register_standard_lowerings() -> list[str]:
    """Attach the built-in rules to the primitives ``tessela_tracer.lax`` defines.

    Returns:
      The names of the primitives that received a rule.
    """
    done: list[str] = []
    for name, rule in standard_rules().items():
        prim = getattr(_lax, f"{name}_p", None)
        if isinstance(prim, Primitive):
            register_lowering(prim, rule)
            done.append(name)
    return done
