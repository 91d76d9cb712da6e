"""Per-call cost of ``bench_calls.py``'s rows in instructions, Tessela beside JAX.

Timings on a shared machine move with its load; instruction counts do not.
Each side runs every row in one worker process per device count, under
Valgrind's callgrind (``valgrind`` must be on ``PATH``), which counts the
instructions executed while a row's calls run, after its warm-up
(``callgrind_control`` switches counting on and off around them and dumps
the count of each row). Two figures per side:

- ``main``: the calling thread alone: tracing caches, keys, argument
  transfers, launching the program, wrapping the results. This is what a
  Python program waits for when the computation is small, and the part a
  dispatch design controls.
- ``all``: every thread, XLA's thread pool included. A pool's worker that
  spins waiting for work executes instructions too, so ``all`` varies more
  between runs than ``main``.

The figures are per call, less a pass with no call (the switching itself).
Rows are ``bench_calls.py``'s; ``TESSELA_BENCH_ROWS`` (comma-separated keys,
default: all) picks some, ``TESSELA_BENCH_CALLS`` sets the calls per row
(default 500; a quarter of it for the slow rows), ``TESSELA_BENCH_DEVICES``
the CPU device counts (default ``1,8``). JAX runs under
``TESSELA_BENCH_JAX_PYTHON`` as in ``bench_calls.py``. Two workers run at a
time. A full run takes tens of minutes: under callgrind a process runs about
fifty times slower.

    python bench_instructions.py
"""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import subprocess
import sys
import tempfile

import bench_calls

HERE = pathlib.Path(__file__).resolve().parent


def _worker(which: str, keys: list[str], calls: int) -> None:
    # For each row: warm it up, then count its calls into one dump of callgrind's
    # (numbered from 1 in ``keys``' order; dump 0... is a run with no call).
    rows = bench_calls.tessela_rows() if which == "tessela" else bench_calls.jax_rows()
    pid = str(os.getpid())

    def control(*args: str) -> None:
        subprocess.run(["callgrind_control", *args, pid], check=True, capture_output=True)

    # The first pass counts no call: what switching the count costs.
    for first, key in [(True, keys[0])] + [(False, key) for key in keys]:
        fn = rows[key]
        for _ in range(20):
            fn()
        wait = getattr(fn, "wait", None) or (lambda: None)
        wait()
        control("-z")
        control("-i", "on")
        for _ in range(0 if first else _calls(key, calls)):
            fn()
        wait()
        control("-i", "off")
        control("-d")


def _calls(key: str, calls: int) -> int:
    return calls // 4 if key in bench_calls.SLOW_ROWS else calls


def _totals(prefix: pathlib.Path, dump: int) -> tuple[int, int]:
    # (main thread, all threads) of one dump, from callgrind's per-thread files.
    main = every = 0
    for path in sorted(prefix.parent.glob(f"{prefix.name}.{dump}-*")):
        count = 0
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                count = int(line.split()[1])
        every += count
        if path.name.endswith("-01"):
            main = count
    return main, every


def _count(
    python: str, which: str, keys: list[str], calls: int, devices: int
) -> list[tuple[float, float]]:
    # Instructions per call of each row (main thread, all threads), less the
    # first dump's, which counted no call.
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={devices}".strip()
    env["JAX_PLATFORMS"] = "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        prefix = pathlib.Path(tmp) / "callgrind.out"
        cmd = [
            "valgrind", "--tool=callgrind", "--separate-threads=yes", "--instr-atstart=no",
            f"--callgrind-out-file={prefix}", python, str(HERE / "bench_instructions.py"),
            "--worker", which, ",".join(keys), str(calls),
        ]  # fmt: skip
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=HERE)
        if done.returncode != 0:
            raise RuntimeError(f"{which}: {done.stderr[-2000:]}")
        base = _totals(prefix, 1)
        out = []
        for dump, key in enumerate(keys, start=2):
            got = _totals(prefix, dump)
            n = _calls(key, calls)
            out.append(((got[0] - base[0]) / n, (got[1] - base[1]) / n))
        return out


def main() -> None:
    """Print main-thread and all-thread instructions per call, and the ratios."""
    jax_python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    calls = int(os.environ.get("TESSELA_BENCH_CALLS", "500"))
    picked = os.environ.get("TESSELA_BENCH_ROWS")
    keys = picked.split(",") if picked else [key for key, _ in bench_calls.ROWS]
    labels = dict(bench_calls.ROWS)
    device_counts = [int(d) for d in os.environ.get("TESSELA_BENCH_DEVICES", "1,8").split(",")]
    sides = (("tessela", sys.executable), ("jax", jax_python))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        jobs = {
            (devices, which): pool.submit(_count, python, which, keys, calls, devices)
            for devices in device_counts
            for which, python in sides
        }
    heads = ("tessela main", "jax main", "ratio", "tessela all", "jax all", "ratio")
    print(
        f"{'call (instructions per call)':<25}{'devices':>8}" + "".join(f"{h:>13}" for h in heads)
    )
    for devices in device_counts:
        ours, theirs = jobs[devices, "tessela"].result(), jobs[devices, "jax"].result()
        for key, (t_main, t_all), (j_main, j_all) in zip(keys, ours, theirs, strict=True):
            print(
                f"{labels[key]:<25}{devices:>8}{t_main:>13.0f}{j_main:>13.0f}"
                f"{t_main / j_main:>13.2f}{t_all:>13.0f}{j_all:>13.0f}{t_all / j_all:>13.2f}"
            )


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]))
    else:
        main()
