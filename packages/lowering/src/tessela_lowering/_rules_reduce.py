"""Lowering rules of the reductions, cumulative reductions, sort, top_k and dot_general.

``reduce_{sum,prod,max,min,and,or,xor}`` are one ``stablehlo.reduce`` from the
reduction's identity (:func:`_register_reduction`). ``argmax``/``argmin`` are
one variadic ``stablehlo.reduce`` over (value, index) pairs: NaN wins over
every number, ties go to the lower index, so the result is NumPy's.
Cumulative reductions are ``stablehlo.reduce_window`` with a window as long as
the axis, padded on the leading (or, reversed, the trailing) side. ``sort``
compares its keys as JAX does: lexicographically over the first ``num_keys``
operands, a complex key by real then imaginary part, a float key in total
order after making -0.0 equal to 0.0 and every NaN equal to every other,
placed after +inf (NumPy's order, so a stable sort matches NumPy's
``kind="stable"``). ``top_k`` is ``chlo.top_k`` on the last axis (the operand
transposed there and back), ``dot_general`` one ``stablehlo.dot_general``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import Primitive
from tessela_tracer import primitives as P
from tessela_tracer.dtypes import issubdtype
from tessela_tracer.extend import CPU_DOT_ALGORITHMS, algorithm_compute_types, algorithm_spec
from tessela_tracer.lax import DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, Precision

from tessela_lowering import _hlo
from tessela_lowering._hlo import (
    compare_values,
    extremum,
    out_type,
    reduce_region,
    scalar_identity,
)
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import DType, Value, chlo, dense_attr, ir, ir_element_type, stablehlo

__all__: list[str] = []


def _register_reduction(
    prim: Primitive, identity: str, combine: Callable[[Value, Value], Value]
) -> None:
    """Lower ``prim`` to ``stablehlo.reduce`` over ``axes`` with ``combine`` from ``identity``."""

    def rule(
        ctx: LoweringRuleContext, x: Value, *, axes: Sequence[int], **_: object
    ) -> list[Value]:
        dtype = ctx.avals_in[0].dtype
        init = _hlo.constant(scalar_identity(identity, dtype))
        reduce = stablehlo.ReduceOp([out_type(ctx.avals_out[0])], [x], [init], list(axes))
        reduce_region(reduce, dtype, combine)
        return [reduce.result]

    register_lowering(prim, rule)


_MONOIDS: dict[str, Callable[[Value, Value], Value]] = {
    "sum": lambda a, b: stablehlo.AddOp(a, b).result,
    "prod": lambda a, b: stablehlo.MulOp(a, b).result,
    "max": functools.partial(extremum, larger=True),
    "min": functools.partial(extremum, larger=False),
}
"""The combining function of each reduction and cumulative scan, by its identity's name."""

_register_reduction(P.reduce_and_p, "and", lambda a, b: stablehlo.AndOp(a, b).result)
_register_reduction(P.reduce_or_p, "or", lambda a, b: stablehlo.OrOp(a, b).result)
_register_reduction(P.reduce_xor_p, "xor", lambda a, b: stablehlo.XorOp(a, b).result)


def _is_float(dtype: DType) -> bool:
    return issubdtype(dtype, np.inexact)


def _register_arg_reduction(prim: Primitive, direction: str) -> None:
    """Lower ``argmax`` (``direction`` "GT") or ``argmin`` ("LT")."""
    identity = "max" if direction == "GT" else "min"

    def rule(
        ctx: LoweringRuleContext, x: Value, *, axes: Sequence[int], index_dtype: DType
    ) -> list[Value]:
        x_aval = ctx.avals_in[0]
        dtype = x_aval.dtype
        if dtype.kind == "c":
            # JAX's lowering compares with lax.gt / lax.lt, which take no complex.
            cmp = direction.lower()
            raise TypeError(
                f"{cmp} does not accept dtype {dtype.name} at position 0. Accepted dtypes at "
                "position 0 are subtypes of integer, floating, bool."
            )
        idt = np.dtype(index_dtype)
        axis = axes[0]
        iota = stablehlo.IotaOp(_hlo.tensor_type(x_aval.shape, idt), axis).result
        init_v = _hlo.constant(scalar_identity(identity, dtype))
        init_i = _hlo.constant(np.zeros((), idt))
        out_v = ir.RankedTensorType.get(list(ctx.avals_out[0].shape), _hlo.dtype_of(x))
        op = stablehlo.ReduceOp(
            [out_v, out_type(ctx.avals_out[0])], [x, iota], [init_v, init_i], [axis]
        )
        sv, si = _hlo.tensor_type((), dtype), _hlo.tensor_type((), idt)
        block: Any = op.regions[0].blocks.append(sv, si, sv, si)
        with ir.InsertionPoint(block):
            av, ai, bv, bi = block.arguments
            better = compare_values(av, bv, direction, dtype)
            tie = compare_values(av, bv, "EQ", dtype)
            if _is_float(dtype):
                a_nan = compare_values(av, av, "NE", dtype)
                b_nan = compare_values(bv, bv, "NE", dtype)
                not_b_nan = stablehlo.NotOp(b_nan).result
                better = stablehlo.OrOp(better, stablehlo.AndOp(a_nan, not_b_nan).result).result
                tie = stablehlo.OrOp(tie, stablehlo.AndOp(a_nan, b_nan).result).result
            lower = compare_values(ai, bi, "LT", idt)
            pick_a = stablehlo.OrOp(better, stablehlo.AndOp(tie, lower).result).result
            stablehlo.ReturnOp([
                stablehlo.SelectOp(pick_a, av, bv).result,
                stablehlo.SelectOp(pick_a, ai, bi).result,
            ])  # fmt: skip
        return [op.results[1]]

    register_lowering(prim, rule)


_register_arg_reduction(P.argmax_p, "GT")
_register_arg_reduction(P.argmin_p, "LT")


def _logaddexp(a: Value, b: Value) -> Value:
    big = stablehlo.MaxOp(a, b).result
    small = stablehlo.MinOp(a, b).result
    diff = stablehlo.SubtractOp(small, big).result
    total = stablehlo.AddOp(big, stablehlo.Log1pOp(stablehlo.ExpOp(diff).result).result).result
    finite = stablehlo.IsFiniteOp(big).result
    return stablehlo.SelectOp(finite, total, big).result


def _register_cumulative(
    prim: Primitive, identity: str, combine: Callable[[Value, Value], Value]
) -> None:
    """Lower ``prim`` to a ``stablehlo.reduce_window`` of ``combine`` along its axis."""

    def rule(ctx: LoweringRuleContext, x: Value, *, axis: int, reverse: bool) -> list[Value]:
        aval = ctx.avals_in[0]
        if prim is P.cumlogsumexp_p and not issubdtype(aval.dtype, np.inexact):
            # JAX's lowering fails the same way (its initial value is -inf).
            raise OverflowError(
                f"cumlogsumexp of {aval.dtype.name} operand: cannot convert float infinity "
                "to integer"
            )
        n = aval.shape[axis]
        window = [1] * aval.ndim
        window[axis] = max(n, 1)
        padding = np.zeros((aval.ndim, 2), np.int64)
        padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
        init = _hlo.constant(scalar_identity(identity, aval.dtype))
        pad_ty = ir.RankedTensorType.get([aval.ndim, 2], ir.IntegerType.get_signless(64))
        pad_attr = dense_attr(padding, pad_ty)
        op = stablehlo.ReduceWindowOp(
            [out_type(aval)], [x], [init], window, window_strides=[1] * aval.ndim, padding=pad_attr
        )
        scalar = _hlo.tensor_type((), aval.dtype)
        block: Any = op.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            stablehlo.ReturnOp([combine(block.arguments[0], block.arguments[1])])
        return [op.result]

    register_lowering(prim, rule)


for _name, _reduce_p, _cumulative_p in (
    ("sum", P.reduce_sum_p, P.cumsum_p),
    ("prod", P.reduce_prod_p, P.cumprod_p),
    ("max", P.reduce_max_p, P.cummax_p),
    ("min", P.reduce_min_p, P.cummin_p),
):
    _register_reduction(_reduce_p, _name, _MONOIDS[_name])
    _register_cumulative(_cumulative_p, _name, _MONOIDS[_name])
_register_cumulative(P.cumlogsumexp_p, "max", _logaddexp)


def _sort_comparator(op: Any, dtypes: Sequence[DType], num_keys: int) -> None:
    """Fill ``op``'s comparator: "less than" on the first ``num_keys`` operands, in order."""
    types = [_hlo.tensor_type((), d) for d in dtypes for _ in (0, 1)]
    block: Any = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        lhs_keys: list[tuple[Value, DType]] = []
        rhs_keys: list[tuple[Value, DType]] = []
        for k in range(num_keys):
            lhs_keys += _sort_keys(args[2 * k], dtypes[k])
            rhs_keys += _sort_keys(args[2 * k + 1], dtypes[k])
        result: Value | None = None
        for (a, dt), (b, _) in zip(reversed(lhs_keys), reversed(rhs_keys), strict=True):
            less = _key_compare(a, b, "LT", dt)
            if result is None:
                result = less
            else:
                equal = _key_compare(a, b, "EQ", dt)
                result = stablehlo.OrOp(less, stablehlo.AndOp(equal, result).result).result
        assert result is not None
        stablehlo.ReturnOp([result])


def _sort_keys(x: Value, dtype: DType) -> list[tuple[Value, DType]]:
    """The scalar keys ``x`` sorts by, most significant first, each with its dtype.

    A complex number sorts by its real part, then its imaginary part (NumPy's
    lexicographic order); a float by itself with -0.0 made 0.0 and every NaN
    the same NaN, so that a total-order comparison keeps zeros of either sign
    (and NaNs of either sign, all placed last) in their input order.
    """
    if issubdtype(dtype, np.complexfloating):
        part = np.dtype(np.finfo(dtype).dtype)
        return [
            (_canonical_float(stablehlo.RealOp(x).result, part), part),
            (_canonical_float(stablehlo.ImagOp(x).result, part), part),
        ]
    if issubdtype(dtype, np.floating):
        return [(_canonical_float(x, dtype), dtype)]
    return [(x, dtype)]


def _canonical_float(x: Value, dtype: DType) -> Value:
    zero = _hlo.constant(np.zeros((), dtype))
    nan = _hlo.constant(np.array(np.nan).astype(dtype))
    is_zero = compare_values(x, zero, "EQ", dtype)
    is_nan = compare_values(x, x, "NE", dtype)
    x = stablehlo.SelectOp(is_zero, zero, x).result
    return stablehlo.SelectOp(is_nan, nan, x).result


def _key_compare(a: Value, b: Value, direction: str, dtype: DType) -> Value:
    if issubdtype(dtype, np.floating):
        return stablehlo.CompareOp(
            a, b, stablehlo.ComparisonDirectionAttr.get(direction),
            compare_type=stablehlo.ComparisonTypeAttr.get("TOTALORDER"),
        ).result  # fmt: skip
    return compare_values(a, b, direction, dtype)


def _sort_lowering(
    ctx: LoweringRuleContext, *xs: Value, dimension: int, is_stable: bool, num_keys: int
) -> list[Value]:
    types = [out_type(a) for a in ctx.avals_out]
    op = stablehlo.SortOp(types, list(xs), dimension=dimension, is_stable=bool(is_stable))
    _sort_comparator(op, [a.dtype for a in ctx.avals_in], num_keys)
    return list(op.results)


register_lowering(P.sort_p, _sort_lowering)


def _top_k_lowering(ctx: LoweringRuleContext, x: Value, *, k: int, axis: int) -> list[Value]:
    aval = ctx.avals_in[0]
    last = aval.ndim - 1
    perm = list(range(aval.ndim))
    perm[axis], perm[last] = perm[last], perm[axis]
    if axis != last:
        x = stablehlo.TransposeOp(x, perm).result
    shape = [aval.shape[p] for p in perm]
    shape[-1] = k
    val_ty = _hlo.tensor_type(shape, aval.dtype)
    idx_ty = _hlo.tensor_type(shape, np.int32)
    op = chlo.TopKOp(x, k, results=[val_ty, idx_ty])
    values, indices = op.results
    if axis != last:
        values = stablehlo.TransposeOp(values, perm).result
        indices = stablehlo.TransposeOp(indices, perm).result
    return [values, indices]


register_lowering(P.top_k_p, _top_k_lowering)


def _algorithm_attr(spec: tuple[DType | str, DType | str, DType | str, int, int, int, bool]) -> Any:
    def ty(t: DType | str) -> ir.Type:
        return ir.FloatTF32Type.get() if isinstance(t, str) else ir_element_type(np.dtype(t))

    lhs, rhs, acc, lhs_count, rhs_count, ops, imprecise = spec
    return stablehlo.DotAlgorithm.get(
        ty(lhs), ty(rhs), ty(acc), lhs_count, rhs_count, ops, imprecise
    )


def _dot_general_lowering(
    ctx: LoweringRuleContext,
    lhs: Value,
    rhs: Value,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: tuple[Precision, Precision] | DotAlgorithm | DotAlgorithmPreset | None = None,
    preferred_element_type: DType | None = None,
    **_: object,
) -> list[Value]:
    (lc, rc), (lb, rb) = dimension_numbers
    out = ctx.avals_out[0]
    dtype = out.dtype
    dims = stablehlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb),
        rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc),
        rhs_contracting_dimensions=list(rc),
    )
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        # As JAX: the operands go to the algorithm's types, the result comes back.
        if ctx.platform == "cpu" and precision not in CPU_DOT_ALGORITHMS:
            raise ValueError(f"The precision '{precision}' is not supported by dot_general on CPU")
        lhs_t, rhs_t, acc_t = algorithm_compute_types(
            precision, ctx.avals_in[0].dtype, ctx.avals_in[1].dtype, dtype
        )
        lhs, rhs = _hlo.convert(lhs, lhs_t), _hlo.convert(rhs, rhs_t)
        spec = algorithm_spec(precision, lhs_t, rhs_t)
        kwargs = {} if spec is None else {"algorithm": _algorithm_attr(spec)}
        acc_type = _hlo.tensor_type(out.shape, acc_t)
        result = stablehlo.DotGeneralOp(acc_type, lhs, rhs, dims, **kwargs).result
        return [_hlo.convert(result, dtype)]
    # As JAX: operands of one dtype go in as they are (XLA accumulates them
    # before rounding to a narrower preferred type); mixed ones go to the
    # result's dtype, except on TPU for two real floats or integers.
    l_dt, r_dt = ctx.avals_in[0].dtype, ctx.avals_in[1].dtype
    handled = all(issubdtype(d, np.floating) or issubdtype(d, np.integer) for d in (l_dt, r_dt))
    if l_dt != r_dt and not (ctx.platform == "tpu" and handled):
        lhs = _hlo.convert(lhs, dtype) if l_dt != dtype else lhs
        rhs = _hlo.convert(rhs, dtype) if r_dt != dtype else rhs
    config = _hlo.precision_attr(precision)
    return [stablehlo.DotGeneralOp(out_type(out), lhs, rhs, dims, precision_config=config).result]


register_lowering(P.dot_general_p, _dot_general_lowering)
