"""Lowering rules for elementwise, conversion, shape and reduction primitives.

Families share one rule through small helpers (:func:`elementwise`,
:func:`_compare`, :func:`_reduction`); the helpers used by the other rule
modules (:func:`out_type`, :func:`broadcast_to`, :func:`compare_values`,
:func:`scalar_identity`) live here too. :data:`RULES` maps each primitive of
``tessela_tracer.primitives`` handled here to its rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import Primitive, ShapedArray
from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRule, LoweringRuleContext
from tessela_lowering._xla import DType, Value, chlo, ir, stablehlo

__all__ = [
    "RULES",
    "broadcast_to",
    "compare_values",
    "elementwise",
    "out_type",
    "reduce_region",
    "scalar_identity",
]


def out_type(aval: ShapedArray) -> ir.RankedTensorType:
    return _hlo.tensor_type(aval.shape, aval.dtype)


def broadcast_to(value: Value, shape: tuple[int, ...]) -> Value:
    have = _hlo.shape_of(value)
    if have == shape:
        return value
    offset = len(shape) - len(have)
    return _hlo.broadcast_in_dim(value, shape, list(range(offset, len(shape))))


def elementwise(op: Callable[..., Any]) -> LoweringRule:
    def rule(ctx: LoweringRuleContext, *args: Value, **_: Any) -> list[Value]:
        shape = tuple(ctx.avals_out[0].shape)
        operands = [broadcast_to(a, shape) for a in args]
        return [op(*operands).result]

    return rule


def _compare_type(dtype: DType) -> str:
    if dtype.kind == "b":
        return "UNSIGNED"
    if np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.complexfloating):
        return "FLOAT"
    if dtype.kind in ("u", "b"):
        return "UNSIGNED"
    if dtype.kind == "V":  # bfloat16, float8
        return "FLOAT"
    return "SIGNED"


def compare_values(lhs: Value, rhs: Value, direction: str, dtype: DType) -> Value:
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
        return [compare_values(broadcast_to(x, shape), broadcast_to(y, shape), direction, dtype)]

    return rule


def _convert_element_type(
    ctx: LoweringRuleContext, x: Value, *, new_dtype: Any, **_: Any
) -> list[Value]:
    src = ctx.avals_in[0].dtype
    dst = np.dtype(new_dtype)
    if dst == np.bool_ and src != np.bool_:
        zero = _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), src)), ctx.avals_in[0].shape, [])
        return [compare_values(x, zero, "NE", src)]
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


def _reshape(
    ctx: LoweringRuleContext, x: Value, *dyn: Value, dimensions: Any = None, **_: Any
) -> list[Value]:
    if dimensions is not None:  # a transpose comes first
        x = stablehlo.TransposeOp(x, [int(d) for d in dimensions]).result
    return [stablehlo.ReshapeOp(out_type(ctx.avals_out[0]), x).result]


def _transpose(ctx: LoweringRuleContext, x: Value, *, permutation: Sequence[int]) -> list[Value]:
    return [stablehlo.TransposeOp(x, list(permutation)).result]


def scalar_identity(name: str, dtype: DType) -> Any:
    if name == "sum":
        return np.zeros((), dtype)
    if name == "prod":
        return np.ones((), dtype)
    if name in ("and", "or", "xor"):
        if dtype.kind == "b":
            return np.array(name == "and")
        return np.array(-1 if name == "and" else 0).astype(dtype)
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
    "xor": stablehlo.XorOp,
}


def reduce_region(op: Any, dtype: DType, combine: Callable[[Value, Value], Value]) -> None:
    """Fill the combiner region of a reduce-like ``op`` on scalars of ``dtype``."""
    scalar = _hlo.tensor_type((), dtype)
    block: Any = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        stablehlo.ReturnOp([combine(block.arguments[0], block.arguments[1])])


def _reduction(name: str) -> LoweringRule:
    combine = _REDUCERS[name]

    def rule(ctx: LoweringRuleContext, x: Value, *, axes: Sequence[int], **_: Any) -> list[Value]:
        dtype = ctx.avals_in[0].dtype
        init = _hlo.constant(scalar_identity(name, dtype))
        op = stablehlo.ReduceOp([out_type(ctx.avals_out[0])], [x], [init], list(axes))
        reduce_region(op, dtype, lambda a, b: combine(a, b).result)
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
    return [stablehlo.DotGeneralOp(out_type(out), lhs, rhs, dims).result]


def _select_n(ctx: LoweringRuleContext, which: Value, *cases: Value) -> list[Value]:
    if len(cases) == 1:
        return [cases[0]]
    shape = tuple(ctx.avals_out[0].shape)
    pred_aval = ctx.avals_in[0]
    if pred_aval.dtype == np.bool_ and len(cases) == 2:
        pred = broadcast_to(which, shape)
        return [stablehlo.SelectOp(pred, cases[1], cases[0]).result]
    result = cases[-1]
    for index in range(len(cases) - 2, -1, -1):
        idx = _hlo.broadcast_in_dim(_hlo.constant(np.array(index, pred_aval.dtype)), shape, [])
        is_index = compare_values(broadcast_to(which, shape), idx, "EQ", pred_aval.dtype)
        result = stablehlo.SelectOp(is_index, cases[index], result).result
    return [result]


def _iota(ctx: LoweringRuleContext, *, dimension: int, **_: Any) -> list[Value]:
    return [stablehlo.IotaOp(out_type(ctx.avals_out[0]), dimension).result]


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
    return [stablehlo.ReshapeOp(out_type(ctx.avals_out[0]), x).result]


def _concatenate(ctx: LoweringRuleContext, *xs: Value, dimension: int) -> list[Value]:
    return [stablehlo.ConcatenateOp(list(xs), dimension).result]


def _stack(ctx: LoweringRuleContext, *xs: Value, axis: int) -> list[Value]:
    out = ctx.avals_out[0]
    piece = _hlo.tensor_type((*out.shape[:axis], 1, *out.shape[axis + 1 :]), out.dtype)
    parts = [stablehlo.ReshapeOp(piece, x).result for x in xs]
    return [stablehlo.ConcatenateOp(parts, axis).result]


def _slices_along(
    x: Value, shape: Sequence[int], axis: int, sizes: Sequence[int]
) -> list[tuple[Value, int]]:
    """Consecutive slices of ``x`` along ``axis`` with the given sizes, and each size."""
    out: list[tuple[Value, int]] = []
    start = 0
    for size in sizes:
        lo = [0] * len(shape)
        hi = list(shape)
        lo[axis], hi[axis] = start, start + int(size)
        out.append((stablehlo.SliceOp(x, lo, hi, [1] * len(shape)).result, int(size)))
        start += int(size)
    return out


def _unstack(ctx: LoweringRuleContext, x: Value, *, axis: int) -> list[Value]:
    shape = ctx.avals_in[0].shape
    pieces = _slices_along(x, shape, axis, [1] * shape[axis])
    return [
        stablehlo.ReshapeOp(out_type(aval), p).result
        for (p, _), aval in zip(pieces, ctx.avals_out, strict=True)
    ]


def _split(ctx: LoweringRuleContext, x: Value, *, sizes: Sequence[int], axis: int) -> list[Value]:
    return [p for p, _ in _slices_along(x, ctx.avals_in[0].shape, axis, sizes)]


def _tile(ctx: LoweringRuleContext, x: Value, *, reps: Sequence[int]) -> list[Value]:
    # Broadcast to (r0, d0, r1, d1, ...) with the operand on the odd axes, then merge pairs.
    shape = ctx.avals_in[0].shape
    wide = [n for r, d in zip(reps, shape, strict=True) for n in (int(r), d)]
    spread = _hlo.broadcast_in_dim(x, wide, [2 * i + 1 for i in range(len(shape))])
    return [stablehlo.ReshapeOp(out_type(ctx.avals_out[0]), spread).result]


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
    return [stablehlo.ClampOp(broadcast_to(lo, shape), x, broadcast_to(hi, shape)).result]


def _exp2(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    dtype = ctx.avals_in[0].dtype
    log2 = _hlo.broadcast_in_dim(
        _hlo.constant(np.array(np.log(2.0)).astype(dtype)), ctx.avals_in[0].shape, []
    )
    return [stablehlo.ExpOp(stablehlo.MulOp(x, log2).result).result]


def _round(ctx: LoweringRuleContext, x: Value, *, rounding_method: Any) -> list[Value]:
    if int(rounding_method) == 0:
        return [stablehlo.RoundOp(x).result]
    return [stablehlo.RoundNearestEvenOp(x).result]


def _conj(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    out = ctx.avals_out[0]
    if ctx.avals_in[0].dtype.kind != "c":
        return [_hlo.convert(x, out.dtype)]
    return [chlo.ConjOp(x).result]


def _identity(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


def _bitcast(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    return [stablehlo.BitcastConvertOp(out_type(ctx.avals_out[0]), x).result]


def _pow(ctx: LoweringRuleContext, x: Value, y: Value) -> list[Value]:
    shape = tuple(ctx.avals_out[0].shape)
    y = _hlo.convert(y, ctx.avals_out[0].dtype)
    return [stablehlo.PowOp(broadcast_to(x, shape), broadcast_to(y, shape)).result]


def _sin_cos(cosine: bool) -> LoweringRule:
    """sin (or cos): the StableHLO op on real operands, an expansion on complex ones.

    For ``x = a + ib``, ``sin x = sin a cosh b + i cos a sinh b`` and
    ``cos x = cos a cosh b - i sin a sinh b``, with ``sinh b`` and ``cosh b``
    taken from ``expm1(b)`` and ``expm1(-b)`` so that they stay accurate for
    small ``b``; where ``a`` is zero the component carrying ``sin a`` is zero
    (not ``0 * inf``). This is how JAX lowers them, so results match JAX's.
    """
    real_op = stablehlo.CosineOp if cosine else stablehlo.SineOp

    def rule(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
        aval = ctx.avals_in[0]
        if aval.dtype.kind != "c":
            return [real_op(x).result]
        part = np.dtype(np.finfo(aval.dtype).dtype)

        def const(v: float) -> Value:
            return _hlo.broadcast_in_dim(_hlo.constant(np.array(v, part)), aval.shape, [])

        a, b = stablehlo.RealOp(x).result, stablehlo.ImagOp(x).result
        sin_a, cos_a = stablehlo.SineOp(a).result, stablehlo.CosineOp(a).result
        e_pos = stablehlo.Expm1Op(b).result
        e_neg = stablehlo.Expm1Op(stablehlo.NegOp(b).result).result
        half = const(0.5)
        sinh_b = stablehlo.MulOp(stablehlo.SubtractOp(e_pos, e_neg).result, half).result
        sum_e = stablehlo.AddOp(e_pos, e_neg).result
        cosh_b = stablehlo.MulOp(stablehlo.AddOp(sum_e, const(2.0)).result, half).result
        a_is_zero = compare_values(a, const(0.0), "EQ", part)
        if cosine:
            re = stablehlo.MulOp(cos_a, cosh_b).result
            im = stablehlo.MulOp(stablehlo.NegOp(sin_a).result, sinh_b).result
            im = stablehlo.SelectOp(a_is_zero, const(0.0), im).result
        else:
            re = stablehlo.MulOp(sin_a, cosh_b).result
            im = stablehlo.MulOp(cos_a, sinh_b).result
            re = stablehlo.SelectOp(a_is_zero, const(0.0), re).result
        return [stablehlo.ComplexOp(re, im).result]

    return rule


def _typed_unary(op: Callable[..., Any]) -> LoweringRule:
    # Ops whose result type may differ from the operand's (abs/real/imag of complex);
    # the builder infers it.
    def rule(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
        return [op(x).result]

    return rule


_ELEMENTWISE: dict[Primitive, Callable[..., Any]] = {
    P.add_p: stablehlo.AddOp,
    P.sub_p: stablehlo.SubtractOp,
    P.mul_p: stablehlo.MulOp,
    P.div_p: stablehlo.DivOp,
    P.rem_p: stablehlo.RemOp,
    P.max_p: stablehlo.MaxOp,
    P.min_p: stablehlo.MinOp,
    P.atan2_p: stablehlo.Atan2Op,
    P.nextafter_p: chlo.NextAfterOp,
    P.and_p: stablehlo.AndOp,
    P.or_p: stablehlo.OrOp,
    P.xor_p: stablehlo.XorOp,
    P.not_p: stablehlo.NotOp,
    P.shift_left_p: stablehlo.ShiftLeftOp,
    P.shift_right_arithmetic_p: stablehlo.ShiftRightArithmeticOp,
    P.shift_right_logical_p: stablehlo.ShiftRightLogicalOp,
    P.neg_p: stablehlo.NegOp,
    P.sign_p: stablehlo.SignOp,
    P.floor_p: stablehlo.FloorOp,
    P.ceil_p: stablehlo.CeilOp,
    P.exp_p: stablehlo.ExpOp,
    P.log_p: stablehlo.LogOp,
    P.log1p_p: stablehlo.Log1pOp,
    P.expm1_p: stablehlo.Expm1Op,
    P.tanh_p: stablehlo.TanhOp,
    P.tan_p: stablehlo.TanOp,
    P.asin_p: chlo.AsinOp,
    P.acos_p: chlo.AcosOp,
    P.atan_p: chlo.AtanOp,
    P.sinh_p: chlo.SinhOp,
    P.cosh_p: chlo.CoshOp,
    P.asinh_p: chlo.AsinhOp,
    P.acosh_p: chlo.AcoshOp,
    P.atanh_p: chlo.AtanhOp,
    P.sqrt_p: stablehlo.SqrtOp,
    P.rsqrt_p: stablehlo.RsqrtOp,
    P.cbrt_p: stablehlo.CbrtOp,
    P.erf_p: chlo.ErfOp,
    P.erfc_p: chlo.ErfcOp,
    P.erf_inv_p: chlo.ErfInvOp,
    P.lgamma_p: chlo.LgammaOp,
    P.digamma_p: chlo.DigammaOp,
    P.polygamma_p: chlo.PolygammaOp,
    P.zeta_p: chlo.ZetaOp,
    P.is_finite_p: stablehlo.IsFiniteOp,
    P.complex_p: stablehlo.ComplexOp,
    P.population_count_p: stablehlo.PopulationCountOp,
    P.clz_p: stablehlo.ClzOp,
}

_COMPARISONS: dict[Primitive, str] = {
    P.eq_p: "EQ", P.ne_p: "NE", P.lt_p: "LT", P.le_p: "LE", P.gt_p: "GT", P.ge_p: "GE",
}  # fmt: skip

_SPECIAL: dict[Primitive, LoweringRule] = {
    P.stack_p: _stack,
    P.unstack_p: _unstack,
    P.split_p: _split,
    P.tile_p: _tile,
    P.abs_p: _typed_unary(stablehlo.AbsOp),
    P.real_p: _typed_unary(stablehlo.RealOp),
    P.imag_p: _typed_unary(stablehlo.ImagOp),
    P.pow_p: _pow,
    P.sin_p: _sin_cos(cosine=False),
    P.cos_p: _sin_cos(cosine=True),
    P.exp2_p: _exp2,
    P.round_p: _round,
    P.conj_p: _conj,
    P.stop_gradient_p: _identity,
    P.name_p: _identity,
    P.bitcast_convert_type_p: _bitcast,
    P.convert_element_type_p: _convert_element_type,
    P.broadcast_in_dim_p: _broadcast_in_dim,
    P.reshape_p: _reshape,
    P.transpose_p: _transpose,
    P.dot_general_p: _dot_general,
    P.select_n_p: _select_n,
    P.iota_p: _iota,
    P.integer_pow_p: _integer_pow,
    P.square_p: _square,
    P.squeeze_p: _squeeze,
    P.concatenate_p: _concatenate,
    P.slice_p: _slice,
    P.rev_p: _rev,
    P.logistic_p: _logistic,
    P.clamp_p: _clamp,
}

_REDUCTIONS: dict[Primitive, str] = {
    P.reduce_sum_p: "sum", P.reduce_prod_p: "prod", P.reduce_max_p: "max",
    P.reduce_min_p: "min", P.reduce_and_p: "and", P.reduce_or_p: "or", P.reduce_xor_p: "xor",
}  # fmt: skip

RULES: dict[Primitive, LoweringRule] = {
    **{p: elementwise(op) for p, op in _ELEMENTWISE.items()},
    **{p: _compare(d) for p, d in _COMPARISONS.items()},
    **{p: _reduction(n) for p, n in _REDUCTIONS.items()},
    **_SPECIAL,
}
"""The rules of this module, by primitive."""
