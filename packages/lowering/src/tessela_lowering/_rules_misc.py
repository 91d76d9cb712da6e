"""Lowering rules of ``reduce_precision``, ``optimization_barrier`` and the general ``reduce``.

- ``reduce_precision``: ``stablehlo.reduce_precision`` with the exponent and
  mantissa bit counts.
- ``optimization_barrier``: one ``stablehlo.optimization_barrier`` over all
  operands.
- ``reduce`` (the general, traced-computation reduction): a variadic
  ``stablehlo.reduce`` whose region is the computation's jaxpr on scalars.
- ``copy``: its operand (XLA gives the result its own buffer).
- ``create_token`` / ``after_all``: ``stablehlo.create_token`` /
  ``stablehlo.after_all`` (outside ``jit`` they run in the tracer: a token
  holds no data).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import ClosedJaxpr
from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._hlo import out_type
from tessela_lowering._lowering import (
    LoweringRuleContext,
    lower_reduction_region,
    register_lowering,
)
from tessela_lowering._xla import Value, stablehlo

__all__: list[str] = []


def _reduce_precision_lowering(
    ctx: LoweringRuleContext, x: Value, *, exponent_bits: int, mantissa_bits: int
) -> list[Value]:
    op = stablehlo.ReducePrecisionOp(x, int(exponent_bits), int(mantissa_bits))
    return [op.result]


register_lowering(P.reduce_precision_p, _reduce_precision_lowering)


def _optimization_barrier_lowering(ctx: LoweringRuleContext, *args: Value) -> list[Value]:
    op = stablehlo.OptimizationBarrierOp(list(args))
    return list(op.results)


register_lowering(P.optimization_barrier_p, _optimization_barrier_lowering)


def _reduce_lowering(
    ctx: LoweringRuleContext,
    *args: Value,
    computation: Any,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> list[Value]:
    n = len(args) // 2
    ops, inits = list(args[:n]), list(args[n:])
    types = [out_type(a) for a in ctx.avals_out]
    op = stablehlo.ReduceOp(types, ops, inits, [int(d) for d in dimensions])
    lower_reduction_region(ctx.module_context, op, jaxpr, ctx.avals_in[n:])
    return list(op.results)


register_lowering(P.reduce_p, _reduce_lowering)


_RNG_ALGORITHMS = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}


def _rng_bit_generator_lowering(
    ctx: LoweringRuleContext, key: Value, *, shape: Any, dtype: Any, algorithm: Any,
    out_sharding: Any,
) -> list[Value]:  # fmt: skip
    # As JAX: a uint32[4] key is XLA's uint64[2] state, bit for bit.
    key_aval, bits_aval = ctx.avals_out
    u32 = key_aval.dtype == np.uint32
    state = key
    if u32:
        pairs = stablehlo.ReshapeOp(_hlo.tensor_type((2, 2), np.uint32), key).result
        state = stablehlo.BitcastConvertOp(_hlo.tensor_type((2,), np.uint64), pairs).result
    attr = stablehlo.RngAlgorithmAttr.get(_RNG_ALGORITHMS[int(algorithm)])
    op = stablehlo.RngBitGeneratorOp(state.type, out_type(bits_aval), attr, state)
    new_state, bits = op.results
    if u32:
        pairs = stablehlo.BitcastConvertOp(_hlo.tensor_type((2, 2), np.uint32), new_state).result
        new_state = stablehlo.ReshapeOp(out_type(key_aval), pairs).result
    return [new_state, bits]


def _rng_uniform_lowering(
    ctx: LoweringRuleContext, a: Value, b: Value, *, shape: Any
) -> list[Value]:
    dims = _hlo.constant(np.array(ctx.avals_out[0].shape, np.int64))
    dist = stablehlo.RngDistributionAttr.get("UNIFORM")
    return [stablehlo.RngOp(a, b, dims, dist).result]


register_lowering(P.rng_bit_generator_p, _rng_bit_generator_lowering)
register_lowering(P.rng_uniform_p, _rng_uniform_lowering)


register_lowering(P.copy_p, lambda ctx, x: [x])


def _create_token_lowering(ctx: LoweringRuleContext, *args: Value) -> list[Value]:
    return [stablehlo.CreateTokenOp().result]


register_lowering(P.create_token_p, _create_token_lowering)


def _after_all_lowering(ctx: LoweringRuleContext, *tokens: Value) -> list[Value]:
    if not tokens:
        return [stablehlo.CreateTokenOp().result]
    return [stablehlo.AfterAllOp(list(tokens)).result]


register_lowering(P.after_all_p, _after_all_lowering)
