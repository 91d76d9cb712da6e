"""Cluster environments that ``distributed.initialize`` reads its settings from.

A job started by a cluster launcher finds its place in the job in the
launcher's environment variables; :func:`detect` turns them into the
arguments of ``initialize`` that the caller left unset, as JAX 0.10.2 does:

- ``slurm``: ``srun`` sets ``SLURM_JOB_ID``, ``SLURM_STEP_NODELIST``,
  ``SLURM_NTASKS``, ``SLURM_PROCID`` and ``SLURM_LOCALID``. Process 0 runs on
  the first node of the step's node list.
- ``ompi``: Open MPI's ``mpirun`` sets ``OMPI_MCA_orte_hnp_uri`` (the
  launcher's job id and address), ``OMPI_COMM_WORLD_SIZE``, ``_RANK`` and
  ``_LOCAL_RANK``. Process 0's service listens on the launcher's address.
- ``mpi4py`` (only when asked for by name): any MPI launcher, through mpi4py's
  ``COMM_WORLD``; rank 0 broadcasts its host name.

The coordinator's port is derived from the job id (or the host name), in the
top 4,096 ports of the range, unless ``JAX_COORDINATOR_PORT`` names one, so
that every process of a job computes the same address without talking.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["ClusterSettings", "detect"]

_PORTS = 4096
_FIRST_PORT = 65536 - _PORTS


class ClusterSettings(NamedTuple):
    """What a cluster environment says about this process's place in the job."""

    name: str
    coordinator_address: str
    num_processes: int
    process_id: int
    local_process_id: int | None


def _port(seed: int, override: str | None) -> str:
    return override if override else str(seed % _PORTS + _FIRST_PORT)


def first_host(node_list: str) -> str:
    """The first host name of a Slurm node list.

    Args:
      node_list: Slurm's compressed list, e.g. ``"node[003-005,009],gpu1"``.

    Returns:
      Its first host (``"node003"``).

    Example:
      >>> first_host("node[003-005,009],gpu1"), first_host("login2,node7")
      ('node003', 'login2')
    """
    head = re.match(r"([^,\[]*)(?:\[([^\],-]*))?", node_list)
    assert head is not None  # the pattern matches every string
    prefix, first_index = head.groups()
    return prefix + (first_index or "")


def _slurm(port: str | None) -> ClusterSettings | None:
    env = os.environ
    needed = ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS", "SLURM_PROCID",
              "SLURM_LOCALID")  # fmt: skip
    if not all(name in env for name in needed):
        return None
    host = first_host(env["SLURM_STEP_NODELIST"])
    return ClusterSettings(
        "slurm",
        f"{host}:{_port(int(env['SLURM_JOB_ID']), port)}",
        int(env["SLURM_NTASKS"]),
        int(env["SLURM_PROCID"]),
        int(env["SLURM_LOCALID"]),
    )


def _open_mpi(port: str | None) -> ClusterSettings | None:
    env = os.environ
    uri = env.get("OMPI_MCA_orte_hnp_uri")
    if uri is None:
        return None
    # "<job id>.<vpid>;tcp://<ip>,<ip>:<port>" or "...;tcp6://[<ip>,<ip>]:<port>"
    found = re.search(r"tcp://([^,:]+)|tcp6://\[([^,\]]+)", uri)
    if found is None:
        raise RuntimeError(
            f"Could not parse coordinator IP address from Open MPI environment "
            f"(OMPI_MCA_orte_hnp_uri={uri!r}); pass coordinator_address explicitly."
        )
    address = found.group(1) or found.group(2)
    job_id = int(uri.split(".", 1)[0]) // _PORTS  # job ids are multiples of 4096
    return ClusterSettings(
        "ompi",
        f"{address}:{_port(job_id, port)}",
        int(env["OMPI_COMM_WORLD_SIZE"]),
        int(env["OMPI_COMM_WORLD_RANK"]),
        int(env["OMPI_COMM_WORLD_LOCAL_RANK"]),
    )


def _mpi4py(port: str | None) -> ClusterSettings | None:
    if importlib.util.find_spec("mpi4py") is None:
        return None
    mpi: Any = importlib.import_module("mpi4py.MPI")  # an optional dependency
    world = mpi.COMM_WORLD
    address = None
    if world.Get_rank() == 0:
        import socket  # only mpi4py detection needs it: kept out of import time

        host = socket.gethostname()
        seed = sum(host.encode()) * 131 + len(host)  # the same on every run, unlike hash()
        address = f"{host}:{_port(seed, port)}"
    address = world.bcast(address, root=0)
    local = world.Split_type(mpi.COMM_TYPE_SHARED).Get_rank()
    return ClusterSettings("mpi4py", address, world.Get_size(), world.Get_rank(), local)


_DETECTED: dict[str, Callable[[str | None], ClusterSettings | None]] = {
    "slurm": _slurm,
    "ompi": _open_mpi,
}
_ON_REQUEST: dict[str, Callable[[str | None], ClusterSettings | None]] = {"mpi4py": _mpi4py}


def detect(method: str | None, /) -> ClusterSettings | None:
    """The settings of the cluster environment this process runs in, if any.

    Args:
      method: ``None`` (try ``slurm`` then ``ompi``), one of the names above
        (that environment only; ``mpi4py`` is used only when named), or
        ``"deactivate"`` (none).

    Returns:
      The settings, or ``None`` where no such environment is present.

    Raises:
      ValueError: ``method`` names no known environment.

    Example:
      >>> detect("deactivate") is None
      True
    """
    if method == "deactivate":
        return None
    port = os.environ.get("JAX_COORDINATOR_PORT")
    if method is None:
        for probe in _DETECTED.values():
            found = probe(port)
            if found is not None:
                return found
        return None
    chosen = _DETECTED.get(method) or _ON_REQUEST.get(method)
    if chosen is None:
        known = sorted({*_DETECTED, *_ON_REQUEST, "deactivate"})
        raise ValueError(
            f"cluster_detection_method={method!r} is not a known cluster environment; "
            f"choose one of {known} or None (detect Slurm and Open MPI)."
        )
    return chosen(port)
