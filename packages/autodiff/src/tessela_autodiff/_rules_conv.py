"""JVP and transpose rules of ``conv_general_dilated``.

The convolution is bilinear. Its transposes are convolutions again: for the
input, the cotangent convolved with the spatially reversed kernel (input and
output features swapped, a feature group axis moved into the kernel's output
features), with strides and input dilation exchanged; for the kernel, the
input convolved with the cotangent, feature groups becoming batch groups and
the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of, reshape_axis_into, reshape_axis_out_of

from tessela_autodiff._ad_util import Zero, convert_like, is_undefined, zeros_like_aval
from tessela_autodiff._rule_helpers import conv_vjp_lhs_padding, defbilinear, dilate_shape

__all__: list[str] = []


def _vjp_rhs_padding(
    in_shape: Sequence[int],
    window: Sequence[int],
    strides: Sequence[int],
    out_shape: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
) -> list[tuple[int, int]]:
    if not in_shape:
        return []
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window, rhs_dilation)
    out_d = dilate_shape(out_shape, strides)
    lows = [lo for lo, _ in padding]
    highs = [(o - i) + (k - lo - 1) for o, i, k, lo in zip(out_d, lhs_d, rhs_d, lows, strict=True)]
    return [(int(lo), int(hi)) for lo, hi in zip(lows, highs, strict=True)]


def _swap01(spec: Sequence[int]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _conv_transpose_lhs(ct: Any, lhs_aval: Any, rhs: Any, params: dict[str, Any]) -> Any:
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fg, bg = params["feature_group_count"], params["batch_group_count"]
    rhs_shape = get_aval_of(rhs).shape
    if fg > 1 or bg > 1:
        rhs = reshape_axis_out_of(rhs_spec[0], max(fg, bg), rhs)
        rhs = reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    dn = lax.ConvDimensionNumbers(out_spec, _swap01(rhs_spec), lhs_spec)
    padding = conv_vjp_lhs_padding(
        [lhs_aval.shape[i] for i in lhs_spec[2:]], [rhs_shape[i] for i in rhs_spec[2:]],
        params["window_strides"], [get_aval_of(ct).shape[i] for i in out_spec[2:]],
        params["padding"], params["lhs_dilation"], params["rhs_dilation"],
    )  # fmt: skip
    kernel = lax.rev(rhs, tuple(rhs_spec[2:]))
    out = P.conv_general_dilated_p.bind(
        ct, convert_like(kernel, get_aval_of(ct)),
        window_strides=tuple(params["lhs_dilation"]), padding=tuple(padding),
        lhs_dilation=tuple(params["window_strides"]), rhs_dilation=tuple(params["rhs_dilation"]),
        dimension_numbers=dn, feature_group_count=max(fg, bg), batch_group_count=1,
        precision=params["precision"], preferred_element_type=params["preferred_element_type"],
        out_sharding=None,
    )  # fmt: skip
    if bg > 1:
        out = reshape_axis_out_of(lhs_spec[1], bg, out)
        out = reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return convert_like(out, lhs_aval)


def _conv_transpose_rhs(ct: Any, lhs: Any, rhs_aval: Any, params: dict[str, Any]) -> Any:
    dnums = params["dimension_numbers"]
    lhs_spec, rhs_spec, out_spec = dnums
    ct_shape = get_aval_of(ct).shape
    if int(np.prod(ct_shape)) == 0:
        return zeros_like_aval(rhs_aval)
    fg, bg = params["feature_group_count"], params["batch_group_count"]
    fg, bg = (bg, 1) if bg > 1 else (1, fg)
    dn = lax.ConvDimensionNumbers(_swap01(lhs_spec), _swap01(out_spec), _swap01(rhs_spec))
    padding = _vjp_rhs_padding(
        [get_aval_of(lhs).shape[i] for i in lhs_spec[2:]], [rhs_aval.shape[i] for i in rhs_spec[2:]],
        params["window_strides"], [ct_shape[i] for i in out_spec[2:]], params["padding"],
        params["lhs_dilation"], params["rhs_dilation"],
    )  # fmt: skip
    out = P.conv_general_dilated_p.bind(
        convert_like(lhs, get_aval_of(ct)), ct,
        window_strides=tuple(params["rhs_dilation"]), padding=tuple(padding),
        lhs_dilation=tuple(params["lhs_dilation"]), rhs_dilation=tuple(params["window_strides"]),
        dimension_numbers=dn, feature_group_count=fg, batch_group_count=bg,
        precision=params["precision"], preferred_element_type=params["preferred_element_type"],
        out_sharding=None,
    )  # fmt: skip
    return convert_like(out, rhs_aval)


def _conv_transpose(ct: Any, lhs: Any, rhs: Any, **params: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    if is_undefined(lhs) and is_undefined(rhs):
        raise ValueError("conv_general_dilated is not linear in both operands at once")
    if is_undefined(lhs):
        return [_conv_transpose_lhs(ct, lhs.aval, rhs, params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs.aval, params)]


defbilinear(P.conv_general_dilated_p, _conv_transpose)
