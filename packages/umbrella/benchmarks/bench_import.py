"""Import time of ``import tessela`` against ``import jax.numpy``, fresh processes.

Each sample is one new interpreter that runs only the import; the wall time
of the whole process (interpreter start-up included, as a user sees it) and
its CPU time (user + system, steadier on a busy machine) are recorded, and the
two libraries alternate so that they share the machine's load. Bytecode is
cached in a temporary ``PYTHONPYCACHEPREFIX`` that a warm-up run fills, so
neither side pays for compiling its sources. Prints the medians and the
Tessela/JAX ratios.

Run: python packages/umbrella/benchmarks/bench_import.py [-n 5]  (JAX 0.10.2
in the interpreter named by ``TESSELA_BENCH_JAX_PYTHON``, else in this one;
JAX is imported only in its own processes).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def sample(python: str, statement: str, env: dict[str, str]) -> tuple[float, float]:
    """Runs ``statement`` in a fresh ``python``; returns (wall, cpu) seconds.

    Args:
      python: the interpreter to run.
      statement: the code it runs (an import).
      env: its environment.

    Returns:
      The wall-clock time of the process and its user + system CPU time.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-c", statement], env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=5, help="fresh processes per library")
    args = parser.parse_args()
    jax_python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    rows = {
        "tessela": (sys.executable, "import tessela"),
        "jax.numpy": (jax_python, "import jax.numpy"),
    }
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for python, statement in rows.values():
            sample(python, statement, env)  # fills the bytecode cache
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
        for _ in range(args.n):
            for name, (python, statement) in rows.items():
                times[name].append(sample(python, statement, env))
    wall = {name: statistics.median(w for w, _ in ts) for name, ts in times.items()}
    cpu = {name: statistics.median(c for _, c in ts) for name, ts in times.items()}
    print(f"median of {args.n} fresh processes   wall (s)   cpu (s)")
    for name in rows:
        print(f"  import {name:<28} {wall[name]:8.3f}  {cpu[name]:8.3f}")
    print(
        f"  ratio tessela / jax.numpy        {wall['tessela'] / wall['jax.numpy']:8.2f}"
        f"  {cpu['tessela'] / cpu['jax.numpy']:8.2f}"
    )


if __name__ == "__main__":
    main()
