"""make_jaxpr of a fresh 4-layer MLP and of a 200-step unrolled loop, Tessela vs JAX.

Tessela is timed in this process, JAX in a subprocess (``sys.executable``).
Prints one table with a Tessela/JAX ratio column.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import timeit

CASES = textwrap.dedent(
    """
    import numpy as np

    def cases(lax, make_jaxpr):
        F = np.float32
        rng = np.random.RandomState(0)
        params = [(rng.randn(128, 128).astype(F), rng.randn(128).astype(F)) for _ in range(4)]
        x = np.ones((32, 128), F)

        def mlp_case():
            def mlp(params, x):
                for w, b in params:
                    y = lax.dot_general(x, w, (((1,), (0,)), ((), ())))
                    x = lax.tanh(lax.add(y, lax.broadcast_in_dim(b, (32, 128), (1,))))
                return lax.reduce_sum(x, (0, 1))
            return make_jaxpr(mlp)(params, x)

        def loop_case():
            def loop(v):
                for i in range(200):
                    v = lax.add(lax.mul(v, 0.5), lax.sin(v))
                return v
            return make_jaxpr(loop)(x)

        return {"mlp4_make_jaxpr": mlp_case, "unrolled200_make_jaxpr": loop_case}

    def measure(lax, make_jaxpr, timeit):
        out = {}
        for name, fn in cases(lax, make_jaxpr).items():
            fn()
            reps = 20
            best = min(timeit.repeat(fn, number=reps, repeat=5)) / reps
            out[name] = best
        return out
    """
)


def main() -> None:
    ns: dict[str, object] = {}
    exec(CASES, ns)
    from tessela_tracer import lax, make_jaxpr

    ours = ns["measure"](lax, make_jaxpr, timeit)  # type: ignore[operator]
    jax_src = CASES + textwrap.dedent(
        """
        import json, timeit, jax
        print(json.dumps(measure(jax.lax, jax.make_jaxpr, timeit)))
        """
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", jax_src], capture_output=True, text=True, check=True
        )
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    except (subprocess.CalledProcessError, ValueError) as err:
        print(f"JAX oracle unavailable ({err}); Tessela only")
        theirs = {}
    print(f"{'case':28s} {'tessela (ms)':>13s} {'jax (ms)':>10s} {'ratio':>7s}")
    for name, t in ours.items():  # type: ignore[attr-defined]
        j = theirs.get(name)
        ratio = f"{t / j:7.2f}" if j else "    n/a"
        jtxt = f"{j * 1e3:10.3f}" if j else "       n/a"
        print(f"{name:28s} {t * 1e3:13.3f} {jtxt} {ratio}")


if __name__ == "__main__":
    main()
