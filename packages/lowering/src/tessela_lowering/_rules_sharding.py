"""Lowering rule and eager implementation of ``sharding_constraint``.

Inside a program over a mesh (a module that declares ``sdy.mesh @mesh``) the
constraint is one ``sdy.sharding_constraint`` op with the
``#sdy.sharding`` of its spec, as JAX 0.10.2 emits it; XLA's partitioner lays
the value out so. In a program on one device there is nothing to lay out and
the rule returns its operand. On concrete arrays the constraint moves the
value to its sharding (``device_put``); a sharding over an abstract mesh
refers to the concrete mesh in context (``set_mesh``) when their axis names
and sizes agree (the types may differ, as inside ``auto_axes``); a value
already laid out as asked keeps its buffers and takes the new sharding.
"""

from __future__ import annotations

from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import register_impl
from tessela_tracer.sharding import NamedSharding

from tessela_lowering._array import Array, SingleDeviceSharding, device_put_impl
from tessela_lowering._lowering import LoweringRuleContext, register_lowering
from tessela_lowering._mesh import on_context_mesh, same_layout
from tessela_lowering._sharded import ShardedArray, put_sharded, wrap_global
from tessela_lowering._spmd import sdy_sharding
from tessela_lowering._xla import Value, _shards, ir

__all__: list[str] = []


def _has_mesh(module: ir.Module) -> bool:
    return any(op.operation.name == "sdy.mesh" for op in module.body.operations)


def _sharding_constraint_lowering(
    ctx: LoweringRuleContext, x: Value, *, sharding: object, **_: Any
) -> list[Value]:
    spec = getattr(sharding, "spec", None)
    if spec is None or not _has_mesh(ctx.module_context.module):
        return [x]
    text = sdy_sharding(spec, ctx.avals_in[0].ndim)
    op = _shards.sdy.ShardingConstraintOp(x, ir.Attribute.parse(text))
    return [op.result]


register_lowering(P.sharding_constraint_p, _sharding_constraint_lowering)


def _no_mesh(sharding: object) -> str:
    return (
        f"The sharding {sharding!r} is over an abstract mesh and no mesh of devices "
        "with the same axes is set; call it under `with set_mesh(mesh):`, or pass a "
        "NamedSharding over a Mesh."
    )


def _sharding_constraint_impl(x: Any, *, sharding: object, **_: Any) -> Any:
    # As JAX eagerly: the value reports the abstract mesh's axis types.
    sharding = on_context_mesh(sharding, _no_mesh, keep_axis_types=True)
    if isinstance(sharding, NamedSharding):
        if isinstance(x, ShardedArray):
            if x.sharding == sharding:
                return x
            if same_layout(x.sharding, sharding, x.aval.ndim):
                # Laid out alike (only the mesh's axis types or trailing Nones differ):
                # the same buffers, described by the new sharding.
                return wrap_global(x._global, x.aval, sharding)
        return put_sharded(x, sharding)
    if isinstance(sharding, SingleDeviceSharding):
        (out,) = device_put_impl(x, devices=(sharding,), srcs=(None,), copy_semantics=(None,))
        return out
    return (
        x
        if isinstance(x, Array)
        else device_put_impl(x, devices=(None,), srcs=(None,), copy_semantics=(None,))[0]
    )


register_impl(P.sharding_constraint_p, _sharding_constraint_impl)
