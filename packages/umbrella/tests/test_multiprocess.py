"""Two processes on this machine form one job (``tessela.distributed``, ``multihost_utils``).

Each test starts ``multiprocess/worker.py`` twice: process 0 runs the
coordination service on 127.0.0.1 (a free port), each process has 2 CPU
devices, and a mesh over the 4 devices spans both. Every wait is bounded,
so a broken job fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time

WORKER = pathlib.Path(__file__).parent / "multiprocess" / "worker.py"
ENV = {
    **os.environ,
    "TESSELA_NUM_CPU_DEVICES": "2",
    "TESSELA_PLATFORMS": "cpu",
    "PYTHONUNBUFFERED": "1",
}
for _name in ("JAX_COORDINATOR_ADDRESS", "TESSELA_COORDINATOR_ADDRESS"):
    ENV.pop(_name, None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_job(mode: str, timeout: float) -> tuple[list[tuple[int, str, str]], float]:
    """Run both processes; their (return code, stdout, stderr), and the seconds taken."""
    port = str(_free_port())
    start = time.monotonic()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), mode, port, str(pid)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        for pid in (0, 1)
    ]
    results = []
    try:
        for proc in procs:
            left = max(1.0, timeout - (time.monotonic() - start))
            out, err = proc.communicate(timeout=left)
            results.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return results, time.monotonic() - start


def _json_line(stdout: str) -> dict[str, object]:
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    assert lines, stdout[-2000:]
    result: dict[str, object] = json.loads(lines[-1])
    return result


def test_a_psum_and_a_sharded_matmul_span_two_processes() -> None:
    results, _ = _run_job("compute", timeout=60)
    for rc, out, err in results:
        assert rc == 0, out[-2000:] + err[-4000:]
    got = [_json_line(out) for _, out, _ in results]
    for pid, r in enumerate(got):
        assert r["ids"] == [pid, 2, 4, 2]  # process_index, process_count, devices, local
        assert r["device_processes"] == [0, 0, 1, 1]
        assert r["local_ok"] is True
        assert r["default"] == [True, [1.0, 3.0, 5.0]]
        # make_array_from_process_local_data: each process gave its 2 elements of 4.
        base = 2 * pid
        assert r["x"] == [
            [4],
            False,
            [[d, [base + k], [base + k + 1.0]] for k, d in enumerate(_local_ids(pid))],
        ]
        assert r["psum"] == [[d, [None], [10.0]] for d in _local_ids(pid)]  # 1+2+3+4
        assert r["psum_value"] == [[10.0], "[10.]"]
        assert r["matmul"] is True
        assert r["matmul_gathered"] is True
        assert r["asarray_error"] is True
        assert r["repr"] == "Array(shape=(4, 6), dtype=float32)"
        assert r["allgather"] == [[0, 10], [1, 11]]
        assert r["allgather_tiled"] == [0.0, 1.0]
        assert r["broadcast"] == [[5.0, 5.0, 5.0], True]  # process 0's values
        assert r["assert_equal_raised"] is True
        assert r["roundtrip"] == [[4], [2], [base + 1.0, base + 2.0]]
        assert r["preemption"] is False
        assert r["live"] == 4


def _local_ids(pid: int) -> list[int]:
    # jaxlib numbers the CPU devices of process p from p << 11.
    return [(pid << 11) + k for k in range(2)]


def test_a_process_that_dies_makes_the_other_fail_within_a_timeout() -> None:
    results, seconds = _run_job("die", timeout=45)
    (rc0, out0, err0), (rc1, out1, _) = results
    assert "synced" in out0 and "synced" in out1
    assert rc1 == 7  # process 1 left abruptly after the first collective
    assert rc0 != 0, out0[-2000:] + err0[-2000:]
    assert "still running" not in out0
    # Either the collective in flight failed in Python, or jaxlib's coordination
    # service ended the process when process 1 missed its heartbeats (3 s).
    # jaxlib words the second case "heartbeat timeout" or "stopped sending heartbeats".
    said = out0 + err0
    causes = ("Connection closed by peer", "heartbeat timeout", "stopped sending heartbeats")
    assert any(cause in said for cause in causes), said[-3000:]
    assert seconds < 40
