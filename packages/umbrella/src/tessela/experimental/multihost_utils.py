"""``tessela.experimental.multihost_utils``: moving data between processes, as JAX 0.10.2.

Every function here is collective: each process of a job (see
:mod:`tessela.distributed`) calls it, in the same order, with data of the
same shapes. The data travel inside a compiled program over a mesh of every
process's devices (``("processes", "local_devices")``), so the transport is
XLA's collectives (gloo over TCP on CPU). With one process they return at
once.

Example:
    >>> import numpy as np
    >>> from tessela.experimental import multihost_utils
    >>> multihost_utils.process_allgather(np.arange(3))
    array([[0, 1, 2]])
    >>> multihost_utils.broadcast_one_to_all({"step": np.int32(7)})
    {'step': array(7, dtype=int32)}
"""

from __future__ import annotations

import contextlib
import functools
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from tessela_lowering import (
    device_put,
    devices,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)
from tessela_lowering.distributed import global_state
from tessela_lowering.sharding import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    make_array_from_process_local_data,
    make_array_from_single_device_arrays,
)
from tessela_pytree import tree_broadcast, tree_flatten, tree_map, tree_unflatten
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

from .._shard_map import shard_map

__all__ = [
    "ProcessFailureError",
    "assert_equal",
    "broadcast_one_to_all",
    "global_array_to_host_local_array",
    "host_local_array_to_global_array",
    "live_devices",
    "process_allgather",
    "reached_preemption_sync_point",
    "sync_global_devices",
]

_P = PartitionSpec


def _processes_mesh() -> Mesh:
    # One row of devices per process: ("processes", "local_devices"), as JAX's utilities use.
    grid = np.array(devices(), dtype=object).reshape(process_count(), local_device_count())
    return Mesh(grid, ("processes", "local_devices"))


def _is_global(x: Any) -> bool:
    # A sharded array of which this process holds only a part.
    sharding = getattr(x, "sharding", None)
    return isinstance(sharding, NamedSharding) and not sharding.is_fully_addressable


@functools.lru_cache(maxsize=64)
def _replicator(mesh: Mesh, spec: PartitionSpec, ndim: int) -> Callable[[Any], Any]:
    """A function that gathers an array split as ``spec`` onto every device of ``mesh``."""

    def gather(block: Array) -> Array:
        for d in range(ndim):
            # The last axis of a dimension varies fastest: gather it first.
            for axis in reversed(spec.axes_of(d)):
                block = lax.all_gather(block, axis, axis=d, tiled=True)
        return block

    replicate: Callable[[Any], Any] = shard_map(gather, mesh=mesh, in_specs=spec, out_specs=_P())
    return replicate


@functools.lru_cache(maxsize=64)
def _summer(mesh: Mesh) -> Callable[[Any], Any]:
    """A function summing one block per process over the ``processes`` axis."""
    total: Callable[[Any], Any] = shard_map(
        lambda b: lax.psum(b, "processes"), mesh=mesh, in_specs=_P("processes"), out_specs=_P()
    )
    return total


def _first_local(x: Any) -> np.ndarray[Any, Any]:
    return np.asarray(x.addressable_shards[0].data)


def _stack_over_processes(host: np.ndarray[Any, Any], mesh: Mesh) -> Any:
    # One block per process (this process's ``host``), a copy on each local device.
    shape = (process_count() * host.shape[0], *host.shape[1:])
    parts = [device_put(host, d) for d in local_devices()]
    return make_array_from_single_device_arrays(shape, NamedSharding(mesh, _P("processes")), parts)


def _allgather_leaf(x: Any, tiled: bool) -> np.ndarray[Any, Any]:
    if _is_global(x):
        if not tiled:
            raise ValueError(
                "Gathering global non-fully-addressable arrays only supports tiled=True"
            )
        sharding = x.sharding
        return _first_local(_replicator(sharding.mesh, sharding.spec, x.ndim)(x))
    host = np.asarray(x)
    if process_count() == 1:
        return host if tiled else np.expand_dims(host, 0)
    if host.ndim == 0 or not tiled:
        host = np.expand_dims(host, 0)
    mesh = _processes_mesh()
    stacked = _stack_over_processes(host, mesh)
    return _first_local(_replicator(mesh, _P("processes"), host.ndim)(stacked))


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Gather data from every process.

    Args:
      in_tree: a pytree of arrays, of the same shapes in every process.
      tiled: concatenate the processes' values along axis 0 instead of
        stacking them along a new axis 0.

    Returns:
      A pytree of NumPy arrays: a sharded array that spans processes
      gathered whole (``tiled=True`` only); any other value stacked (or
      concatenated) over the processes, in process order.

    Raises:
      ValueError: a global array with ``tiled=False``.

    Example:
        >>> import numpy as np
        >>> process_allgather(np.ones(2), tiled=True)
        array([1., 1.])
    """
    return tree_map(lambda x: _allgather_leaf(x, tiled), in_tree)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """Send the source process's values (process 0's by default) to every process.

    Args:
      in_tree: a pytree of arrays, of the same shapes in every process.
      is_source: whether this process is the source; ``None``: process 0 is.

    Returns:
      The source's pytree, its leaves as NumPy arrays, in every process.

    Example:
        >>> import numpy as np
        >>> broadcast_one_to_all([np.float32(1.5)])
        [array(1.5, dtype=float32)]
    """
    if process_count() == 1:
        return tree_map(np.asarray, in_tree)
    if is_source is None:
        is_source = process_index() == 0
    mesh = _processes_mesh()

    def leaf(x: ArrayLike) -> np.ndarray[Any, Any]:
        host = np.asarray(x)
        dtype = host.dtype
        if dtype == np.bool_:
            host = host.astype(np.uint8)
        block = host if is_source else np.zeros_like(host)
        total = _summer(mesh)(_stack_over_processes(np.expand_dims(block, 0), mesh))
        out: np.ndarray[Any, Any] = _first_local(total)[0].astype(dtype)
        return out

    return tree_map(leaf, in_tree)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
    """Check that every process holds the same pytree of values.

    Args:
      in_tree: a pytree of arrays.
      fail_message: the start of the error's message.

    Raises:
      AssertionError: some process holds other values.

    Example:
        >>> assert_equal({"a": 1})
    """

    def expected(x: ArrayLike) -> np.ndarray[Any, Any]:
        if _is_global(x):
            return _first_local(x)
        host = np.asarray(x)
        if host.ndim == 0:
            host = np.expand_dims(host, 0)
        return np.concatenate([host] * process_count())

    gathered = process_allgather(in_tree, tiled=True)
    want = tree_map(expected, in_tree)
    same = tree_map(lambda a, b: bool(np.all(np.equal(a, b))), want, gathered)
    if not all(tree_flatten(same)[0]):
        raise AssertionError(f"{fail_message}. Expected: {gathered}; got: {in_tree}.")


def sync_global_devices(name: str) -> None:
    """Wait until every process reaches this call (with the same ``name``).

    Args:
      name: the barrier's name; every process must pass the same one.

    Raises:
      AssertionError: the processes passed different names.

    Example:
        >>> sync_global_devices("checkpoint saved")
    """
    tag = np.uint32(zlib.crc32(name.encode()))
    assert_equal(tag, f"sync_global_devices name mismatch ('{name}')")


def reached_preemption_sync_point(step_id: int) -> bool:
    """Whether every process has reached the step at which to save after a preemption notice.

    Call it at every step, from the same step on every process: once a
    process receives a preemption notice (SIGTERM), the processes agree on the
    step after the largest one any of them reached, and this returns True at
    that step.

    Args:
      step_id: the current step.

    Returns:
      True at the agreed step; False otherwise, and always False without
      :func:`tessela.distributed.initialize`.

    Raises:
      RuntimeError: the preemption service is off (``jax_enable_preemption_service``).

    Example:
        >>> reached_preemption_sync_point(0)
        False
    """
    if global_state.client is None:
        return False
    manager = global_state.preemption_sync_manager
    if manager is None:
        raise RuntimeError(
            "Preemption sync manager has not been initialized. Make sure the "
            "'jax_enable_preemption_service' config is enabled."
        )
    return bool(manager.reached_sync_point(step_id))


def _specs_for(pspecs: Any, tree: Any) -> list[Any]:
    is_spec: Callable[[Any], bool] = lambda s: s is None or isinstance(s, PartitionSpec)  # noqa: E731
    specs, _ = tree_flatten(tree_broadcast(pspecs, tree, is_leaf=is_spec), is_leaf=is_spec)
    for s in specs:
        if s is None:
            raise ValueError(
                "`None` is not a valid input to the pspecs argument. Please use "
                "jax.sharding.PartitionSpec() if you wanted to replicate your input."
            )
    return specs


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Mesh, pspecs: Any) -> Any:
    """Make global arrays over ``global_mesh`` from each process's local data.

    Each process passes the part of every array that its devices hold, as
    ``make_array_from_process_local_data`` takes it.

    Args:
      local_inputs: a pytree of this process's arrays.
      global_mesh: a mesh over the devices of every process.
      pspecs: a partition spec, or a pytree of them (a prefix of ``local_inputs``).

    Returns:
      A pytree of arrays laid out as ``NamedSharding(global_mesh, spec)``.

    Raises:
      ValueError: a spec is None.

    Example:
        >>> import numpy as np
        >>> import tessela as tx
        >>> mesh = tx.make_mesh((1,), ("x",))
        >>> host_local_array_to_global_array(np.arange(2.0), mesh, tx.P("x")).sharding.spec
        P('x',)
    """
    leaves, treedef = tree_flatten(local_inputs)
    specs = _specs_for(pspecs, local_inputs)
    out = []
    for x, spec in zip(leaves, specs, strict=True):
        if _is_global(x):
            out.append(x)
            continue
        sharding = NamedSharding(global_mesh, spec)
        out.append(make_array_from_process_local_data(sharding, np.asarray(x)))
    return tree_unflatten(treedef, out)


def _local_mesh(mesh: Mesh) -> Mesh:
    """The block of ``mesh`` made of this process's devices (a mesh of the same axes)."""
    local = set(mesh.local_devices)
    where = np.array([[d in local for d in mesh.devices.flat]]).reshape(mesh.devices.shape)
    box = tuple(slice(int(ix.min()), int(ix.max()) + 1) for ix in np.nonzero(where))
    block = mesh.devices[box]
    if not all(d in local for d in block.flat):
        raise ValueError(
            f"The devices of process {process_index()} do not form a block of the mesh "
            f"{mesh}; order the mesh's devices so that each process's are contiguous."
        )
    return Mesh(block, mesh.axis_names, mesh.axis_types)


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Mesh, pspecs: Any) -> Any:
    """The parts of global arrays that this process holds, as arrays over its own devices.

    The inverse of :func:`host_local_array_to_global_array`.

    Args:
      global_inputs: a pytree of arrays laid out as ``NamedSharding(global_mesh, spec)``.
      global_mesh: the mesh over the devices of every process.
      pspecs: a partition spec, or a pytree of them (a prefix of ``global_inputs``).

    Returns:
      A pytree of arrays over this process's block of the mesh (fully
      addressable arrays come back unchanged).

    Raises:
      ValueError: a spec is None, or an array is laid out otherwise.

    Example:
        >>> import numpy as np
        >>> import tessela as tx
        >>> mesh = tx.make_mesh((1,), ("x",))
        >>> x = host_local_array_to_global_array(np.arange(2.0), mesh, tx.P("x"))
        >>> global_array_to_host_local_array(x, mesh, tx.P("x")) is x
        True
    """
    leaves, treedef = tree_flatten(global_inputs)
    specs = _specs_for(pspecs, global_inputs)
    out = []
    for x, spec in zip(leaves, specs, strict=True):
        if not _is_global(x):
            out.append(x)
            continue
        sharding = NamedSharding(global_mesh, spec)
        if x.sharding != sharding:
            raise ValueError(
                f"global_array_to_host_local_array: an array is laid out as {x.sharding}, not "
                f"as {sharding}; pass the spec it was made with."
            )
        local = _local_mesh(global_mesh)
        sizes, local_sizes = global_mesh.shape, local.shape
        shape = []
        for d, n in enumerate(x.shape):
            axes = spec.axes_of(d)
            tiles = int(np.prod([sizes[a] for a in axes], dtype=np.int64))
            shape.append(n // tiles * int(np.prod([local_sizes[a] for a in axes], dtype=np.int64)))
        parts = [s.data for s in x.addressable_shards]
        out.append(make_array_from_single_device_arrays(shape, NamedSharding(local, spec), parts))
    return tree_unflatten(treedef, out)


class ProcessFailureError(RuntimeError):
    """Raised by :data:`live_devices` when processes failed during its block.

    Attributes:
      failed_devices: the devices of the processes that failed.

    Example:
        >>> ProcessFailureError(set()).failed_devices
        set()
    """

    def __init__(self, failed_devices: set[Any]) -> None:
        self.failed_devices = failed_devices
        super().__init__(f"Devices failed: {failed_devices}")


def _live(devices_: Sequence[Any]) -> dict[Any, int]:
    client = global_state.client
    ids = {d.process_index for d in devices_}
    if process_index() not in ids:
        raise ValueError("Provided devices do not have any local devices.")
    alive = dict(client.get_live_nodes(sorted(ids)))
    return {d: alive[d.process_index] for d in devices_ if d.process_index in alive}


class _LiveDevices:
    """``with live_devices(devices) as alive:`` runs the block on the devices whose processes live.

    Entering and leaving are barriers over the live processes; leaving raises
    :class:`ProcessFailureError` when a process failed (or restarted) meanwhile.
    """

    def __init__(self) -> None:
        self.devices: dict[Any, int] | None = None

    @contextlib.contextmanager
    def __call__(self, devices_: Sequence[Any]) -> Iterator[list[Any]]:
        if global_state.client is None:
            raise RuntimeError("Distributed JAX not initialized.")
        if not devices_:
            raise ValueError("No devices provided.")
        if self.devices is None:
            self.devices = _live(devices_)
        error: BaseException | None = None
        try:
            yield sorted(self.devices, key=lambda d: d.id)
        except Exception as err:  # re-raised below, after the closing barrier
            error = err
        finally:
            before = self.devices
            after = _live(devices_)
            self.devices = after
            failed = {d for d in before if d not in after or after[d] != before[d]}
            if failed:
                raise ProcessFailureError(failed) from error
            if error is not None:
                raise error


live_devices = _LiveDevices()
"""The context manager ``live_devices(devices)``: see :class:`_LiveDevices` (experimental in JAX)."""
