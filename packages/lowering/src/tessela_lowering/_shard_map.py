"""shard_map over a mesh: the per-device program, run by XLA with manual sharding.

:func:`shard_map_call` runs a per-device program (a jaxpr traced on the
blocks each device holds, with the mesh axes bound as named axes) on arrays
split over a mesh. It lowers, as JAX 0.10.2 does, to an
``sdy.manual_computation`` whose body is the per-device program; the
collectives in the body (``psum``, ``all_gather``, ``axis_index``, ...)
become XLA collectives over the mesh axes they name
(:mod:`tessela_lowering._rules_collective` reads :func:`manual_mesh`).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np
import numpy.typing as npt
from tessela_tracer import ClosedJaxpr, ShapedArray, get_aval
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _hlo
from tessela_lowering._lowering import ModuleContext, lower_closed_jaxpr
from tessela_lowering._mesh import Mesh, NamedSharding, PartitionSpec
from tessela_lowering._sharded import ShardedArray, laid_out_as
from tessela_lowering._spmd import SpmdExecutable, _cache, _cache_lock, build_spmd_module
from tessela_lowering._spmd_jit import fast_sharded_call
from tessela_lowering._xla import Value, _shards, device_platform, ir

__all__ = [
    "axis_groups",
    "global_aval",
    "local_aval",
    "manual_mesh",
    "next_channel",
    "shard_map_call",
    "shard_map_text",
]

_manual: ContextVar[Mesh | None] = ContextVar("tessela_manual_mesh", default=None)
_channels = itertools.count(1)


def manual_mesh() -> Mesh | None:
    """The mesh whose manual computation is being lowered (``None`` outside one)."""
    return _manual.get()


@contextlib.contextmanager
def _lowering_manual(mesh: Mesh) -> Iterator[None]:
    token = _manual.set(mesh)
    try:
        yield
    finally:
        _manual.reset(token)


def next_channel() -> int:
    """A fresh channel id for a collective (XLA wants one per cross-device op)."""
    return next(_channels)


def axis_groups(mesh: Mesh, names: Sequence[Hashable]) -> npt.NDArray[np.int64]:
    """The device positions that communicate over the mesh axes ``names``, one row per group.

    Args:
      mesh: the mesh.
      names: the axes the collective runs over (the first one major).

    Returns:
      An int64 array ``[groups, members]`` of positions in the mesh's device order.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> mesh = Mesh(np.array(tl.devices()[:1]).reshape(1, 1), ("x", "y"))
      >>> axis_groups(mesh, ("x",)).tolist()
      [[0]]
    """
    positions = np.arange(mesh.size, dtype=np.int64).reshape(mesh.axis_sizes)
    chosen = [mesh.axis_names.index(n) for n in names]
    others = [i for i in range(len(mesh.axis_names)) if i not in chosen]
    members = int(np.prod([mesh.axis_sizes[i] for i in chosen], dtype=np.int64))
    return positions.transpose(others + chosen).reshape(-1, members)


def _tiles(mesh: Mesh, spec: PartitionSpec, ndim: int) -> list[int]:
    sizes = mesh.shape
    return [int(np.prod([sizes[a] for a in spec.axes_of(d)], dtype=np.int64)) for d in range(ndim)]


def local_aval(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec, what: str) -> ShapedArray:
    """The block of ``aval`` each device holds when it is split as ``spec``.

    Raises:
      ValueError: the spec is longer than the rank, names an unknown axis, or
        a split dimension is not divisible by its number of blocks.
    """
    if len(spec) > aval.ndim:
        raise ValueError(
            f"shard_map {what} has spec {spec} with {len(spec)} entries but rank {aval.ndim}; "
            "give at most one entry per dimension."
        )
    unknown = [a for d in range(len(spec)) for a in spec.axes_of(d) if a not in mesh.axis_names]
    if unknown:
        raise ValueError(
            f"shard_map {what}: spec {spec} names the axis {unknown[0]!r}, which the mesh "
            f"{mesh.axis_names} does not have; use one of the mesh's axis names."
        )
    tiles = _tiles(mesh, spec, aval.ndim)
    for d, (n, t) in enumerate(zip(aval.shape, tiles, strict=True)):
        if n % t:
            raise ValueError(
                f"shard_map applied to the function with {what} of shape {aval.str_short()}: "
                f"spec {spec} splits dimension {d} (size {n}) into {t} blocks, which does "
                "not divide it evenly; pad it to a multiple of the mesh axis sizes."
            )
    shape = tuple(n // t for n, t in zip(aval.shape, tiles, strict=True))
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def global_aval(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec) -> ShapedArray:
    """The whole array that blocks ``aval`` make when put together as ``spec`` says."""
    tiles = _tiles(mesh, spec, aval.ndim)
    shape = tuple(n * t for n, t in zip(aval.shape, tiles, strict=True))
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def _per_value(specs: Sequence[PartitionSpec], avals: Sequence[ShapedArray]) -> str:
    inner = ", ".join(
        "<@mesh, [" + ", ".join(
            "{" + ", ".join(f'"{a}"' for a in s.axes_of(d)) + "}" for d in range(a.ndim)
        ) + "]>"
        for s, a in zip(specs, avals, strict=True)
    )  # fmt: skip
    return f"#sdy.sharding_per_value<[{inner}]>"


def shard_map_call(
    body: ClosedJaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
    args: Sequence[ArrayLike],
    *,
    name: str = "shmap_body",
) -> list[ShardedArray]:
    """Run the per-device program ``body`` on ``args`` split over ``mesh``.

    Args:
      body: the program each device runs on its blocks (traced with the mesh
        axes bound as named axes).
      mesh: the devices.
      in_specs: how each argument is split into blocks.
      out_specs: how each output's blocks make the whole output.
      args: the arguments (whole arrays; moved to the mesh as needed).
      name: a name for the module.

    Returns:
      The outputs, each a :class:`ShardedArray` laid out as its out spec.
    """
    return _entry(body, mesh, in_specs, out_specs, args, name)(args, in_specs)


def _entry(
    body: ClosedJaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
    args: Sequence[ArrayLike],
    name: str,
) -> SpmdExecutable:
    key = ("shard_map", body, mesh, tuple(in_specs), tuple(out_specs))
    entry = _cache.get(key)
    if entry is None:
        entry = _compile(body, mesh, tuple(in_specs), tuple(out_specs), args, name)
        with _cache_lock:
            _cache[key] = entry
    return entry


def shard_map_runner(
    body: ClosedJaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
    args: Sequence[ArrayLike],
    *,
    name: str = "shmap_body",
) -> Callable[[Sequence[ShardedArray]], list[ShardedArray]] | None:
    """:func:`shard_map_call` bound to arguments laid out as ``args`` are.

    For a caller that keys its later calls on the arguments' signatures
    (which name each sharding): the returned function runs the compiled
    program on the arguments' buffers without checking or moving them.

    Args:
      body: the per-device program.
      mesh: the devices.
      in_specs: how each argument is split.
      out_specs: how the outputs are put together.
      args: arguments of the layout later calls will have.

    Returns:
      ``run(args)``, the outputs as :func:`shard_map_call` returns them; ``None``
      unless every argument is a :class:`ShardedArray` laid out as its spec says.
    """
    if not laid_out_as(args, (NamedSharding(mesh, spec) for spec in in_specs)):
        return None
    entry = _entry(body, mesh, in_specs, out_specs, args, name)
    return fast_sharded_call(entry, (), (), list)


def shard_map_text(
    body: ClosedJaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
    in_avals: Sequence[ShapedArray],
    *,
    name: str = "shmap_body",
) -> str:
    """The StableHLO module :func:`shard_map_call` compiles, as text.

    Args:
      body: the per-device program.
      mesh: the devices.
      in_specs: how each argument is split.
      out_specs: how the outputs are put together.
      in_avals: the whole arguments' abstract values.
      name: a name for the module.

    Returns:
      The module, with ``sdy.mesh``, the arguments' ``sdy.sharding`` and the
      ``sdy.manual_computation`` around the per-device program.
    """
    return _module(body, mesh, tuple(in_specs), tuple(out_specs), list(in_avals), name)[0]


def _compile(
    body: ClosedJaxpr,
    mesh: Mesh,
    in_specs: tuple[PartitionSpec, ...],
    out_specs: tuple[PartitionSpec, ...],
    args: Sequence[Any],
    name: str,
) -> SpmdExecutable:
    text, out_avals = _module(body, mesh, in_specs, out_specs, [get_aval(a) for a in args], name)
    exe = _shards.compile_spmd(text, list(mesh.devices.flat))
    entry = SpmdExecutable(exe, text, mesh, out_avals)
    # The outputs keep the specs as given (``P(None, None)`` stays so), as in JAX.
    entry.out_shardings = [NamedSharding(mesh, s) for s in out_specs]
    return entry


def _module(
    body: ClosedJaxpr,
    mesh: Mesh,
    in_specs: tuple[PartitionSpec, ...],
    out_specs: tuple[PartitionSpec, ...],
    in_avals: list[ShapedArray],
    name: str,
) -> tuple[str, list[ShapedArray]]:
    local_in = [v.aval for v in body.jaxpr.invars]
    local_out = [v.aval for v in body.jaxpr.outvars]
    out_avals = [global_aval(a, mesh, s) for a, s in zip(local_out, out_specs, strict=True)]
    manual = "#sdy<manual_axes{" + ", ".join(f'"{n}"' for n in mesh.axis_names) + "}>"

    def emit(mctx: ModuleContext, values: list[Value]) -> list[Value]:
        op: Any = _shards.sdy.ManualComputationOp(
            [_hlo.tensor_type(a.shape, a.dtype) for a in out_avals],
            values,
            ir.Attribute.parse(_per_value(in_specs, in_avals)),
            ir.Attribute.parse(_per_value(out_specs, out_avals)),
            ir.Attribute.parse(manual),
        )
        block = op.body.blocks.append(*[_hlo.tensor_type(a.shape, a.dtype) for a in local_in])
        with ir.InsertionPoint(block), _lowering_manual(mesh):
            outs = lower_closed_jaxpr(mctx, body, list(block.arguments))
            _shards.sdy.ReturnOp(outs)
        return list(op.results)

    platform = device_platform(mesh.devices.flat[0])
    callbacks: list[Any] = []
    text = build_spmd_module(
        name, mesh, in_avals, in_specs, out_avals, emit, platform=platform,
        host_callbacks=callbacks,
    )  # fmt: skip
    if callbacks:
        raise NotImplementedError(
            "shard_map: host callbacks inside the per-device function are not supported yet."
        )
    return text, out_avals
