"""Arrays over several devices: jaxlib's multi-device arrays, HLO shardings, SPMD compiles.

A sharded array is one jaxlib ``ArrayImpl`` that owns one single-device
buffer per device, together with a jaxlib sharding that names the devices
(a ``DeviceList``) and an XLA ``HloSharding`` whose tile assignment refers to
*positions* in that list. The executables compiled here use the same
convention: partition ``i`` runs on the ``i``-th device of the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
from jaxlib.mlir import ir

from tessela_lowering._xla._dialects import sdy
from tessela_lowering._xla._jaxlib import (
    AvalLike,
    Buffer,
    Device,
    Executable,
    ResultHandler,
    _jax,
    _xla_client,
)

__all__ = [
    "DeviceClass",
    "HloSharding",
    "XlaSharding",
    "assemble",
    "compile_spmd",
    "hlo_sharding",
    "load_sdy",
    "output_shardings",
    "parameter_shardings",
    "placement",
    "sdy",
    "shard_buffers",
    "sharded_result_handler",
    "tile_map",
]

DeviceClass: Any = _jax.Device
"""jaxlib's device class (``jax.Device``): every device is an instance."""

HloSharding: Any = _xla_client.HloSharding
"""XLA's description of how an array is split over partitions."""

XlaSharding: TypeAlias = Any
"""An instance of :data:`HloSharding`, or its ``OpSharding`` proto (jaxlib ships both untyped)."""


class _MultiPlacement(_jax.GSPMDSharding):  # type: ignore[misc]
    """jaxlib's sharding over a device list, plus the two members its runtime reads.

    JAX's own subclass provides ``memory_kind`` and ``_to_xla_hlo_sharding``;
    the result handlers and ``ArrayImpl`` ask for them.
    """

    memory_kind = None

    def _to_xla_hlo_sharding(self, num_dimensions: int) -> XlaSharding:
        del num_dimensions
        return self._hlo_sharding


_placements: dict[tuple[tuple[Device, ...], str], _MultiPlacement] = {}


def hlo_sharding(
    tile_dims: Sequence[int], device_order: Sequence[int], *, replicated_last: bool
) -> XlaSharding:
    """An HloSharding: ``tile_dims`` tiles, the devices in ``device_order`` (row-major).

    Args:
      tile_dims: the number of tiles per array dimension, then (when
        ``replicated_last``) the number of copies of each tile.
      device_order: device positions, one per tile (and copy), row-major.
      replicated_last: the last entry of ``tile_dims`` counts copies.

    Returns:
      The sharding; replicated when every tile count is one.

    Example:
      >>> str(hlo_sharding([2, 1, 2], [0, 1, 2, 3], replicated_last=True))
      '{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}'
    """
    dims = [int(d) for d in tile_dims]
    tiles = dims[:-1] if replicated_last else dims
    if all(d == 1 for d in tiles):
        return HloSharding.replicate()
    order = ",".join(str(int(p)) for p in device_order)
    tail = " last_tile_dim_replicate" if replicated_last and dims[-1] > 1 else ""
    if replicated_last and dims[-1] == 1:
        dims = dims[:-1]
    return HloSharding.from_string(f"{{devices=[{','.join(map(str, dims))}]{order}{tail}}}")


def tile_map(sharding: XlaSharding, ndim: int, num_devices: int) -> list[tuple[int, ...]]:
    """For each device position, the index of the tile it holds, per array dimension.

    Args:
      sharding: an HloSharding or an OpSharding proto.
      ndim: the array's rank.
      num_devices: how many devices the array spans.

    Returns:
      One tuple of ``ndim`` tile indices per device position.

    Example:
      >>> s = hlo_sharding([2, 1, 2], [0, 1, 2, 3], replicated_last=True)
      >>> tile_map(s, 2, 4)
      [(0, 0), (0, 0), (1, 0), (1, 0)]
    """
    if not isinstance(sharding, HloSharding):
        sharding = HloSharding.from_proto(sharding)
    if sharding.is_replicated() or sharding.is_maximal() or not sharding.is_tiled():
        return [(0,) * ndim] * num_devices
    dims = list(sharding.tile_assignment_dimensions())
    grid = np.array(sharding.tile_assignment_devices(), dtype=np.int64).reshape(dims)
    out: list[tuple[int, ...]] = [(0,) * ndim] * num_devices
    for index in np.ndindex(*dims):
        out[int(grid[index])] = tuple(int(i) for i in index[:ndim])
    return out


def placement(devices: Sequence[Device], sharding: XlaSharding) -> _MultiPlacement:
    """jaxlib's sharding object for ``devices`` split as ``sharding`` (cached).

    Args:
      devices: the devices, in the order the sharding's positions refer to.
      sharding: an HloSharding.

    Returns:
      An object to build arrays and result handlers with.
    """
    key = (tuple(devices), str(sharding))
    hit = _placements.get(key)
    if hit is None:
        hit = _MultiPlacement(_jax.DeviceList(tuple(devices)), sharding)
        _placements[key] = hit
    return hit


def assemble(
    aval: AvalLike, devices: Sequence[Device], sharding: XlaSharding, shards: list[Buffer]
) -> Buffer:
    """One jaxlib array made of single-device ``shards`` (one per device, in order).

    Args:
      aval: the whole array's shape and dtype.
      devices: the devices, in order.
      sharding: the HloSharding saying which part each shard holds.
      shards: one single-device buffer per device, in ``devices`` order.

    Returns:
      The multi-device buffer (it owns the shards).
    """
    return _jax.ArrayImpl(aval, placement(devices, sharding), list(shards), True, True)


def load_sdy(context: ir.Context) -> None:
    """Make the Shardy dialect (``sdy.mesh``, ``#sdy.sharding``, ...) usable in ``context``."""
    sdy.register_dialect(context)


def shard_buffers(buf: Buffer) -> list[Buffer]:
    """The single-device buffers of a multi-device buffer, in its device order."""
    return list(buf._arrays)


def sharded_result_handler(
    aval: AvalLike, devices: Sequence[Device], sharding: XlaSharding
) -> ResultHandler:
    """A handler turning one output of an SPMD executable into a multi-device buffer."""
    where = placement(devices, sharding)
    try:
        return _jax.array_result_handler(aval, where, True, True)
    except TypeError:  # jaxlib 0.11 dropped the ``_skip_checks`` argument
        return _jax.array_result_handler(aval, where, True)


def compile_spmd(module: str, devices: Sequence[Device]) -> Executable:
    """Compile a module with sharding annotations for ``devices`` through XLA's partitioner.

    Args:
      module: StableHLO text with Shardy (``sdy``) annotations.
      devices: the devices; partition ``i`` runs on ``devices[i]``.

    Returns:
      The loaded executable; its outputs are laid out as sharding
      propagation decides (see :func:`output_shardings`).
    """
    client = devices[0].client
    options = _xla_client.CompileOptions()
    build = options.executable_build_options
    build.num_replicas = 1
    build.num_partitions = len(devices)
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    build.allow_spmd_sharding_propagation_to_output = [True]
    assignment = np.array([[d.id for d in devices]], dtype=np.int64)
    build.device_assignment = _xla_client.DeviceAssignment.create(assignment)
    return client.compile_and_load(module, _jax.DeviceList(tuple(devices)), options)


def output_shardings(exe: Executable, count: int) -> list[XlaSharding]:
    """The HloSharding of each of the ``count`` outputs of an SPMD executable.

    A program over one device reports none: its outputs are replicated.
    """
    raw = exe.get_output_shardings()
    if raw is None:
        return [HloSharding.replicate()] * count
    return [HloSharding.from_proto(s) for s in raw]


def parameter_shardings(exe: Executable, count: int) -> list[XlaSharding]:
    """The HloSharding of each of the ``count`` parameters of an SPMD executable."""
    raw = exe.get_parameter_shardings()
    if raw is None:
        return [HloSharding.replicate()] * count
    return [HloSharding.from_proto(s) for s in raw]
