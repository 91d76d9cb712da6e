"""make_jaxpr(grad(loss)) of a freshly built 4-layer MLP: Tessela vs the reference.

Tessela is measured in this process; the reference runs the same program in a
subprocess (``sys.executable``), since the two must not share a process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tessela_autodiff import grad
from tessela_tracer import lax, make_jaxpr

SIZES = (784, 512, 256, 128, 10)
REPEATS = 30

PROGRAM = textwrap.dedent(
    """
    import time
    import numpy as np

    def build(lax, grad, make_jaxpr, sizes, repeats):
        params = [
            (np.ones((m, n), np.float32), np.ones(n, np.float32))
            for m, n in zip(sizes[:-1], sizes[1:])
        ]
        x = np.ones((32, sizes[0]), np.float32)
        dn = (((1,), (0,)), ((), ()))

        def timed():
            def loss(params, x):
                h = x
                for w, b in params:
                    z = lax.add(lax.dot_general(h, w, dn), lax.broadcast_in_dim(b, (32, b.shape[0]), (1,)))
                    h = lax.tanh(z)
                return lax.reduce_sum(lax.mul(h, h), (0, 1))

            t0 = time.perf_counter()
            make_jaxpr(grad(loss))(params, x)
            return time.perf_counter() - t0

        timed()
        return min(timed() for _ in range(repeats))
    """
)


def _tessela() -> float:
    scope: dict[str, object] = {}
    exec(PROGRAM, scope)
    return float(scope["build"](lax, grad, make_jaxpr, SIZES, REPEATS))  # type: ignore[operator]


def _reference() -> float | None:
    code = (
        PROGRAM
        + "\nimport jax\nfrom jax import lax\n"
        + f"print(build(lax, jax.grad, jax.make_jaxpr, {SIZES!r}, {REPEATS}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ours = _tessela()
    ref = _reference()
    print(f"{'benchmark':<36} {'tessela ms':>11} {'reference ms':>13} {'ratio':>7}")
    ref_txt = f"{ref * 1e3:13.2f}" if ref is not None else f"{'n/a':>13}"
    ratio = f"{ours / ref:7.2f}" if ref else f"{'n/a':>7}"
    print(f"{'make_jaxpr(grad(mlp_loss)) 4 layers':<36} {ours * 1e3:11.2f} {ref_txt} {ratio}")


if __name__ == "__main__":
    main()
