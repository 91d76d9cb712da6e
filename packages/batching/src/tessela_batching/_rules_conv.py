"""Batching rules of convolution and the windowed reductions.

A convolution has one batch and one feature dimension per operand, so the
mapped axis is folded into them: into the input's batch dimension when only
the input is mapped, into the kernel's output features when only the kernel
is, and, when both are, into the input's features (or batch groups) with the
feature (batch) group count multiplied by the batch size, so that each
member of the batch convolves with its own kernel. Windowed reductions and
the max-pool helpers get a window of size 1 along the mapped axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of

from tessela_batching._core import NotMapped, batch_size, bdim_at_front, register_batching

__all__: list[str] = []


def _reshape_axis_into(src: int, dst: int, x: Any) -> Any:
    """Merge axis ``src`` into axis ``dst`` (numbered without ``src``), ``src`` major."""
    shape = get_aval_of(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [d for i, d in enumerate(shape) if i != src]
    new_shape[dst] *= shape[src]
    return lax.reshape(x, tuple(new_shape), tuple(perm))


def _reshape_axis_out_of(src: int, size1: int, x: Any) -> Any:
    """Split axis ``src`` into ``(size1, rest)``."""
    shape = list(get_aval_of(x).shape)
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src : src + 1] = [size1, size2]
    return lax.reshape(x, tuple(shape))


def _conv_rule(
    args: Sequence[Any],
    dims: Sequence[Any],
    *,
    dimension_numbers: Any,
    feature_group_count: int,
    batch_group_count: int,
    **params: Any,
) -> Any:
    lhs, rhs = args
    ld, rd = dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_mapped, rhs_mapped = not isinstance(ld, NotMapped), not isinstance(rd, NotMapped)

    def conv(x: Any, w: Any, fg: int, bg: int) -> Any:
        return P.conv_general_dilated_p.bind(
            x, w, dimension_numbers=dimension_numbers, feature_group_count=fg,
            batch_group_count=bg, **params,
        )  # fmt: skip

    if lhs_mapped and rhs_mapped:
        n = get_aval_of(lhs).shape[ld]
        if batch_group_count > 1:
            new_lhs = _reshape_axis_into(ld, lhs_spec[0], lhs)
            fg, bg = feature_group_count, batch_group_count * n
        else:
            new_lhs = _reshape_axis_into(ld, lhs_spec[1], lhs)
            fg, bg = feature_group_count * n, batch_group_count
        new_rhs = _reshape_axis_into(rd, rhs_spec[0], rhs)
        out = conv(new_lhs, new_rhs, fg, bg)
        return _reshape_axis_out_of(out_spec[1], n, out), out_spec[1]
    if lhs_mapped:
        n = get_aval_of(lhs).shape[ld]
        if batch_group_count == 1:
            new_lhs = _reshape_axis_into(ld, lhs_spec[0], lhs)
        else:
            # keep the batch groups outermost: (groups, n, rest) in the batch axis
            b0 = lhs_spec[0]
            new_lhs = _reshape_axis_out_of(b0 + int(ld <= b0), batch_group_count, lhs)
            new_lhs = _reshape_axis_into(ld + int(b0 < ld), b0 + 1, new_lhs)
            new_lhs = _reshape_axis_into(b0, b0, new_lhs)
        out = conv(new_lhs, rhs, feature_group_count, batch_group_count)
        return _reshape_axis_out_of(out_spec[0], n, out), out_spec[0]
    n = get_aval_of(rhs).shape[rd]
    if feature_group_count == 1 and batch_group_count == 1:
        new_rhs = _reshape_axis_into(rd, rhs_spec[0], rhs)
        out = conv(lhs, new_rhs, 1, 1)
        return _reshape_axis_out_of(out_spec[1], n, out), out_spec[1]
    # groups outermost in the kernel's output features, then the batch, then the rest
    groups = feature_group_count if feature_group_count > 1 else batch_group_count
    o0 = rhs_spec[0]
    new_rhs = _reshape_axis_out_of(o0 + int(rd <= o0), groups, rhs)
    new_rhs = _reshape_axis_into(rd + int(o0 < rd), o0 + 1, new_rhs)
    new_rhs = _reshape_axis_into(o0, o0, new_rhs)
    out = conv(lhs, new_rhs, feature_group_count, batch_group_count)
    f = out_spec[1]
    out = _reshape_axis_out_of(f, groups, out)
    out = _reshape_axis_out_of(f + 1, n, out)
    out = _reshape_axis_into(f, f + 1, out)
    return out, f


register_batching(P.conv_general_dilated_p, _conv_rule)


def _insert(t: tuple[Any, ...], at: int, v: Any) -> tuple[Any, ...]:
    return (*t[:at], v, *t[at:])


def _window_rule(prim: Primitive) -> Any:
    def rule(
        args: Sequence[Any],
        dims: Sequence[Any],
        *,
        window_dimensions: tuple[int, ...],
        window_strides: tuple[int, ...],
        padding: tuple[tuple[int, int], ...],
        base_dilation: tuple[int, ...],
        window_dilation: tuple[int, ...],
    ) -> Any:
        (x,), (d,) = args, dims
        out = prim.bind(
            x,
            window_dimensions=_insert(window_dimensions, d, 1),
            window_strides=_insert(window_strides, d, 1),
            padding=_insert(padding, d, (0, 0)),
            base_dilation=_insert(base_dilation, d, 1),
            window_dilation=_insert(window_dilation, d, 1),
        )
        return out, d

    return rule


for _p in (P.reduce_window_sum_p, P.reduce_window_max_p, P.reduce_window_min_p):
    register_batching(_p, _window_rule(_p))


def _select_gather_rule(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
    size = batch_size(args, dims)
    t, x = (bdim_at_front(a, d, size) for a, d in zip(args, dims, strict=True))
    out = P.select_and_gather_add_p.bind(
        t, x, select_prim=params["select_prim"],
        window_dimensions=(1, *params["window_dimensions"]),
        window_strides=(1, *params["window_strides"]),
        padding=((0, 0), *params["padding"]),
        base_dilation=(1, *params["base_dilation"]),
        window_dilation=(1, *params["window_dilation"]),
    )  # fmt: skip
    return out, 0


def _select_scatter_rule(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
    size = batch_size(args, dims)
    s, x = (bdim_at_front(a, d, size) for a, d in zip(args, dims, strict=True))
    out = P.select_and_scatter_add_p.bind(
        s, x, select_prim=params["select_prim"],
        window_dimensions=(1, *params["window_dimensions"]),
        window_strides=(1, *params["window_strides"]),
        padding=((0, 0), *params["padding"]),
    )  # fmt: skip
    return out, 0


register_batching(P.select_and_gather_add_p, _select_gather_rule)
register_batching(P.select_and_scatter_add_p, _select_scatter_rule)
