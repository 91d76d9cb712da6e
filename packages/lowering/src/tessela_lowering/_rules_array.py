"""Lowering rules of the array primitives: ``device_put``, ``split``, ``stack``, ``tile``, ``unstack``.

- ``device_put``: the identity inside a program. Eagerly it places host data
  on the device without compiling anything: its eager implementation
  (:func:`~tessela_lowering._array.device_put_impl`, registered here with
  ``register_impl``) is :func:`device_put` of each operand, which is how the
  tracer's ``to_concrete_array`` turns host data into an ``Array``.
- ``stack``: each operand reshaped to have a unit axis, then concatenated.
- ``unstack`` and ``split``: consecutive ``stablehlo.slice`` ops along the
  axis (``unstack`` reshapes each unit slice to drop the axis).
- ``tile``: a broadcast to ``(r0, d0, r1, d1, ...)``, then a reshape merging
  each pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import register_impl

from tessela_lowering import _hlo
from tessela_lowering._array import device_put_impl
from tessela_lowering._hlo import out_type
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value, stablehlo

__all__: list[str] = []


def _device_put_lowering(ctx: LoweringRuleContext, *args: Value, **_: Any) -> list[Value]:
    return list(args)


register_lowering(P.device_put_p, _device_put_lowering)
register_impl(P.device_put_p, device_put_impl)


def _stack_lowering(ctx: LoweringRuleContext, *xs: Value, axis: int) -> list[Value]:
    out = ctx.avals_out[0]
    piece = _hlo.tensor_type((*out.shape[:axis], 1, *out.shape[axis + 1 :]), out.dtype)
    parts = [stablehlo.ReshapeOp(piece, x).result for x in xs]
    return [stablehlo.ConcatenateOp(parts, axis).result]


register_lowering(P.stack_p, _stack_lowering)


def _slices_along(x: Value, shape: Sequence[int], axis: int, sizes: Sequence[int]) -> list[Value]:
    """Consecutive slices of ``x`` along ``axis`` with the given sizes."""
    out: list[Value] = []
    start = 0
    for size in sizes:
        lo = [0] * len(shape)
        hi = list(shape)
        lo[axis], hi[axis] = start, start + int(size)
        out.append(stablehlo.SliceOp(x, lo, hi, [1] * len(shape)).result)
        start += int(size)
    return out


def _unstack_lowering(ctx: LoweringRuleContext, x: Value, *, axis: int) -> list[Value]:
    shape = ctx.avals_in[0].shape
    pieces = _slices_along(x, shape, axis, [1] * shape[axis])
    return [
        stablehlo.ReshapeOp(out_type(aval), p).result
        for p, aval in zip(pieces, ctx.avals_out, strict=True)
    ]


register_lowering(P.unstack_p, _unstack_lowering)


def _split_lowering(
    ctx: LoweringRuleContext, x: Value, *, sizes: Sequence[int], axis: int
) -> list[Value]:
    return _slices_along(x, ctx.avals_in[0].shape, axis, sizes)


register_lowering(P.split_p, _split_lowering)


def _tile_lowering(ctx: LoweringRuleContext, x: Value, *, reps: Sequence[int]) -> list[Value]:
    # Broadcast to (r0, d0, r1, d1, ...) with the operand on the odd axes, then merge pairs.
    shape = ctx.avals_in[0].shape
    t = _hlo.key_trailing(ctx.avals_in[0])  # keys: their words ride along, last
    wide = [n for r, d in zip(reps, shape, strict=True) for n in (int(r), d)]
    dims = [*(2 * i + 1 for i in range(len(shape))), *range(len(wide), len(wide) + len(t))]
    spread = _hlo.broadcast_in_dim(x, [*wide, *t], dims)
    return [stablehlo.ReshapeOp(out_type(ctx.avals_out[0]), spread).result]


register_lowering(P.tile_p, _tile_lowering)
