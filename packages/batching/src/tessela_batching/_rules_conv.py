"""Batching rule of the conv family: ``conv_general_dilated``.

A convolution has one batch and one feature dimension per operand, so the
mapped axis is folded into them (``reshape_axis_into``) and split out of the
result again (``reshape_axis_out_of``):

- only the input mapped: into the input's batch dimension (inside each batch
  group when there are several, so the groups stay outermost);
- only the kernel mapped: into the kernel's output features (inside each
  feature or batch group);
- both mapped: into the input's features (or batch groups) and the kernel's
  output features, the feature (batch) group count multiplied by the batch
  size, so that each member of the batch convolves with its own kernel.

The batch is split back out of the result's feature dimension (its batch
dimension when only the input is mapped) and stays at that position, as
JAX's rule does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of, reshape_axis_into, reshape_axis_out_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._core import NotMapped, register_batching

__all__: list[str] = []


def _conv_rule(
    args: Sequence[ArrayLike],
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

    def conv(x: ArrayLike, w: ArrayLike, fg: int, bg: int) -> Array:
        out = P.conv_general_dilated_p.bind(
            x, w, dimension_numbers=dimension_numbers, feature_group_count=fg,
            batch_group_count=bg, **params,
        )  # fmt: skip
        return cast(Array, out)

    if lhs_mapped and rhs_mapped:
        n = get_aval_of(lhs).shape[ld]
        if batch_group_count > 1:
            new_lhs = reshape_axis_into(ld, lhs_spec[0], lhs)
            fg, bg = feature_group_count, batch_group_count * n
        else:
            new_lhs = reshape_axis_into(ld, lhs_spec[1], lhs)
            fg, bg = feature_group_count * n, batch_group_count
        new_rhs = reshape_axis_into(rd, rhs_spec[0], rhs)
        out = conv(new_lhs, new_rhs, fg, bg)
        return reshape_axis_out_of(out_spec[1], n, out), out_spec[1]
    if lhs_mapped:
        n = get_aval_of(lhs).shape[ld]
        if batch_group_count == 1:
            new_lhs = reshape_axis_into(ld, lhs_spec[0], lhs)
        else:
            # keep the batch groups outermost: (groups, n, rest) in the batch axis
            b0 = lhs_spec[0]
            new_lhs = reshape_axis_out_of(b0 + int(ld <= b0), batch_group_count, lhs)
            new_lhs = reshape_axis_into(ld + int(b0 < ld), b0 + 1, new_lhs)
            new_lhs = reshape_axis_into(b0, b0, new_lhs)
        out = conv(new_lhs, rhs, feature_group_count, batch_group_count)
        return reshape_axis_out_of(out_spec[0], n, out), out_spec[0]
    n = get_aval_of(rhs).shape[rd]
    if feature_group_count == 1 and batch_group_count == 1:
        new_rhs = reshape_axis_into(rd, rhs_spec[0], rhs)
        out = conv(lhs, new_rhs, 1, 1)
        return reshape_axis_out_of(out_spec[1], n, out), out_spec[1]
    # groups outermost in the kernel's output features, then the batch, then the rest
    groups = feature_group_count if feature_group_count > 1 else batch_group_count
    o0 = rhs_spec[0]
    new_rhs = reshape_axis_out_of(o0 + int(rd <= o0), groups, rhs)
    new_rhs = reshape_axis_into(rd + int(o0 < rd), o0 + 1, new_rhs)
    new_rhs = reshape_axis_into(o0, o0, new_rhs)
    out = conv(lhs, new_rhs, feature_group_count, batch_group_count)
    f = out_spec[1]
    out = reshape_axis_out_of(f, groups, out)
    out = reshape_axis_out_of(f + 1, n, out)
    out = reshape_axis_into(f, f + 1, out)
    return out, f


register_batching(P.conv_general_dilated_p, _conv_rule)
