"""Many processes, one computation: ``tessela_lowering.distributed``, as ``jax.distributed``.

:func:`initialize` connects this process to the others of a job through
jaxlib's distributed runtime: process 0 runs the coordination service at
``coordinator_address``; every process connects a client, and the CPU backend
created afterwards spans every process's devices, with collectives over gloo's
TCP transport. ``devices()`` then lists all of them, ``local_devices()`` this
process's; a mesh over ``devices()`` spans the processes, and a program
compiled over it runs with every process calling it on its own shards.

A process that dies is noticed by the coordination service after
``heartbeat_timeout_seconds``; the service then tells every other process,
whose pending barrier raises ``JaxRuntimeError`` and which jaxlib terminates
(abort) with the service's error on stderr ("Task 1 heartbeat timeout. This
indicates that the remote task has failed ..."), as in JAX: no process waits
forever in a collective. At exit, :func:`shutdown` runs (``atexit``) and waits
up to ``shutdown_timeout_seconds`` for the other processes to finish too.

Example:
    >>> from tessela_lowering import distributed
    >>> distributed.is_initialized()
    False
"""

from __future__ import annotations

import atexit
import logging
import math
import os
from collections.abc import Sequence
from typing import Any

from tessela_tracer import config
from tessela_tracer.sharding import NamedSharding

from tessela_lowering import _clusters
from tessela_lowering._devices import backends_are_initialized, set_cpu_client_factory
from tessela_lowering._xla import Client, Device
from tessela_lowering._xla import _distributed as _runtime

__all__ = [
    "State",
    "global_state",
    "initialize",
    "is_initialized",
    "process_local_layout",
    "shutdown",
]

logger = logging.getLogger("tessela.distributed")

for _name, _default, _help in (
    ("jax_enable_preemption_service", True, "Start jaxlib's preemption sync manager in "
     "distributed.initialize."),
    ("jax_enable_recoverability", False, "Let the other processes of a job go on when one fails."),
):  # fmt: skip
    if _name not in config.flag_names():
        config.define_bool(_name, _default, help=_help)
if "jax_cpu_collectives_implementation" not in config.flag_names():
    config.define_enum(
        "jax_cpu_collectives_implementation",
        "gloo",
        ("gloo",),
        optional=True,
        aliases=("tessela_cpu_collectives_implementation",),
        help="Cross-process collectives on CPU (gloo over TCP).",
    )


class State:
    """The distributed runtime of this process: its index, the service, the client.

    Example:
        >>> State().num_processes
        1
    """

    def __init__(self) -> None:
        self.process_id = 0
        self.num_processes = 1
        self.coordinator_address: str | None = None
        self.partition_index: int | None = None
        self.local_device_ids: list[int] | None = None
        self.service: Any = None
        self.client: Any = None
        self.preemption_sync_manager: Any = None

    def shutdown(self) -> None:
        """Stop the preemption manager, the client, then the service (if this process runs it)."""
        if self.preemption_sync_manager is not None:
            self.preemption_sync_manager.shutdown()
            self.preemption_sync_manager = None
        if self.client is not None:
            self.client.shutdown()
            self.client = None
        if self.service is not None:
            self.service.shutdown()
            self.service = None


global_state = State()
"""This process's distributed runtime (``process_id``, ``num_processes``, ``client``, ...)."""


def _check_ids(process_id: Any, num_processes: Any) -> None:
    if not isinstance(process_id, int):
        raise TypeError(
            "process_id must be a nonnegative int. "
            f"Got process_id={process_id} of type {type(process_id)}."
        )
    if not isinstance(num_processes, int):
        raise TypeError(
            "num_processes must be a positive int. "
            f"Got num_processes={num_processes} of type {type(num_processes)}."
        )
    if not 0 <= process_id < num_processes:
        raise ValueError(
            "process_id and num_processes must be nonnegative, with process_id < "
            f"num_processes. Got process_id={process_id}, num_processes={num_processes}."
        )


def _from_env(name: str) -> str | None:
    return os.environ.get(f"TESSELA_{name}") or os.environ.get(f"JAX_{name}")


def initialize(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    local_device_ids: int | Sequence[int] | None = None,
    cluster_detection_method: str | None = None,
    initialization_timeout: int = 300,
    heartbeat_timeout_seconds: int = 100,
    shutdown_timeout_seconds: int = 300,
    coordinator_bind_address: str | None = None,
    slice_index: int | None = None,
    partition_index: int | None = None,
) -> None:
    """Join this process to a distributed computation (call it before anything else).

    Process 0 starts the coordination service; every process connects to it
    and waits until all ``num_processes`` have. The CPU backend created
    afterwards spans every process's devices.

    Args:
      coordinator_address: ``host:port`` of process 0's coordination service
        (default: ``TESSELA_COORDINATOR_ADDRESS`` or ``JAX_COORDINATOR_ADDRESS``).
      num_processes: how many processes take part (default: ``JAX_NUM_PROCESSES``).
      process_id: this process's index, ``0 <= process_id < num_processes``
        (default: ``JAX_PROCESS_ID``).
      local_device_ids: the accelerator devices this process uses (default:
        ``JAX_LOCAL_DEVICE_IDS``); recorded, and ignored on CPU, as in JAX.
      cluster_detection_method: ``None`` (read unset settings from a Slurm
        or Open MPI job's environment, as JAX does), ``"slurm"``, ``"ompi"``,
        ``"mpi4py"`` (through mpi4py, only when named) or ``"deactivate"``.
        Without a cluster, the first three arguments must be given or set
        in the environment.
      initialization_timeout: seconds to wait for every process to connect.
      heartbeat_timeout_seconds: seconds of silence after which a process is
        considered dead.
      shutdown_timeout_seconds: seconds :func:`shutdown` waits for the others.
      coordinator_bind_address: where process 0's service listens (default:
        every interface, on ``coordinator_address``'s port).
      slice_index: deprecated name of ``partition_index``.
      partition_index: this process's partition (recorded).

    Returns:
      None.

    Raises:
      RuntimeError: the backends exist already (a device, a computation or a
        transfer came first), or ``initialize`` was called before.
      ValueError: an argument is missing or out of range.
      TypeError: ``process_id`` or ``num_processes`` is not an int.

    Example:
        >>> import tessela_lowering as tl
        >>> _ = tl.devices()
        >>> initialize("127.0.0.1:1234", 2, 0)
        Traceback (most recent call last):
        ...
        RuntimeError: tessela.distributed.initialize() must be called before any Tessela calls that might initialise the XLA backend. This includes any computation, but also calls to tessela.devices, tessela.device_put, and others.
    """
    if backends_are_initialized():
        raise RuntimeError(
            "tessela.distributed.initialize() must be called before any Tessela calls that "
            "might initialise the XLA backend. This includes any computation, but also calls "
            "to tessela.devices, tessela.device_put, and others."
        )
    state = global_state
    if state.client is not None or state.service is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    coordinator_address = coordinator_address or _from_env("COORDINATOR_ADDRESS")
    if num_processes is None and (raw := _from_env("NUM_PROCESSES")):
        num_processes = int(raw)
    if process_id is None and (raw := _from_env("PROCESS_ID")):
        process_id = int(raw)
    if isinstance(local_device_ids, int):
        local_device_ids = [local_device_ids]
    if local_device_ids is None and (raw := _from_env("LOCAL_DEVICE_IDS")):
        local_device_ids = [int(i) for i in raw.split(",")]
    cluster = _clusters.detect(cluster_detection_method)
    if cluster is not None:  # what the launcher says fills what the caller left unset
        logger.info("Distributed settings from the %s environment", cluster.name)
        coordinator_address = coordinator_address or cluster.coordinator_address
        num_processes = cluster.num_processes if num_processes is None else num_processes
        process_id = cluster.process_id if process_id is None else process_id
        if local_device_ids is None and cluster.local_process_id is not None:
            local_device_ids = [cluster.local_process_id]
    if coordinator_address is None:
        raise ValueError(
            "coordinator_address should be defined: pass 'host:port' of process 0 "
            "(e.g. '10.0.0.1:1234') or set JAX_COORDINATOR_ADDRESS."
        )
    if num_processes is None:
        raise ValueError("Number of processes must be defined: pass num_processes.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined: pass process_id.")
    _check_ids(process_id, num_processes)
    if partition_index is None:
        partition_index = slice_index
    if partition_index is None and (raw := _from_env("PARTITION_INDEX")):
        partition_index = int(raw)
    bind = coordinator_bind_address or _from_env("COORDINATOR_BIND_ADDRESS")
    if bind is None:
        bind = "[::]:" + coordinator_address.rsplit(":", 1)[1]
    state.coordinator_address = coordinator_address
    state.process_id = process_id
    state.num_processes = num_processes
    state.local_device_ids = None if local_device_ids is None else list(local_device_ids)
    state.partition_index = partition_index
    if process_id == 0:
        logger.info("Starting the distributed service on %s", bind)
        state.service = _runtime.start_service(
            bind,
            num_processes,
            heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds,
            recoverable=bool(config.read("jax_enable_recoverability")),
        )
    logger.info("Connecting to the distributed service on %s", coordinator_address)
    try:
        state.client = _runtime.connect_client(
            coordinator_address,
            process_id,
            init_timeout=initialization_timeout,
            heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=shutdown_timeout_seconds,
        )
    except Exception:
        if state.service is not None:
            state.service.shutdown()
            state.service = None
        raise
    if config.read("jax_enable_preemption_service"):
        state.preemption_sync_manager = _runtime.preemption_sync_manager(state.client)
    client = state.client

    def make_cpu_client(num_cpu_devices: int | None) -> Client:
        return _runtime.make_distributed_cpu_client(
            client, process_id, num_processes, num_cpu_devices=num_cpu_devices
        )

    set_cpu_client_factory(make_cpu_client)


def is_initialized() -> bool:
    """Whether :func:`initialize` has connected this process (and :func:`shutdown` has not run).

    Returns:
      True while the distributed runtime is up.

    Example:
        >>> is_initialized()
        False
    """
    return global_state.client is not None


def shutdown() -> None:
    """Leave the distributed computation: stop the client, and the service on process 0.

    Does nothing when the runtime is not running.

    Returns:
      None.

    Example:
        >>> shutdown()
        >>> is_initialized()
        False
    """
    global_state.shutdown()
    if not backends_are_initialized():
        set_cpu_client_factory(None)


def process_local_layout(
    sharding: NamedSharding,
    local_shape: Sequence[int],
    global_shape: Sequence[int] | None = None,
) -> tuple[tuple[int, ...], dict[Device, tuple[slice, ...]]]:
    """Where each of this process's devices finds its part in the process's local data.

    Along a dimension the process's data either covers the whole array
    (its size is the global size) or only the parts its devices hold, in
    order (its size is the part size times their number), as
    ``make_array_from_process_local_data`` expects.

    Args:
      sharding: a ``NamedSharding`` over a mesh (of one or several processes).
      local_shape: the shape of this process's data.
      global_shape: the whole array's shape (default: inferred, assuming each
        process holds only its own parts along every split dimension).

    Returns:
      The global shape, and for each device of this process the slices of the
      local data it holds.

    Raises:
      ValueError: a dimension of the local data fits neither case.

    Example:
        >>> import numpy as np
        >>> import tessela_lowering as tl
        >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
        >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
        >>> shape, where = process_local_layout(NamedSharding(mesh, PartitionSpec("x")), (4,))
        >>> shape, list(where.values())
        ((4,), [(slice(None, None, None),)])
    """
    local_shape = tuple(int(n) for n in local_shape)
    ndim = len(local_shape)
    sizes = sharding.mesh.shape
    parts = [
        math.prod(sizes[a] for a in sharding.spec.axes_of(d)) if d < len(sharding.spec) else 1
        for d in range(ndim)
    ]
    # The part index of each device along each dimension: a shape of one element per part.
    probe = {
        dev: [s.start or 0 for s in index]
        for dev, index in sharding.devices_indices_map(tuple(parts)).items()
    }
    local = list(sharding.mesh.local_devices)
    held = [sorted({probe[dev][d] for dev in local}) for d in range(ndim)]
    if global_shape is None:
        for d in range(ndim):
            if local_shape[d] % len(held[d]):
                raise ValueError(
                    f"make_array_from_process_local_data: dimension {d} of the local data "
                    f"({local_shape[d]}) is not divisible by the {len(held[d])} parts this "
                    "process holds along it; pass global_shape explicitly."
                )
        global_shape = tuple(local_shape[d] // len(held[d]) * parts[d] for d in range(ndim))
    global_shape = tuple(int(n) for n in global_shape)
    if len(global_shape) != ndim:
        raise ValueError(
            f"make_array_from_process_local_data: global_shape {global_shape} and the local "
            f"data's shape {local_shape} have different ranks."
        )
    whole = []
    for d in range(ndim):
        if global_shape[d] == local_shape[d]:
            whole.append(True)
        elif global_shape[d] % parts[d] == 0 and (
            local_shape[d] == global_shape[d] // parts[d] * len(held[d])
        ):
            whole.append(False)
        else:
            raise ValueError(
                f"make_array_from_process_local_data: dimension {d} of the local data has size "
                f"{local_shape[d]}, which is neither the global size {global_shape[d]} nor the "
                f"size of the {len(held[d])} of {parts[d]} parts this process holds "
                f"({global_shape[d] // parts[d] * len(held[d])}); with one process the local "
                "data is the whole array."
            )
    out: dict[Device, tuple[slice, ...]] = {}
    for dev in local:
        index = []
        for d in range(ndim):
            step = global_shape[d] // parts[d]
            # The part's position in the whole array, or among this process's parts.
            position = probe[dev][d] if whole[d] else held[d].index(probe[dev][d])
            start = position * step
            index.append(slice(start, start + step) if parts[d] > 1 else slice(None))
        out[dev] = tuple(index)
    return global_shape, out


atexit.register(shutdown)
