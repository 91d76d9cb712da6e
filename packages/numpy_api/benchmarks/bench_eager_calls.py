"""Per-call cost of everyday eager NumPy-API calls: tessela_numpy vs jax.numpy.

Each side runs in its own process (Tessela under ``sys.executable``, JAX under
the interpreter named by ``TESSELA_BENCH_JAX_PYTHON``, else ``sys.executable``),
alternately, for ``--rounds`` rounds (3 by default). A row's time is process
CPU time per call, the minimum over repeats within a process, then the median
over rounds. Operands are small concrete arrays: ``x`` float32 of 9 elements,
``m`` float32 8x8, ``c`` a boolean mask. Prints one table with the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time

ROWS = [
    "sum(x)", "x.sum()", "mean(x)", "var(x)", "std(x)", "max(x)", "argmax(x)",
    "clip(x, 0, 1)", "where(c, x, x)", "maximum(x, x)", "maximum(x, 0.0)", "x + x", "x * 2.0",
    "exp(x)", "tanh(x)", "abs(x)", "m @ m", "matmul(m, m)", "m.T", "m.reshape(16, 4)", "m[0]",
    "asarray(host)", "zeros((3,))", "logaddexp(x, x)", "nan_to_num(x)", "diff(x)", "outer(x, x)",
    "inner(x, x)", "dot(m, m)", "count_nonzero(x)", "cumsum(x)", "linalg.norm(x)", "m.ravel()",
    "round(x)", "median(m)", "quantile(m, 0.3)", "gradient(m)", "nanmean(m)", "corrcoef(m)",
    "tril(m)", "isclose(x, x)", "m.at[2, 3].add(1.0)",
]  # fmt: skip

_BODY = textwrap.dedent(
    """
    import json, sys, time, timeit
    import numpy as np

    def bench(np_mod, put, rows, number):
        host = np.linspace(0, 1, 9, dtype=np.float32)
        x, m = put(host), put(np.ones((8, 8), np.float32))
        c = put(host > 0.5)
        env = dict(np_mod.__dict__, x=x, m=m, c=c, host=host)
        out = dict()
        for row in rows:
            fn = eval("lambda: " + row, env)
            for _ in range(3):
                fn()
            timer = timeit.Timer(fn, timer=time.process_time)
            out[row] = min(timer.repeat(number=number, repeat=7)) / number
        return out
    """
)

_TESSELA = _BODY + textwrap.dedent(
    """
    import tessela_lowering, tessela_numpy
    print(json.dumps(bench(tessela_numpy, tessela_lowering.device_put, {rows}, {number})))
    """
)

_JAX = _BODY + textwrap.dedent(
    """
    import jax, jax.numpy as jnp
    print(json.dumps(bench(jnp, jax.device_put, {rows}, {number})))
    """
)


def _side(python: str, script: str) -> dict[str, float] | None:
    proc = subprocess.run([python, "-c", script], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print("a side failed:", proc.stderr.strip().splitlines()[-1:], file=sys.stderr)
        return None
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Run both sides alternately and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--number", type=int, default=1000, help="calls per timing")
    args = parser.parse_args()
    jax_python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    runs: dict[str, list[dict[str, float]]] = {"tessela": [], "jax": []}
    for _ in range(args.rounds):
        for side, python, body in (
            ("tessela", sys.executable, _TESSELA),
            ("jax", jax_python, _JAX),
        ):
            result = _side(python, body.format(rows=ROWS, number=args.number))
            if result is not None:
                runs[side].append(result)

    def median_us(side: str, row: str) -> float:
        values = [r[row] for r in runs[side]]
        return statistics.median(values) * 1e6 if values else float("nan")

    print("| eager call | tessela (us) | jax (us) | tessela/jax |")
    print("|---|---|---|---|")
    for row in ROWS:
        t, j = median_us("tessela", row), median_us("jax", row)
        print(f"| `{row}` | {t:.2f} | {j:.2f} | {t / j:.2f} |")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - start:.1f} s)", file=sys.stderr)
