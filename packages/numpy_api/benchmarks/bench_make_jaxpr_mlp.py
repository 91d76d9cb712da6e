"""make_jaxpr of a fresh 4-layer MLP forward pass: tessela_numpy vs jax.numpy.

Tessela is timed in this process, JAX in a subprocess (``sys.executable``, or
the interpreter named by ``TESSELA_BENCH_JAX_PYTHON``). Prints one table with
the Tessela/JAX ratio of the median tracing time (best of five rounds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

REPEATS = 100
SIZES = [(784, 512), (512, 512), (512, 512), (512, 10)]

_BODY = textwrap.dedent(
    """
    import statistics, time, json
    import numpy as np
    ROUNDS = 5

    def bench(np_mod, make_jaxpr, repeats, sizes):
        rng = np.random.default_rng(0)
        params = [(rng.standard_normal(s).astype(np.float32),
                   rng.standard_normal(s[1]).astype(np.float32)) for s in sizes]
        x = rng.standard_normal((128, sizes[0][0])).astype(np.float32)
        times = []
        for _ in range(repeats * ROUNDS):
            def mlp(params, x):  # a fresh function each time: nothing cached
                for w, b in params[:-1]:
                    x = np_mod.tanh(np_mod.dot(x, w) + b)
                w, b = params[-1]
                logits = np_mod.dot(x, w) + b
                return (logits - logits.max(axis=-1, keepdims=True)).sum()
            t0 = time.perf_counter()
            make_jaxpr(mlp)(params, x)
            times.append(time.perf_counter() - t0)
        # The quietest round: the machine may be shared, so take the best median.
        return min(statistics.median(times[i:i + repeats])
                   for i in range(0, len(times), repeats))
    """
)

_JAX = _BODY + textwrap.dedent(
    """
    import jax, jax.numpy as jnp
    print(json.dumps(bench(jnp, jax.make_jaxpr, {repeats}, {sizes})))
    """
)


def main() -> None:
    """Run both measurements and print the table."""
    namespace: dict[str, object] = {}
    exec(_BODY, namespace)  # the same benchmark body for both sides
    import tessela_numpy
    import tessela_tracer

    bench = namespace["bench"]
    tessela_s = bench(tessela_numpy, tessela_tracer.make_jaxpr, REPEATS, SIZES)  # type: ignore[operator]
    python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    proc = subprocess.run(
        [python, "-c", _JAX.format(repeats=REPEATS, sizes=SIZES)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        print("JAX side failed:", proc.stderr.strip().splitlines()[-1:], file=sys.stderr)
        jax_s = float("nan")
    else:
        jax_s = json.loads(proc.stdout.strip().splitlines()[-1])
    print("| benchmark | tessela (ms) | jax (ms) | tessela/jax |")
    print("|---|---|---|---|")
    print(
        f"| make_jaxpr 4-layer MLP forward | {tessela_s * 1e3:.3f} | {jax_s * 1e3:.3f} "
        f"| {tessela_s / jax_s:.2f} |"
    )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - start:.1f} s)", file=sys.stderr)
