"""JVP and transpose rules of convolution and the windowed reductions.

``conv_general_dilated`` is bilinear. Its transposes are convolutions again:
for the input, the cotangent convolved with the spatially reversed kernel
(input and output features swapped, a feature group axis moved into the
kernel's output features), with strides and input dilation exchanged; for the
kernel, the input convolved with the cotangent, feature groups becoming batch
groups and the reverse. ``reduce_window_sum`` is linear: its transpose pads
the cotangent (holes for the strides) and sums windows again. The tangent of a
max (min) pool is ``select_and_gather_add`` of the tangent at each window's
chosen element; its transpose is ``select_and_scatter_add``, and the two
transpose into each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P

from tessela_autodiff._ad_util import Zero, aval_of, convert_like, is_undefined, zeros_like_aval
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rules_util import deflinear2
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _dilate(shape: Sequence[int], dilation: Sequence[int]) -> list[int]:
    return [0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation, strict=True)]


def _vjp_lhs_padding(
    in_shape: Sequence[int],
    window: Sequence[int],
    strides: Sequence[int],
    out_shape: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
) -> list[tuple[int, int]]:
    lhs_d = _dilate(in_shape, lhs_dilation)
    rhs_d = _dilate(window, rhs_dilation)
    out_d = _dilate(out_shape, strides)
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding, strict=True)]
    after = [i + k - 1 - o - b for i, k, o, b in zip(lhs_d, rhs_d, out_d, before, strict=True)]
    return [(int(b), int(a)) for b, a in zip(before, after, strict=True)]


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
    lhs_d = _dilate(in_shape, lhs_dilation)
    rhs_d = _dilate(window, rhs_dilation)
    out_d = _dilate(out_shape, strides)
    lows = [lo for lo, _ in padding]
    highs = [(o - i) + (k - lo - 1) for o, i, k, lo in zip(out_d, lhs_d, rhs_d, lows, strict=True)]
    return [(int(lo), int(hi)) for lo, hi in zip(lows, highs, strict=True)]


def _reshape_axis_into(src: int, dst: int, x: Any) -> Any:
    shape = aval_of(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [d for i, d in enumerate(shape) if i != src]
    new_shape[dst] *= shape[src]
    return lax.reshape(x, tuple(new_shape), tuple(perm))


def _reshape_axis_out_of(src: int, size1: int, x: Any) -> Any:
    shape = list(aval_of(x).shape)
    shape[src : src + 1] = [size1, shape[src] // size1]
    return lax.reshape(x, tuple(shape))


def _swap01(spec: Sequence[int]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _conv_transpose_lhs(ct: Any, lhs_aval: Any, rhs: Any, params: dict[str, Any]) -> Any:
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fg, bg = params["feature_group_count"], params["batch_group_count"]
    rhs_shape = aval_of(rhs).shape
    if fg > 1 or bg > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], max(fg, bg), rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    dn = lax.ConvDimensionNumbers(out_spec, _swap01(rhs_spec), lhs_spec)
    padding = _vjp_lhs_padding(
        [lhs_aval.shape[i] for i in lhs_spec[2:]], [rhs_shape[i] for i in rhs_spec[2:]],
        params["window_strides"], [aval_of(ct).shape[i] for i in out_spec[2:]],
        params["padding"], params["lhs_dilation"], params["rhs_dilation"],
    )  # fmt: skip
    kernel = lax.rev(rhs, tuple(rhs_spec[2:]))
    out = P.conv_general_dilated_p.bind(
        ct, convert_like(kernel, aval_of(ct)),
        window_strides=tuple(params["lhs_dilation"]), padding=tuple(padding),
        lhs_dilation=tuple(params["window_strides"]), rhs_dilation=tuple(params["rhs_dilation"]),
        dimension_numbers=dn, feature_group_count=max(fg, bg), batch_group_count=1,
        precision=params["precision"], preferred_element_type=params["preferred_element_type"],
        out_sharding=None,
    )  # fmt: skip
    if bg > 1:
        out = _reshape_axis_out_of(lhs_spec[1], bg, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return convert_like(out, lhs_aval)


def _conv_transpose_rhs(ct: Any, lhs: Any, rhs_aval: Any, params: dict[str, Any]) -> Any:
    dnums = params["dimension_numbers"]
    lhs_spec, rhs_spec, out_spec = dnums
    ct_shape = aval_of(ct).shape
    if int(np.prod(ct_shape)) == 0:
        return zeros_like_aval(rhs_aval)
    fg, bg = params["feature_group_count"], params["batch_group_count"]
    fg, bg = (bg, 1) if bg > 1 else (1, fg)
    dn = lax.ConvDimensionNumbers(_swap01(lhs_spec), _swap01(out_spec), _swap01(rhs_spec))
    padding = _vjp_rhs_padding(
        [aval_of(lhs).shape[i] for i in lhs_spec[2:]], [rhs_aval.shape[i] for i in rhs_spec[2:]],
        params["window_strides"], [ct_shape[i] for i in out_spec[2:]], params["padding"],
        params["lhs_dilation"], params["rhs_dilation"],
    )  # fmt: skip
    out = P.conv_general_dilated_p.bind(
        convert_like(lhs, aval_of(ct)), ct,
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


def _conv_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    x, w = primals
    tx, tw = tangents
    ans = P.conv_general_dilated_p.bind(x, w, **params)
    out: Any = Zero(aval_of(ans))
    if type(tx) is not Zero:
        out = P.conv_general_dilated_p.bind(tx, w, **params)
    if type(tw) is not Zero:
        term = P.conv_general_dilated_p.bind(x, tw, **params)
        out = term if type(out) is Zero else lax.add(out, term)
    return ans, out


register_jvp(P.conv_general_dilated_p, _conv_jvp)
register_transpose(P.conv_general_dilated_p, _conv_transpose)


# ------------------------------------------------------------- windows


def _reduce_window_sum_transpose(
    ct: Any,
    x: Any,
    *,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> list[Any]:
    shape = x.aval.shape
    pads = _vjp_lhs_padding(
        shape, window_dimensions, window_strides, aval_of(ct).shape, padding, base_dilation,
        window_dilation,
    )  # fmt: skip
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides, strict=True)]
    padded = lax.pad(ct, np.zeros((), aval_of(ct).dtype), config)
    ones = (1,) * len(shape)
    out = P.reduce_window_sum_p.bind(
        padded, window_dimensions=tuple(window_dimensions), window_strides=tuple(base_dilation),
        padding=((0, 0),) * len(shape), base_dilation=ones, window_dilation=tuple(window_dilation),
    )  # fmt: skip
    return [out]


deflinear2(P.reduce_window_sum_p, _reduce_window_sum_transpose)


def _chooser_jvp(select_prim: Any, prim: Any) -> Any:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, **params)
        if type(t) is Zero:
            return ans, Zero(aval_of(ans))
        return ans, P.select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)

    return rule


register_jvp(P.reduce_window_max_p, _chooser_jvp(P.ge_p, P.reduce_window_max_p))
register_jvp(P.reduce_window_min_p, _chooser_jvp(P.le_p, P.reduce_window_min_p))


def _linear_in_first(prim: Any) -> Any:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        (t, x), (g, _) = primals, tangents
        ans = prim.bind(t, x, **params)
        if type(g) is Zero:
            return ans, Zero(aval_of(ans))
        return ans, prim.bind(g, x, **params)

    return rule


def _select_and_gather_add_transpose(
    ct: Any,
    t: Any,
    x: Any,
    *,
    select_prim: Any,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> list[Any]:
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={window_dilation}."
        )
    if type(ct) is Zero:
        return [None, None]
    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        dtype = aval_of(x).dtype
        fill = -np.inf if select_prim is P.ge_p else np.inf
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            fill = info.min if select_prim is P.ge_p else info.max
        x = lax.pad(x, np.array(fill, dtype), [(0, 0, d - 1) for d in base_dilation])
    out = P.select_and_scatter_add_p.bind(
        ct, x, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding,
    )  # fmt: skip
    if dilated:
        shape = aval_of(out).shape
        out = lax.slice(out, (0,) * len(shape), shape, base_dilation)
    return [out, None]


def _select_and_scatter_add_transpose(
    ct: Any, s: Any, x: Any, *, select_prim: Any, **params: Any
) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    ones = (1,) * len(params["window_dimensions"])
    out = P.select_and_gather_add_p.bind(
        ct, x, select_prim=select_prim, base_dilation=ones, window_dilation=ones, **params
    )
    return [out, None]


register_jvp(P.select_and_gather_add_p, _linear_in_first(P.select_and_gather_add_p))
register_transpose(P.select_and_gather_add_p, _select_and_gather_add_transpose)
register_jvp(P.select_and_scatter_add_p, _linear_in_first(P.select_and_scatter_add_p))
register_transpose(P.select_and_scatter_add_p, _select_and_scatter_add_transpose)
