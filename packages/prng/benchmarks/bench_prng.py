"""Tessela (NumPy) against the reference's jit-compiled samplers on CPU.

Run: ``python benchmarks/bench_prng.py`` with ``jax`` installed for the same
interpreter; the reference runs in a subprocess (``sys.executable``). Prints one
table with the median time of each workload and the Tessela/JAX ratio.
"""

from __future__ import annotations

import json
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
import json, statistics, sys, time
import jax, numpy as np
from jax import random
n, splits, repeats = map(int, sys.argv[1:4])
key = random.key(0)
work = {
    "normal": jax.jit(lambda k: random.normal(k, (n,))),
    "bits": jax.jit(lambda k: random.bits(k, (n,))),
    "split": jax.jit(lambda k: random.key_data(random.split(k, splits))),
}
out = {}
for name, fn in work.items():
    fn(key).block_until_ready()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(key).block_until_ready()
        times.append(time.perf_counter() - t0)
    out[name] = statistics.median(times)
print(json.dumps(out))
"""


def _median_time(fn: Callable[[], Any]) -> float:
    fn()
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure_tessela() -> dict[str, float]:
    key = tr.key(0)
    return {
        "normal": _median_time(lambda: tr.normal(key, (N,))),
        "bits": _median_time(lambda: tr.bits(key, (N,))),
        "split": _median_time(lambda: tr.split(key, SPLITS)),
    }


def measure_jax() -> dict[str, float] | None:
    proc = subprocess.run(
        [sys.executable, "-c", JAX_SCRIPT, str(N), str(SPLITS), str(REPEATS)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        print("reference unavailable:", proc.stderr.strip().splitlines()[-1:], file=sys.stderr)
        return None
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    labels = {
        "normal": f"normal(key, ({N:_},))",
        "bits": f"bits(key, ({N:_},))",
        "split": f"split(key, {SPLITS:_})",
    }
    ours = measure_tessela()
    ref = measure_jax()
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
