"""Tessela (NumPy) against the reference's jit-compiled samplers on CPU.

Run: ``python benchmarks/bench_prng.py`` with ``jax`` installed for the same
interpreter; the reference runs in a subprocess (``sys.executable``), and the
two alternate run by run so that both see the same machine load. Prints one
table with the median time of each workload and the Tessela/JAX ratio.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import tessela_prng as tr

N = 10_000_000
SPLITS = 100_000
REPEATS = 7

JAX_SCRIPT = r"""
import sys, time
import jax
from jax import random
n, splits = map(int, sys.argv[1:3])
key = random.key(0)
work = {
    "normal": jax.jit(lambda k: random.normal(k, (n,))),
    "bits": jax.jit(lambda k: random.bits(k, (n,))),
    "split": jax.jit(lambda k: random.key_data(random.split(k, splits))),
}
for fn in work.values():
    fn(key).block_until_ready()
print("ready", flush=True)
for line in sys.stdin:
    fn = work[line.strip()]
    t0 = time.perf_counter()
    fn(key).block_until_ready()
    print(time.perf_counter() - t0, flush=True)
"""


def _once(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure() -> tuple[dict[str, float], dict[str, float] | None]:
    """Median times, alternating Tessela and JAX runs so both see the same load."""
    key = tr.key(0)
    ours: dict[str, Callable[[], Any]] = {
        "normal": lambda: tr.normal(key, (N,)),
        "bits": lambda: tr.bits(key, (N,)),
        "split": lambda: tr.split(key, SPLITS),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", JAX_SCRIPT, str(N), str(SPLITS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    ready = proc.stdout.readline().strip() == "ready"
    if not ready:
        print("reference unavailable (is jax installed?)", file=sys.stderr)
    mine: dict[str, list[float]] = {name: [] for name in ours}
    theirs: dict[str, list[float]] = {name: [] for name in ours}
    for name, fn in ours.items():
        fn()
        for _ in range(REPEATS):
            mine[name].append(_once(fn))
            if ready:
                proc.stdin.write(name + "\n")
                proc.stdin.flush()
                theirs[name].append(float(proc.stdout.readline()))
    proc.stdin.close()
    proc.wait()
    med = {name: statistics.median(ts) for name, ts in mine.items()}
    if not ready:
        return med, None
    return med, {name: statistics.median(ts) for name, ts in theirs.items()}


def main() -> None:
    labels = {
        "normal": f"normal(key, ({N:_},))",
        "bits": f"bits(key, ({N:_},))",
        "split": f"split(key, {SPLITS:_})",
    }
    ours, ref = measure()
    print(f"numpy {np.__version__}, {REPEATS} repeats, median wall time")
    print(f"| {'workload':<26} | {'tessela (ms)':>12} | {'jax jit (ms)':>12} | {'ratio':>6} |")
    print(f"|{'-' * 28}|{'-' * 14}|{'-' * 14}|{'-' * 8}|")
    for name, label in labels.items():
        mine = ours[name] * 1e3
        if ref is None:
            print(f"| {label:<26} | {mine:12.2f} | {'n/a':>12} | {'n/a':>6} |")
        else:
            theirs = ref[name] * 1e3
            print(f"| {label:<26} | {mine:12.2f} | {theirs:12.2f} | {mine / theirs:6.2f} |")


if __name__ == "__main__":
    main()
