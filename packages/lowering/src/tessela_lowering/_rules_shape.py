"""Lowering rules of the shape primitives.

Each is one StableHLO op: ``broadcast_in_dim``, ``reshape`` (a transpose first
when ``dimensions`` is given), ``transpose``, ``squeeze`` (a reshape), ``rev``
(``stablehlo.reverse``), ``slice``, ``concatenate``, ``pad`` (low, high and
interior padding per axis) and ``iota``. On key arrays (an extended dtype,
held as ``uint32[..., 2]``) the rules extend their shape parameters with the
trailing axis of each key's words, as JAX's rules do for extended dtypes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._hlo import out_type
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value, stablehlo

__all__: list[str] = []


def _keep_trailing(ctx: LoweringRuleContext, permutation: Sequence[int]) -> list[int]:
    """A permutation of a key array's axes, extended to keep its words last."""
    n = len(permutation)
    t = _hlo.key_trailing(ctx.avals_in[0])
    return [*(int(d) for d in permutation), *range(n, n + len(t))]


def _broadcast_in_dim_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *dyn: Value,
    shape: Sequence[int],
    broadcast_dimensions: Sequence[int],
    **_: Any,
) -> list[Value]:
    t = _hlo.key_trailing(ctx.avals_out[0])  # keys: their words ride along
    n = len(shape)
    dims = [*broadcast_dimensions, *range(n, n + len(t))]
    return [_hlo.broadcast_in_dim(x, (*shape, *t), dims)]


register_lowering(P.broadcast_in_dim_p, _broadcast_in_dim_lowering)


def _reshape_lowering(
    ctx: LoweringRuleContext, x: Value, *dyn: Value, dimensions: Any = None, **_: Any
) -> list[Value]:
    if dimensions is not None:  # a transpose comes first
        x = stablehlo.TransposeOp(x, _keep_trailing(ctx, dimensions)).result
    return [stablehlo.ReshapeOp(out_type(ctx.avals_out[0]), x).result]


register_lowering(P.reshape_p, _reshape_lowering)


def _transpose_lowering(
    ctx: LoweringRuleContext, x: Value, *, permutation: Sequence[int]
) -> list[Value]:
    return [stablehlo.TransposeOp(x, _keep_trailing(ctx, permutation)).result]


register_lowering(P.transpose_p, _transpose_lowering)


def _squeeze_lowering(ctx: LoweringRuleContext, x: Value, **_: Any) -> list[Value]:
    return [stablehlo.ReshapeOp(out_type(ctx.avals_out[0]), x).result]


register_lowering(P.squeeze_p, _squeeze_lowering)


def _rev_lowering(ctx: LoweringRuleContext, x: Value, *, dimensions: Sequence[int]) -> list[Value]:
    return [stablehlo.ReverseOp(x, list(dimensions)).result]


register_lowering(P.rev_p, _rev_lowering)


def _slice_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> list[Value]:
    steps = list(strides) if strides is not None else [1] * len(start_indices)
    t = _hlo.key_trailing(ctx.avals_in[0])  # keys: whole keys are kept
    starts = [*start_indices, *([0] * len(t))]
    steps += [1] * len(t)
    return [stablehlo.SliceOp(x, starts, [*limit_indices, *t], steps).result]


register_lowering(P.slice_p, _slice_lowering)


def _concatenate_lowering(ctx: LoweringRuleContext, *xs: Value, dimension: int) -> list[Value]:
    return [stablehlo.ConcatenateOp(list(xs), dimension).result]


register_lowering(P.concatenate_p, _concatenate_lowering)


def _pad_lowering(
    ctx: LoweringRuleContext, x: Value, pad_value: Value, *, padding_config: Any
) -> list[Value]:
    config = [*padding_config, *[(0, 0, 0)] * len(_hlo.key_trailing(ctx.avals_in[0]))]
    lo, hi, interior = zip(*config, strict=True) if config else ((), (), ())
    op = stablehlo.PadOp(x, pad_value, list(lo), list(hi), list(interior))
    return [op.result]


register_lowering(P.pad_p, _pad_lowering)


def _iota_lowering(ctx: LoweringRuleContext, *, dimension: int, **_: Any) -> list[Value]:
    return [stablehlo.IotaOp(out_type(ctx.avals_out[0]), dimension).result]


register_lowering(P.iota_p, _iota_lowering)
