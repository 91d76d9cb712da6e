"""Lowering rule of ``conv_general_dilated``: one ``stablehlo.convolution``.

The operands are converted to ``preferred_element_type`` first when it
differs from theirs; the dimension numbers ``(lhs_spec, rhs_spec, out_spec)``
name the batch, feature and spatial axes of the operand, the kernel and the
result, and map one to one onto StableHLO's ``ConvDimensionNumbers``;
``feature_group_count`` and ``batch_group_count`` pass through; the padding
is one ``(low, high)`` pair per spatial axis, the dilations and strides one
integer each, and the window is never reversed (the transposes that
autodiff builds flip the kernel with ``rev`` instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._hlo import out_type, padding_attr
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._xla import Value, ir, stablehlo

__all__: list[str] = []


def _conv_general_dilated_lowering(
    ctx: LoweringRuleContext,
    lhs: Value,
    rhs: Value,
    *,
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dimension_numbers: Any,
    feature_group_count: int,
    batch_group_count: int,
    precision: Any = None,
    **_: Any,
) -> list[Value]:
    out = ctx.avals_out[0]
    if ctx.avals_in[0].dtype != out.dtype:
        lhs = _hlo.convert(lhs, out.dtype)
        rhs = _hlo.convert(rhs, out.dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dnums = stablehlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0],
        input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0],
        kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0],
        output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]),
    )
    i64 = ir.IntegerType.get_signless(64)
    op = stablehlo.ConvolutionOp(
        out_type(out), lhs, rhs, dnums,
        ir.IntegerAttr.get(i64, int(feature_group_count)),
        ir.IntegerAttr.get(i64, int(batch_group_count)),
        window_strides=[int(s) for s in window_strides],
        padding=padding_attr(padding) if len(padding) else None,
        lhs_dilation=[int(d) for d in lhs_dilation],
        rhs_dilation=[int(d) for d in rhs_dilation],
        window_reversal=[False] * len(window_strides),
        precision_config=_hlo.precision_attr(precision),
    )  # fmt: skip
    return [op.result]


register_lowering(P.conv_general_dilated_p, _conv_general_dilated_lowering)
