"""Gradient of a 4-layer MLP: Tessela in this process, JAX in a subprocess.

Rows: make_jaxpr(grad) of a fresh function, the first call of the jitted
gradient (trace + compile + run), a steady-state jitted gradient step, and
per-example gradients (jit of vmap of grad). Prints one table with the
Tessela/JAX ratio of the median times.

Run: python packages/umbrella/benchmarks/bench_mlp.py  (JAX 0.10.2 installed
beside Tessela for the oracle column, or the interpreter that has it named by
``TESSELA_BENCH_JAX_PYTHON``; it runs in its own process).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from typing import Any

SIZES = (64, 256, 256, 256, 10)
BATCH = 128

# The same program, written once, for either library (np = its numpy module).
PROGRAM = """
import time, statistics, json
import numpy
rng = numpy.random.default_rng(0)
SIZES = {sizes}
BATCH = {batch}
params = [(rng.normal(size=(a, b)).astype(numpy.float32) * 0.1, numpy.zeros(b, numpy.float32))
          for a, b in zip(SIZES[:-1], SIZES[1:])]
params = [(device_put(w), device_put(b)) for w, b in params]
x = device_put(rng.normal(size=(BATCH, SIZES[0])).astype(numpy.float32))
y = device_put(rng.normal(size=(BATCH, SIZES[-1])).astype(numpy.float32))

def fresh_loss():
    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = np.tanh(h @ w + b)
        w, b = params[-1]
        return np.mean((h @ w + b - y) ** 2)
    return loss

def median(fn, n):
    times = []
    for _ in range(n):
        t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    return statistics.median(times)

results = {{}}
results["make_jaxpr(grad(mlp))"] = median(lambda: make_jaxpr(grad(fresh_loss()))(params, x, y), 15)
results["first call of jit(grad)"] = median(
    lambda: block(jit(grad(fresh_loss()))(params, x, y)), 5)
step = jit(grad(fresh_loss()))
block(step(params, x, y))
results["steady jit(grad) step"] = median(lambda: block(step(params, x, y)), 200)
per_ex = jit(vmap(grad(fresh_loss()), in_axes=(None, 0, 0)))
block(per_ex(params, x[:, None], y[:, None]))
results["jit(vmap(grad)) per-example"] = median(
    lambda: block(per_ex(params, x[:, None], y[:, None])), 100)
print(json.dumps(results))
"""

TESSELA_PRELUDE = """
import tessela as tx
import tessela.numpy as np
from tessela import device_put, make_jaxpr, grad, jit, vmap
block = tx.block_until_ready
"""

JAX_PRELUDE = """
import jax
import jax.numpy as np
from jax import device_put, make_jaxpr, grad, jit, vmap
block = jax.block_until_ready
"""

TARGETS = {
    "make_jaxpr(grad(mlp))": 0.5,
    "first call of jit(grad)": 1.0,
    "steady jit(grad) step": 1.05,
    "jit(vmap(grad)) per-example": 1.05,
}


def _run(prelude: str, python: str = sys.executable) -> dict[str, float]:
    code = prelude + PROGRAM.format(sizes=SIZES, batch=BATCH)
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


JAX_PYTHON = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)


def _best(runs: list[dict[str, float]], name: str) -> float:
    return statistics.median(r[name] for r in runs)


def main(repeats: int = 2) -> None:
    """Alternate Tessela and JAX runs (each a fresh process) and print the table."""
    tessela_runs: list[dict[str, float]] = []
    jax_runs: list[dict[str, float]] = []
    runners: list[tuple[Callable[[], dict[str, float]], list[dict[str, float]]]] = [
        (lambda: _run(TESSELA_PRELUDE), tessela_runs),
        (lambda: _run(JAX_PRELUDE, JAX_PYTHON), jax_runs),
    ]
    for _ in range(repeats):
        for run, sink in runners:
            sink.append(run())
    print(f"MLP {SIZES}, batch {BATCH}; medians over {repeats} fresh processes each")
    print(f"{'benchmark':32s} {'tessela':>12s} {'jax':>12s} {'ratio':>7s} {'target':>7s}")
    for name, target in TARGETS.items():
        t, j = _best(tessela_runs, name), _best(jax_runs, name)
        ok: Any = "ok" if t / j <= target else "MISS"
        print(f"{name:32s} {t * 1e3:10.3f}ms {j * 1e3:10.3f}ms {t / j:7.2f} {target:6.2f} {ok}")


if __name__ == "__main__":
    main()
