"""make_jaxpr(vmap(per_example_mlp)) on Tessela vs the reference (in a subprocess).

Prints one table with a Tessela/reference ratio column.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import timeit

import numpy as np

SIZES = [(32, 64), (64, 64), (64, 10)]
BATCH = 128
REPEAT = 20

REFERENCE = textwrap.dedent(
    """
    import sys, timeit
    import numpy as np
    import jax
    from jax import lax
    sizes = {sizes!r}
    params = [(np.ones((m, n), np.float32), np.ones(n, np.float32)) for m, n in sizes]
    def mlp(params, x):
        for w, b in params[:-1]:
            x = lax.tanh(lax.add(lax.dot_general(x, w, (((0,), (0,)), ((), ()))), b))
        w, b = params[-1]
        return lax.add(lax.dot_general(x, w, (((0,), (0,)), ((), ()))), b)
    xs = np.ones(({batch}, sizes[0][0]), np.float32)
    f = lambda: jax.make_jaxpr(jax.vmap(mlp, in_axes=(None, 0)))(params, xs)
    f()
    print(min(timeit.repeat(f, number=1, repeat={repeat})))
    """
)


def tessela_time() -> float:
    from tessela_batching import vmap
    from tessela_tracer import lax, make_jaxpr

    params = [(np.ones((m, n), np.float32), np.ones(n, np.float32)) for m, n in SIZES]

    def mlp(params, x):  # type: ignore[no-untyped-def]
        for w, b in params[:-1]:
            x = lax.tanh(lax.add(lax.dot_general(x, w, (((0,), (0,)), ((), ()))), b))
        w, b = params[-1]
        return lax.add(lax.dot_general(x, w, (((0,), (0,)), ((), ()))), b)

    xs = np.ones((BATCH, SIZES[0][0]), np.float32)

    def f() -> object:
        return make_jaxpr(vmap(mlp, in_axes=(None, 0)))(params, xs)

    f()
    return min(timeit.repeat(f, number=1, repeat=REPEAT))


def reference_time() -> float | None:
    code = REFERENCE.format(sizes=SIZES, batch=BATCH, repeat=REPEAT)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode:
        print(f"reference unavailable: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return float(proc.stdout.strip())


def main() -> None:
    ours = tessela_time()
    ref = reference_time()
    print(f"{'benchmark':<36} {'tessela':>12} {'reference':>12} {'ratio':>7}")
    ref_s = f"{ref * 1e3:9.3f} ms" if ref else "         n/a"
    ratio = f"{ours / ref:7.2f}" if ref else "    n/a"
    print(f"{'make_jaxpr(vmap(mlp)) 3 layers':<36} {ours * 1e3:9.3f} ms {ref_s} {ratio}")


if __name__ == "__main__":
    main()
