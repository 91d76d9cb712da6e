"""Lowering rules of the collectives over named axes (``psum``, ``all_gather``, ``ppermute``, ...).

A collective communicates across the members of a named axis. Inside a
``shard_map`` body the names are mesh axes: the body is lowered inside an
``sdy.manual_computation`` (:mod:`tessela_lowering._shard_map`) and each
collective becomes the XLA collective over the devices that differ only along
the named axes (``stablehlo.all_reduce``/``all_gather`` with global device ids,
``partition_id`` arithmetic for ``axis_index``, ``collective_permute``,
``reduce_scatter``, ``all_to_all``), as JAX emits them. ``vmap``
replaces the collectives over its own axes by array operations before
anything is lowered; a collective that reaches lowering outside a manual
computation names an axis nothing provides, and raises JAX's ``NameError``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
from tessela_tracer import primitives as P

from tessela_lowering import _hlo
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._mesh import Mesh
from tessela_lowering._shard_map import axis_groups, manual_mesh, next_channel
from tessela_lowering._xla import Value, dense_attr, ir, stablehlo

__all__: list[str] = []


def _mesh_for(ctx: LoweringRuleContext, axis_name: tuple[Hashable, ...]) -> Mesh:
    mesh = manual_mesh()
    if mesh is None or any(n not in mesh.axis_names for n in axis_name):
        names = ", ".join(repr(n) for n in axis_name)
        raise NameError(
            f"unbound axis name: {names}. The {ctx.primitive.name} collective reached XLA with "
            "no mapped axis of that name: call it inside shard_map(..., mesh=...) over a mesh "
            "with that axis, or inside vmap(..., axis_name=...) (which computes it over the "
            "batch axis), rather than on its own under jit."
        )
    return mesh


def _groups_attr(mesh: Mesh, names: tuple[Hashable, ...]) -> Any:
    groups = axis_groups(mesh, names)
    ty = ir.RankedTensorType.get(list(groups.shape), ir.IntegerType.get_signless(64))
    return dense_attr(groups, ty)


def _channel() -> Any:
    return stablehlo.ChannelHandle.get(handle=next_channel(), type=1)


def _all_reduce(combine: str) -> Callable[..., list[Value]]:
    # ``combine``: the StableHLO op (by name) reducing two values.
    def rule(ctx: LoweringRuleContext, x: Value, *, axis_name: tuple[Hashable, ...]) -> list[Value]:
        mesh = _mesh_for(ctx, axis_name)
        aval = ctx.avals_out[0]
        op = stablehlo.AllReduceOp(
            [_hlo.out_type(aval)], [x], _groups_attr(mesh, axis_name),
            channel_handle=_channel(), use_global_device_ids=True,
        )  # fmt: skip
        scalar = _hlo.tensor_type((), aval.dtype)
        block = op.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            stablehlo.ReturnOp([getattr(stablehlo, combine)(*block.arguments).result])
        return [op.results[0]]

    return rule


register_lowering(P.psum_p, _all_reduce("AddOp"))
register_lowering(P.pmax_p, _all_reduce("MaxOp"))
register_lowering(P.pmin_p, _all_reduce("MinOp"))


def _all_gather_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    axis: int,
    tiled: bool,
) -> list[Value]:
    mesh = _mesh_for(ctx, axis_name)
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if not tiled:
        # Gather along a new axis of size one per member.
        shape = (*aval_in.shape[:axis], 1, *aval_in.shape[axis:])
        x = stablehlo.ReshapeOp(_hlo.tensor_type(shape, aval_in.dtype), x).result
    op = stablehlo.AllGatherOp(
        [_hlo.out_type(aval_out)], [x], axis, _groups_attr(mesh, axis_name),
        channel_handle=_channel(), use_global_device_ids=True,
    )  # fmt: skip
    return [op.results[0]]


register_lowering(P.all_gather_p, _all_gather_lowering)


def _axis_index_lowering(
    ctx: LoweringRuleContext, *, axis_name: tuple[Hashable, ...]
) -> list[Value]:
    mesh = _mesh_for(ctx, axis_name)
    (name,) = axis_name
    i = mesh.axis_names.index(name)
    stride = int(np.prod(mesh.axis_sizes[i + 1 :], dtype=np.int64))
    u32 = np.dtype(np.uint32)
    pid = stablehlo.PartitionIdOp().result
    major = stablehlo.DivOp(pid, _hlo.constant(stride, u32)).result
    index = stablehlo.RemOp(major, _hlo.constant(mesh.axis_sizes[i], u32)).result
    return [_hlo.convert(index, np.int32)]


register_lowering(P.axis_index_p, _axis_index_lowering)


def _ppermute_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    axis_name: tuple[Hashable, ...],
    perm: tuple[tuple[int, int], ...],
) -> list[Value]:
    mesh = _mesh_for(ctx, axis_name)
    pairs = [(int(g[s]), int(g[d])) for g in axis_groups(mesh, axis_name) for s, d in perm]
    table = np.asarray(pairs, dtype=np.int64).reshape(len(pairs), 2)
    ty = ir.RankedTensorType.get([len(pairs), 2], ir.IntegerType.get_signless(64))
    op = stablehlo.CollectivePermuteOp(
        x,
        dense_attr(table, ty),
        channel_handle=_channel(),
        results=[_hlo.out_type(ctx.avals_out[0])],
    )
    return [op.result]


register_lowering(P.ppermute_p, _ppermute_lowering)


def _reduce_scatter_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    scatter_dimension: int,
    tiled: bool,
) -> list[Value]:
    mesh = _mesh_for(ctx, axis_name)
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    shape = list(aval_in.shape)
    shape[scatter_dimension] //= axis_size
    op = stablehlo.ReduceScatterOp(
        _hlo.tensor_type(shape, aval_in.dtype), x, scatter_dimension,
        _groups_attr(mesh, axis_name), channel_handle=_channel(), use_global_device_ids=True,
    )  # fmt: skip
    scalar = _hlo.tensor_type((), aval_in.dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        stablehlo.ReturnOp([stablehlo.AddOp(block.arguments[0], block.arguments[1]).result])
    out = op.result
    if not tiled:
        out = stablehlo.ReshapeOp(_hlo.out_type(aval_out), out).result
    return [out]


register_lowering(P.reduce_scatter_p, _reduce_scatter_lowering)


def _all_to_all_lowering(
    ctx: LoweringRuleContext,
    x: Value,
    *,
    axis_name: tuple[Hashable, ...],
    axis_size: int,
    split_axis: int,
    concat_axis: int,
    tiled: bool,
) -> list[Value]:
    mesh = _mesh_for(ctx, axis_name)
    op = stablehlo.AllToAllOp(
        [x], split_axis, concat_axis, axis_size, _groups_attr(mesh, axis_name),
        channel_handle=_channel(), results=[_hlo.out_type(ctx.avals_out[0])],
    )  # fmt: skip
    return [op.results[0]]


register_lowering(P.all_to_all_p, _all_to_all_lowering)
