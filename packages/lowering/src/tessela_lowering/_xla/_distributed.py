"""jaxlib's distributed runtime: the coordination service, its clients, CPU collectives.

Several processes that share one computation find each other through a
*coordination service* that process 0 runs (``DistributedRuntimeService``);
every process connects a ``DistributedRuntimeClient`` to it, which exchanges
the device topology, keeps a key-value store, offers barriers and sends
heartbeats. On CPU, the collectives of programs that span processes travel
over gloo's TCP transport, built from the client. Everything here is
jaxlib's; this module only names it and types it.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from tessela_lowering._xla._jaxlib import Client, _ensure_process_state, _jax, _xla_client

__all__ = [
    "DistributedClient",
    "DistributedService",
    "PreemptionSyncManager",
    "connect_client",
    "gloo_collectives",
    "live_processes",
    "make_distributed_cpu_client",
    "preemption_sync_manager",
    "start_service",
]

DistributedService: TypeAlias = Any
"""jaxlib's ``DistributedRuntimeService`` (the coordinator, run by process 0)."""
DistributedClient: TypeAlias = Any
"""jaxlib's ``DistributedRuntimeClient``: a process's link to the coordinator."""
PreemptionSyncManager: TypeAlias = Any
"""jaxlib's ``PreemptionSyncManager`` (agrees on a step to stop at after a preemption notice)."""
CpuCollectives: TypeAlias = Any
"""jaxlib's CPU collectives (gloo over TCP), handed to a CPU client."""


def start_service(
    bind_address: str,
    num_processes: int,
    *,
    heartbeat_timeout: int,
    shutdown_timeout: int,
    recoverable: bool = False,
) -> DistributedService:
    """Start the coordination service of ``num_processes`` processes on ``bind_address``.

    Args:
      bind_address: ``host:port`` to listen on (``[::]:port`` for every interface).
      num_processes: how many processes will connect.
      heartbeat_timeout: seconds without a heartbeat after which a process is dead.
      shutdown_timeout: seconds the service waits for every process at shutdown.
      recoverable: whether processes may fail without failing the others.

    Returns:
      The running service (stop it with ``shutdown()``).
    """
    return _jax.get_distributed_runtime_service(
        bind_address,
        num_processes,
        heartbeat_timeout=heartbeat_timeout,
        shutdown_timeout=shutdown_timeout,
        recoverable=recoverable,
    )


def connect_client(
    address: str,
    process_id: int,
    *,
    init_timeout: int,
    heartbeat_timeout: int,
    shutdown_timeout: int,
) -> DistributedClient:
    """Connect process ``process_id`` to the coordination service at ``address``.

    Blocks until every process has connected, or raises after ``init_timeout``.
    When the service later reports that a process failed, jaxlib terminates
    this process with the service's error on stderr (a Python callback cannot
    take its place: jaxlib 0.10.2 cannot hand the error status to Python).

    Args:
      address: the coordinator's ``host:port``.
      process_id: this process's index.
      init_timeout: seconds to keep trying to connect.
      heartbeat_timeout: seconds without a heartbeat after which the service is
        considered gone.
      shutdown_timeout: seconds to wait for the other processes at shutdown.

    Returns:
      The connected client.

    Raises:
      XlaRuntimeError: the service could not be reached in time.
    """
    client = _jax.get_distributed_runtime_client(
        address,
        process_id,
        init_timeout=init_timeout,
        heartbeat_timeout=heartbeat_timeout,
        shutdown_timeout=shutdown_timeout,
        use_compression=True,
    )
    client.connect()
    return client


def gloo_collectives(client: DistributedClient) -> CpuCollectives:
    """CPU collectives over gloo's TCP transport, rendezvousing through ``client``."""
    return _jax.make_gloo_tcp_collectives(distributed_client=client)


def make_distributed_cpu_client(
    client: DistributedClient,
    process_id: int,
    num_processes: int,
    *,
    num_cpu_devices: int | None = None,
) -> Client:
    """The CPU client of one process of many: every process's devices, gloo collectives.

    Args:
      client: this process's connected distributed client.
      process_id: this process's index.
      num_processes: how many processes there are.
      num_cpu_devices: how many CPU devices this process exposes (``None``:
        XLA's choice).

    Returns:
      The PJRT client; its ``devices()`` are every process's devices, its
      ``local_devices()`` this process's.
    """
    _ensure_process_state()
    return _xla_client.make_cpu_client(
        asynchronous=True,
        distributed_client=client,
        node_id=process_id,
        num_nodes=num_processes,
        collectives=gloo_collectives(client),
        num_devices=num_cpu_devices,
    )


def preemption_sync_manager(client: DistributedClient) -> PreemptionSyncManager:
    """A preemption sync manager started on ``client``."""
    manager = _jax.create_preemption_sync_manager()
    manager.initialize(client)
    return manager


def live_processes(client: DistributedClient, process_ids: list[int]) -> dict[int, int]:
    """Which of ``process_ids`` are alive, each with its incarnation number (a barrier)."""
    return dict(client.get_live_nodes(list(process_ids)))
