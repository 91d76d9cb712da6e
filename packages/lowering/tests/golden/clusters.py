"""Distributed settings read from cluster launchers' environments, as JAX 0.10.2 reads them.

``python clusters.py jax > clusters.txt`` (with JAX 0.10.2) prints, for each
case, the coordinator address, process count, process id and local device
ids that ``jax.distributed.initialize()`` would take from that environment
(nothing passed explicitly); ``python clusters.py tessela`` prints the same
from ``tessela_lowering``'s detection. ``tests/test_distributed.py`` runs
the second and compares it with the committed output of the first. Each
case runs with only its own variables set.
"""

from __future__ import annotations

import os
import sys

CASES: list[tuple[str, str | None, dict[str, str]]] = [
    ("slurm, ranges", None, {
        "SLURM_JOB_ID": "12345", "SLURM_STEP_NODELIST": "node[003-005,009],gpu1",
        "SLURM_NTASKS": "4", "SLURM_PROCID": "2", "SLURM_LOCALID": "1"}),
    ("slurm, one node", None, {
        "SLURM_JOB_ID": "7", "SLURM_STEP_NODELIST": "localhost", "SLURM_NTASKS": "2",
        "SLURM_PROCID": "0", "SLURM_LOCALID": "0"}),
    ("slurm, list", "slurm", {
        "SLURM_JOB_ID": "99999", "SLURM_STEP_NODELIST": "login2,node7", "SLURM_NTASKS": "2",
        "SLURM_PROCID": "1", "SLURM_LOCALID": "0"}),
    ("slurm, port set", None, {
        "SLURM_JOB_ID": "5", "SLURM_STEP_NODELIST": "n[10-11]", "SLURM_NTASKS": "2",
        "SLURM_PROCID": "1", "SLURM_LOCALID": "1", "JAX_COORDINATOR_PORT": "1234"}),
    ("slurm, incomplete", None, {"SLURM_JOB_ID": "5", "SLURM_NTASKS": "2"}),
    ("open mpi", None, {
        "OMPI_MCA_orte_hnp_uri": "1531576320.0;tcp://10.96.0.1,10.148.0.1:34911",
        "OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_RANK": "3",
        "OMPI_COMM_WORLD_LOCAL_RANK": "1"}),
    ("open mpi, ipv6", "ompi", {
        "OMPI_MCA_orte_hnp_uri":
            "1314521088.0;tcp6://[fe80::b9b:ac5d:9cf0:b858,2620:10d:c083:150e::3000:2]:43370",
        "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "0",
        "OMPI_COMM_WORLD_LOCAL_RANK": "0"}),
    ("none", None, {}),
    ("deactivated", "deactivate", {
        "SLURM_JOB_ID": "7", "SLURM_STEP_NODELIST": "localhost", "SLURM_NTASKS": "2",
        "SLURM_PROCID": "0", "SLURM_LOCALID": "0"}),
]  # fmt: skip
_VARS = {name for _, _, env in CASES for name in env}


def _settings(method: str | None) -> tuple[object, ...]:
    if sys.argv[1] == "jax":
        from jax._src.clusters import ClusterEnv

        return tuple(
            ClusterEnv.auto_detect_unset_distributed_params(None, None, None, None, method, None)
        )
    from tessela_lowering._clusters import detect

    found = detect(method)
    if found is None:
        return (None, None, None, None)
    local = None if found.local_process_id is None else [found.local_process_id]
    return (found.coordinator_address, found.num_processes, found.process_id, local)


def main() -> None:
    """Print one line per case."""
    for name, method, env in CASES:
        for var in _VARS:
            os.environ.pop(var, None)
        os.environ.update(env)
        print(f"{name}: {_settings(method)}")


if __name__ == "__main__":
    main()
