"""``tessela_lowering.distributed``: initialize's checks, a one-process job, settings read
from cluster launchers' environments (and a two-process job launched as Slurm would), local
data layouts.

The job of two processes (psum and a sharded matmul across them, and a process
that dies) is tested in the umbrella package (``tests/test_multiprocess.py``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from typing import Any

import _golden_scripts
import numpy as np
import pytest
import tessela_lowering as tl
from tessela_lowering import _clusters, distributed
from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec


def test_initialize_after_the_backend_exists_raises() -> None:
    tl.devices()
    with pytest.raises(RuntimeError, match=r"must be called before any Tessela calls"):
        distributed.initialize("127.0.0.1:1", 2, 0)
    assert not distributed.is_initialized()
    distributed.shutdown()  # nothing running: does nothing


ONE_PROCESS_JOB = textwrap.dedent(
    """
    import socket
    import numpy as np
    from tessela_lowering import distributed

    for args, err in [
        ((None, 2, 0), ValueError),
        (("127.0.0.1:1", None, 0), ValueError),
        (("127.0.0.1:1", 2, None), ValueError),
        (("127.0.0.1:1", 2, "0"), TypeError),
        (("127.0.0.1:1", 2.0, 0), TypeError),
        (("127.0.0.1:1", 2, 2), ValueError),
    ]:
        try:
            distributed.initialize(*args, cluster_detection_method="deactivate")
        except err as e:
            print(type(e).__name__, str(e).split(".")[0])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    distributed.initialize(f"127.0.0.1:{port}", 1, 0, initialization_timeout=20)
    print("initialized", distributed.is_initialized())
    try:
        distributed.initialize(f"127.0.0.1:{port}", 1, 0)
    except RuntimeError as e:
        print("again:", e)
    import tessela_lowering as tl
    from tessela_tracer import lax
    print(tl.process_index(), tl.process_count(), tl.device_count(), tl.local_device_count())
    x = tl.device_put(np.arange(4.0, dtype=np.float32))
    print(tl.jit(lambda a: lax.mul(a, a))(x))
    distributed.shutdown()
    print("shut down", distributed.is_initialized())
    """
)


def test_a_one_process_job_initializes_computes_and_shuts_down() -> None:
    out = subprocess.run(
        [sys.executable, "-c", ONE_PROCESS_JOB],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "TESSELA_NUM_CPU_DEVICES": "2", "TESSELA_PLATFORMS": "cpu"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == [
        "ValueError coordinator_address should be defined: pass 'host:port' of process 0 (e",
        "ValueError Number of processes must be defined: pass num_processes",
        "ValueError The process id of the current process must be defined: pass process_id",
        "TypeError process_id must be a nonnegative int",
        "TypeError num_processes must be a positive int",
        "ValueError process_id and num_processes must be nonnegative, with process_id < "
        "num_processes",
        "initialized True",
        "again: distributed.initialize should only be called once.",
        "0 1 2 2",
        "[0. 1. 4. 9.]",
        "shut down False",
    ]


_LAUNCHER_VARS = ("SLURM_", "OMPI_", "JAX_COORDINATOR", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID")


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_LAUNCHER_VARS)}
    return {**env, "TESSELA_PLATFORMS": "cpu", **extra}


def test_cluster_settings_are_read_as_jax_reads_them() -> None:
    # Slurm and Open MPI environments (node ranges, IPv6 launchers, a port set
    # by JAX_COORDINATOR_PORT, incomplete ones): the same settings as JAX 0.10.2.
    out = _golden_scripts.run("clusters", env=_clean_env(), check=True, timeout=60)
    assert out.stdout == (_golden_scripts.GOLDEN / "clusters.txt").read_text()


def test_unknown_cluster_detection_method_names_the_choices() -> None:
    with pytest.raises(ValueError, match=r"'slurmm' is not a known cluster.*'mpi4py'"):
        _clusters.detect("slurmm")


SLURM_TASK = textwrap.dedent(
    """
    from tessela_lowering import distributed
    distributed.initialize(initialization_timeout=30)  # everything from the Slurm variables
    import tessela_lowering as tl
    state = distributed.global_state
    print(tl.process_index(), tl.process_count(), tl.device_count(), tl.local_device_count(),
          state.coordinator_address, state.local_device_ids, flush=True)
    distributed.shutdown()
    """
)


def _start(code: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env,
    )  # fmt: skip


def test_a_two_process_job_started_as_slurm_starts_it_initializes_from_the_environment() -> None:
    with socket.socket() as sock:  # a free port among those Slurm job ids map to
        for port in range(65535, 61439, -1):
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            break
    job = {"SLURM_JOB_ID": str(port - 61440 + 4096 * 3), "SLURM_STEP_NODELIST": "localhost",
           "SLURM_NTASKS": "2", "TESSELA_NUM_CPU_DEVICES": "2"}  # fmt: skip
    procs = [_start(SLURM_TASK, _clean_env(**job, SLURM_PROCID=i, SLURM_LOCALID=i)) for i in "01"]
    outs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=90)
            assert proc.returncode == 0, err[-3000:]
            outs.append(out.strip())
    finally:
        for proc in procs:
            proc.kill()
    address = f"localhost:{port}"
    assert outs == [f"0 2 4 2 {address} [0]", f"1 2 4 2 {address} [1]"]


class _Client:
    def process_index(self) -> int:
        return 0


class _Device:
    """A stand-in device: ``process_index`` and a client that says process 0 is this one."""

    client = _Client()

    def __init__(self, id: int, process_index: int) -> None:
        self.id = id
        self.process_index = process_index

    def __repr__(self) -> str:
        return f"_Device({self.id})"


def _mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> Mesh:
    n = int(np.prod(shape))
    devs = [_Device(i, i // (n // 2)) for i in range(n)]  # first half: process 0
    return Mesh(np.array(devs, dtype=object).reshape(shape), names)


def _layout(mesh: Mesh, spec: PartitionSpec, local: tuple[int, ...], glob: Any = None) -> Any:
    shape, where = distributed.process_local_layout(NamedSharding(mesh, spec), local, glob)
    return shape, {d.id: tuple((s.start, s.stop) for s in i) for d, i in where.items()}


def test_process_local_layout_splits_the_local_data_among_local_devices() -> None:
    mesh = _mesh((4,), ("x",))
    # Process 0 holds parts 0 and 1 of 4: its 4 rows are half of the 8.
    assert _layout(mesh, PartitionSpec("x"), (4, 3)) == (
        (8, 3),
        {0: ((0, 2), (None, None)), 1: ((2, 4), (None, None))},
    )
    # The local data may also be the whole array.
    assert _layout(mesh, PartitionSpec("x"), (8,), (8,)) == ((8,), {0: ((0, 2),), 1: ((2, 4),)})
    # Replicated: every device reads everything.
    assert _layout(mesh, PartitionSpec(), (5,)) == ((5,), {0: ((None, None),), 1: ((None, None),)})


def test_process_local_layout_on_a_two_dimensional_mesh() -> None:
    mesh = _mesh((2, 2), ("a", "b"))  # process 0: row a=0 of the mesh
    shape, where = _layout(mesh, PartitionSpec("a", "b"), (2, 6))
    assert shape == (4, 6)
    assert where == {0: ((0, 2), (0, 3)), 1: ((0, 2), (3, 6))}
    shape, where = _layout(mesh, PartitionSpec("b", "a"), (4, 3))
    assert shape == (4, 6)
    assert where == {0: ((0, 2), (0, 3)), 1: ((2, 4), (0, 3))}


def test_process_local_layout_rejects_sizes_that_fit_neither_case() -> None:
    mesh = _mesh((4,), ("x",))
    with pytest.raises(ValueError, match="neither the global size 8 nor the size of the 2 of 4"):
        _layout(mesh, PartitionSpec("x"), (3,), (8,))
    with pytest.raises(ValueError, match="not divisible by the 2 parts"):
        _layout(mesh, PartitionSpec("x"), (3,))
