"""Eager ``random`` samplers: Tessela in one process, JAX in another, per call.

Rows: the samplers programs call outside ``jit`` (initialisers, data
pipelines, tests), each on a small and (for ``normal``) a large shape, plus
the first call of a sampler on a new shape (trace and compile). Each row is
the best of 5 batches (a batch of 50 calls, 3 for the first-call row) after
a warm-up call, in microseconds; the table prints Tessela/JAX ratios.

Run: python packages/umbrella/benchmarks/bench_random.py (JAX 0.10.2 in the
interpreter named by ``TESSELA_BENCH_JAX_PYTHON``, else this one; it runs in
its own process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

# The same program for either library (``random`` is its random module).
PROGRAM = """
import json, time
import numpy
key = random.key(0)
p = numpy.log(numpy.array([0.2, 0.3, 0.5], numpy.float32))
ROWS = {
    "normal(key, (3,))": lambda: random.normal(key, (3,)),
    "normal(key, (1000, 100))": lambda: random.normal(key, (1000, 100)),
    "uniform(key, (3,), minval, maxval)": lambda: random.uniform(key, (3,), minval=-1.0, maxval=2.0),
    "randint(key, (3,), 0, 10)": lambda: random.randint(key, (3,), 0, 10),
    "bernoulli(key, 0.3, (8,))": lambda: random.bernoulli(key, 0.3, (8,)),
    "categorical(key, logits, shape=(5,))": lambda: random.categorical(key, p, shape=(5,)),
    "choice(key, 10, (3,))": lambda: random.choice(key, 10, (3,)),
    "permutation(key, 10)": lambda: random.permutation(key, 10),
    "gamma(key, 2.0, (3,))": lambda: random.gamma(key, 2.0, (3,)),
    "split(key)": lambda: random.split(key),
    "split(key, 100000)": lambda: random.split(key, 100000),
    "fold_in(key, 7)": lambda: random.fold_in(key, 7),
}

def best(fn, calls):
    out = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            block(fn())
        out.append((time.perf_counter() - t) / calls)
    return min(out)

results = {}
for name, fn in ROWS.items():
    block(fn())
    results[name] = best(fn, 50)
shapes = iter(range(2, 100))
results["first normal of a new shape"] = best(lambda: random.normal(key, (next(shapes), 3)), 3)
print(json.dumps(results))
"""

TESSELA_PRELUDE = "import tessela, tessela.random as random\nblock = tessela.block_until_ready\n"
JAX_PRELUDE = "import jax, jax.random as random\nblock = jax.block_until_ready\n"
JAX_PYTHON = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)


def _run(prelude: str, python: str) -> dict[str, float]:
    out = subprocess.run(
        [python, "-c", prelude + PROGRAM], capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    """Run both programs and print one table of per-call times and ratios."""
    tessela = _run(TESSELA_PRELUDE, sys.executable)
    jax = _run(JAX_PRELUDE, JAX_PYTHON)
    print("eager random samplers, per call (best of 5 batches)")
    print(f"{'call':40s} {'tessela':>11s} {'jax':>11s} {'ratio':>6s}")
    for name, t in tessela.items():
        j = jax[name]
        print(f"{name:40s} {t * 1e6:9.1f}us {j * 1e6:9.1f}us {t / j:6.2f}")


if __name__ == "__main__":
    main()
