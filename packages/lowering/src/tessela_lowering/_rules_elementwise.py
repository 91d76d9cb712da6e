"""Lowering rules of the elementwise primitives.

Most are one StableHLO (or CHLO) op on operands broadcast to the result's
shape: :func:`_register_elementwise` defines and registers that rule for a
primitive and its op, :func:`_register_comparison` the same for
``stablehlo.compare`` in one direction, :func:`_register_typed_unary` for ops
whose result type the builder infers (``abs``, ``real``, ``imag`` of complex
operands). The rest have their own rules below: ``pow`` (the exponent
converted to the result's type), ``sin``/``cos`` (JAX's expansion on complex
operands), ``exp2``, ``round``, ``conj``, ``stop_gradient``, conversions and
bitcasts, ``select_n``, ``integer_pow`` (square-and-multiply), ``square``,
``logistic`` and ``clamp``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import Primitive, ShapedArray
from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._hlo import broadcast_to, compare_values, out_type, reduce_region
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value, chlo, ir, stablehlo

__all__: list[str] = []


def _register_elementwise(prim: Primitive, op: str, dialect: Any = stablehlo) -> None:
    """Lower ``prim`` to ``dialect``'s ``op`` on its operands broadcast to the result's shape.

    The op is named, not given: the dialect is imported at the first lowering.
    """

    def rule(ctx: LoweringRuleContext, *args: Value, **_: object) -> list[Value]:
        shape = tuple(ctx.avals_out[0].shape)
        return [getattr(dialect, op)(*[broadcast_to(a, shape) for a in args]).result]

    register_lowering(prim, rule)


_register_elementwise(P.add_p, "AddOp")
_register_elementwise(P.sub_p, "SubtractOp")
_register_elementwise(P.mul_p, "MulOp")
_register_elementwise(P.div_p, "DivOp")
_register_elementwise(P.rem_p, "RemOp")


def _register_extremum(prim: Primitive, *, larger: bool) -> None:
    """max/min: XLA's op on real operands, lexicographic order on complex ones."""

    def rule(ctx: LoweringRuleContext, x: Value, y: Value) -> list[Value]:
        shape = tuple(ctx.avals_out[0].shape)
        return [_hlo.extremum(broadcast_to(x, shape), broadcast_to(y, shape), larger=larger)]

    register_lowering(prim, rule)


_register_extremum(P.max_p, larger=True)
_register_extremum(P.min_p, larger=False)
_register_elementwise(P.atan2_p, "Atan2Op")
_register_elementwise(P.nextafter_p, "NextAfterOp", chlo)
_register_elementwise(P.and_p, "AndOp")
_register_elementwise(P.or_p, "OrOp")
_register_elementwise(P.xor_p, "XorOp")
_register_elementwise(P.not_p, "NotOp")
_register_elementwise(P.shift_left_p, "ShiftLeftOp")
_register_elementwise(P.shift_right_arithmetic_p, "ShiftRightArithmeticOp")
_register_elementwise(P.shift_right_logical_p, "ShiftRightLogicalOp")
_register_elementwise(P.mulhi_p, "MulhiOp", chlo)
_register_elementwise(P.neg_p, "NegOp")


def _sign_lowering(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    dtype = ctx.avals_in[0].dtype
    if dtype.kind != "u":
        return [stablehlo.SignOp(x).result]
    # stablehlo.sign takes no unsigned integers: as JAX, x != 0 in x's dtype.
    zero = _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), dtype)), ctx.avals_in[0].shape, [])
    return [_hlo.convert(compare_values(x, zero, "NE", dtype), dtype)]


register_lowering(P.sign_p, _sign_lowering)
_register_elementwise(P.floor_p, "FloorOp")
_register_elementwise(P.ceil_p, "CeilOp")
_register_elementwise(P.exp_p, "ExpOp")
_register_elementwise(P.log_p, "LogOp")
_register_elementwise(P.log1p_p, "Log1pOp")
_register_elementwise(P.expm1_p, "Expm1Op")
_register_elementwise(P.tanh_p, "TanhOp")
_register_elementwise(P.tan_p, "TanOp")
_register_elementwise(P.asin_p, "AsinOp", chlo)
_register_elementwise(P.acos_p, "AcosOp", chlo)
_register_elementwise(P.atan_p, "AtanOp", chlo)
_register_elementwise(P.sinh_p, "SinhOp", chlo)
_register_elementwise(P.cosh_p, "CoshOp", chlo)
_register_elementwise(P.asinh_p, "AsinhOp", chlo)
_register_elementwise(P.acosh_p, "AcoshOp", chlo)
_register_elementwise(P.atanh_p, "AtanhOp", chlo)
_register_elementwise(P.sqrt_p, "SqrtOp")
_register_elementwise(P.rsqrt_p, "RsqrtOp")
_register_elementwise(P.cbrt_p, "CbrtOp")
_register_elementwise(P.erf_p, "ErfOp", chlo)
_register_elementwise(P.erfc_p, "ErfcOp", chlo)
_register_elementwise(P.erf_inv_p, "ErfInvOp", chlo)
_register_elementwise(P.lgamma_p, "LgammaOp", chlo)
_register_elementwise(P.digamma_p, "DigammaOp", chlo)
_register_elementwise(P.polygamma_p, "PolygammaOp", chlo)
_register_elementwise(P.zeta_p, "ZetaOp", chlo)
_register_elementwise(P.is_finite_p, "IsFiniteOp")
_register_elementwise(P.complex_p, "ComplexOp")
_register_elementwise(P.population_count_p, "PopulationCountOp")
_register_elementwise(P.clz_p, "ClzOp")


def _compare_keys(ctx: LoweringRuleContext, x: Value, y: Value, direction: str) -> Value:
    """``eq``/``ne`` of key arrays: every word equal (``eq``), or any differs (``ne``)."""
    out = ctx.avals_out[0]
    t = _hlo.key_trailing(ctx.avals_in[0])
    phys = (*out.shape, *t)
    n = len(out.shape)

    def spread(v: Value, aval: ShapedArray) -> Value:
        dims = [*range(n - len(aval.shape), n), *range(n, n + len(t))]
        return _hlo.broadcast_in_dim(v, phys, dims)

    words = compare_values(
        spread(x, ctx.avals_in[0]), spread(y, ctx.avals_in[1]), direction, np.dtype(np.uint32)
    )
    every = direction == "EQ"
    combine = stablehlo.AndOp if every else stablehlo.OrOp
    init = _hlo.constant(np.array(every))
    result = ir.RankedTensorType.get(list(out.shape), ir.IntegerType.get_signless(1))
    op = stablehlo.ReduceOp([result], [words], [init], list(range(n, n + len(t))))
    reduce_region(op, np.dtype(bool), lambda a, b: combine(a, b).result)
    return op.result


def _register_comparison(prim: Primitive, direction: str) -> None:
    """Lower ``prim`` to ``stablehlo.compare`` in ``direction`` ("EQ", "LT", ...)."""

    def rule(ctx: LoweringRuleContext, x: Value, y: Value, **_: object) -> list[Value]:
        shape = tuple(ctx.avals_out[0].shape)
        dtype = ctx.avals_in[0].dtype
        if _hlo.key_trailing(ctx.avals_in[0]):  # keys: compare their words, then all/any
            return [_compare_keys(ctx, x, y, direction)]
        return [compare_values(broadcast_to(x, shape), broadcast_to(y, shape), direction, dtype)]

    register_lowering(prim, rule)


_register_comparison(P.eq_p, "EQ")
_register_comparison(P.ne_p, "NE")
_register_comparison(P.lt_p, "LT")
_register_comparison(P.le_p, "LE")
_register_comparison(P.gt_p, "GT")
_register_comparison(P.ge_p, "GE")


def _register_typed_unary(prim: Primitive, op: str) -> None:
    """Lower ``prim`` to StableHLO's ``op``, whose result type (real for a complex operand) the builder infers."""

    def rule(ctx: LoweringRuleContext, x: Value, **_: object) -> list[Value]:
        return [getattr(stablehlo, op)(x).result]

    register_lowering(prim, rule)


_register_typed_unary(P.abs_p, "AbsOp")
_register_typed_unary(P.real_p, "RealOp")
_register_typed_unary(P.imag_p, "ImagOp")


def _pow_lowering(ctx: LoweringRuleContext, x: Value, y: Value) -> list[Value]:
    shape = tuple(ctx.avals_out[0].shape)
    y = _hlo.convert(y, ctx.avals_out[0].dtype)
    return [stablehlo.PowOp(broadcast_to(x, shape), broadcast_to(y, shape)).result]


register_lowering(P.pow_p, _pow_lowering)


def _sin_or_cos(ctx: LoweringRuleContext, x: Value, *, cosine: bool) -> Value:
    """sin (or cos): the StableHLO op on real operands, an expansion on complex ones.

    For ``x = a + ib``, ``sin x = sin a cosh b + i cos a sinh b`` and
    ``cos x = cos a cosh b - i sin a sinh b``, with ``sinh b`` and ``cosh b``
    taken from ``expm1(b)`` and ``expm1(-b)`` so that they stay accurate for
    small ``b``; where ``a`` is zero the component carrying ``sin a`` is zero
    (not ``0 * inf``). This is how JAX lowers them, so results match JAX's.
    """
    aval = ctx.avals_in[0]
    if aval.dtype.kind != "c":
        return (stablehlo.CosineOp(x) if cosine else stablehlo.SineOp(x)).result
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
    return stablehlo.ComplexOp(re, im).result


def _sin_lowering(ctx: LoweringRuleContext, x: Value, **_: object) -> list[Value]:
    return [_sin_or_cos(ctx, x, cosine=False)]


register_lowering(P.sin_p, _sin_lowering)


def _cos_lowering(ctx: LoweringRuleContext, x: Value, **_: object) -> list[Value]:
    return [_sin_or_cos(ctx, x, cosine=True)]


register_lowering(P.cos_p, _cos_lowering)


def _exp2_lowering(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    dtype = ctx.avals_in[0].dtype
    log2 = _hlo.broadcast_in_dim(
        _hlo.constant(np.array(np.log(2.0)).astype(dtype)), ctx.avals_in[0].shape, []
    )
    return [stablehlo.ExpOp(stablehlo.MulOp(x, log2).result).result]


register_lowering(P.exp2_p, _exp2_lowering)


def _round_lowering(ctx: LoweringRuleContext, x: Value, *, rounding_method: Any) -> list[Value]:
    if int(rounding_method) == 0:
        return [stablehlo.RoundOp(x).result]
    return [stablehlo.RoundNearestEvenOp(x).result]


register_lowering(P.round_p, _round_lowering)


def _conj_lowering(ctx: LoweringRuleContext, x: Value, **_: object) -> list[Value]:
    out = ctx.avals_out[0]
    if ctx.avals_in[0].dtype.kind != "c":
        return [_hlo.convert(x, out.dtype)]
    return [chlo.ConjOp(x).result]


register_lowering(P.conj_p, _conj_lowering)


def _stop_gradient_lowering(ctx: LoweringRuleContext, x: Value, **_: object) -> list[Value]:
    return [x]


register_lowering(P.stop_gradient_p, _stop_gradient_lowering)


def _bitcast_convert_type_lowering(ctx: LoweringRuleContext, x: Value, **_: object) -> list[Value]:
    return [stablehlo.BitcastConvertOp(out_type(ctx.avals_out[0]), x).result]


register_lowering(P.bitcast_convert_type_p, _bitcast_convert_type_lowering)


def _convert_element_type_lowering(
    ctx: LoweringRuleContext, x: Value, *, new_dtype: Any, **_: Any
) -> list[Value]:
    src = ctx.avals_in[0].dtype
    dst = np.dtype(new_dtype)
    if src.kind == "c" and dst.kind != "c":
        # As JAX: the real part, then its conversion (so -0+1j is False).
        x = stablehlo.RealOp(x).result
        src = np.dtype(src.type(0).real.dtype)
    if dst == np.bool_ and src != np.bool_:
        zero = _hlo.broadcast_in_dim(_hlo.constant(np.zeros((), src)), ctx.avals_in[0].shape, [])
        return [compare_values(x, zero, "NE", src)]
    return [_hlo.convert(x, dst)]


register_lowering(P.convert_element_type_p, _convert_element_type_lowering)


def _select_n_lowering(ctx: LoweringRuleContext, which: Value, *cases: Value) -> list[Value]:
    if len(cases) == 1:
        return [cases[0]]
    out = ctx.avals_out[0]
    t = _hlo.key_trailing(out)  # keys: each choice picks whole keys
    shape = (*out.shape, *t)
    pred_aval = ctx.avals_in[0]
    if t:
        which = _hlo.broadcast_in_dim(which, shape, list(range(len(pred_aval.shape))))
    if pred_aval.dtype == np.bool_ and len(cases) == 2:
        pred = broadcast_to(which, shape)
        return [stablehlo.SelectOp(pred, cases[1], cases[0]).result]
    result = cases[-1]
    for index in range(len(cases) - 2, -1, -1):
        idx = _hlo.broadcast_in_dim(_hlo.constant(np.array(index, pred_aval.dtype)), shape, [])
        is_index = compare_values(broadcast_to(which, shape), idx, "EQ", pred_aval.dtype)
        result = stablehlo.SelectOp(is_index, cases[index], result).result
    return [result]


register_lowering(P.select_n_p, _select_n_lowering)


def _integer_pow_lowering(ctx: LoweringRuleContext, x: Value, *, y: int) -> list[Value]:
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


register_lowering(P.integer_pow_p, _integer_pow_lowering)


def _square_lowering(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    return [stablehlo.MulOp(x, x).result]


register_lowering(P.square_p, _square_lowering)


def _logistic_lowering(ctx: LoweringRuleContext, x: Value) -> list[Value]:
    return [stablehlo.LogisticOp(x).result]


register_lowering(P.logistic_p, _logistic_lowering)


def _clamp_lowering(ctx: LoweringRuleContext, lo: Value, x: Value, hi: Value) -> list[Value]:
    shape = tuple(ctx.avals_out[0].shape)
    return [stablehlo.ClampOp(broadcast_to(lo, shape), x, broadcast_to(hi, shape)).result]


register_lowering(P.clamp_p, _clamp_lowering)
