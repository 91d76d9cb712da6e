"""jit against JAX: Tessela in this process, JAX in a subprocess (sys.executable).

Rows:
  jit add (2 args)       dispatch of a jitted tiny add, f32[3]
  jit add (10 args)      dispatch of a jitted sum of ten f32[3]
  eager x + y            one eager add of two f32[3] arrays
  MLP first call         trace + lower + compile + run of a fresh jitted 4-layer MLP
  MLP steady state       a cached call of that MLP, batch 128, width 256
  matmul 1000x1000       a jitted f32 matmul

Prints one table with a Tessela/JAX ratio column (below 1: Tessela is faster);
each row is the best of three alternating rounds.
JAX runs under ``sys.executable`` (or the interpreter named by
``TESSELA_BENCH_JAX_PYTHON``); without JAX there the JAX column reads "n/a".
"""

from __future__ import annotations

import textwrap
import time
import timeit
from collections.abc import Callable
from typing import Any

import _jax_side
import numpy as np

SMALL = 20000
ROWS = (
    ("add2", "jit add (2 args)"),
    ("add10", "jit add (10 args)"),
    ("eager", "eager x + y"),
    ("mlp_first", "MLP first call"),
    ("mlp", "MLP steady state"),
    ("matmul", "matmul 1000x1000"),
)

JAX_CODE = textwrap.dedent(
    """
    import json, time, timeit
    import numpy as np
    import jax, jax.numpy as jnp

    def best(f, n):
        f()
        return min(timeit.repeat(f, number=n, repeat=5)) / n * 1e6

    x = jnp.ones(3, jnp.float32); y = jnp.ones(3, jnp.float32)
    add = jax.jit(lambda a, b: a + b)
    xs = [jnp.ones(3, jnp.float32) for _ in range(10)]
    add10 = jax.jit(lambda *a: sum(a[1:], a[0]))
    out = {"add2": best(lambda: add(x, y), __N__), "add10": best(lambda: add10(*xs), __N__),
           "eager": best(lambda: x + y, __N__)}
    rng = np.random.default_rng(0)
    ws = [jnp.asarray(rng.standard_normal((256, 256), np.float32) / 16) for _ in range(4)]
    bs = [jnp.asarray(np.zeros(256, np.float32)) for _ in range(4)]
    batch = jnp.asarray(rng.standard_normal((128, 256), np.float32))

    def make():
        def mlp(ws, bs, h):
            for w, b in zip(ws, bs):
                h = jnp.tanh(h @ w + b)
            return h
        return jax.jit(mlp)

    firsts = []
    for _ in range(5):
        f = make()
        t = time.perf_counter(); f(ws, bs, batch).block_until_ready()
        firsts.append((time.perf_counter() - t) * 1e6)
    out["mlp_first"] = sorted(firsts)[2]
    out["mlp"] = best(lambda: f(ws, bs, batch).block_until_ready(), 200)
    a = jnp.asarray(rng.standard_normal((1000, 1000), np.float32))
    mm = jax.jit(lambda p, q: p @ q)
    out["matmul"] = best(lambda: mm(a, a).block_until_ready(), 20)
    print(json.dumps(out))
    """
).replace("__N__", str(SMALL))


def _best(fn: Callable[[], Any], number: int) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def tessela_times() -> dict[str, float]:
    """Microseconds per call for each row, measured in this process."""
    import tessela_lowering as tl
    from tessela_tracer import lax

    try:
        import tessela_numpy  # noqa: F401  (fills the array operators)

        def eager(a: Any, b: Any) -> Any:
            return a + b
    except ImportError:
        eager = lax.add

    x = tl.device_put(np.ones(3, np.float32))
    y = tl.device_put(np.ones(3, np.float32))
    add = tl.jit(lambda a, b: lax.add(a, b))
    xs = [tl.device_put(np.ones(3, np.float32)) for _ in range(10)]

    def total(*a: Any) -> Any:
        acc = a[0]
        for v in a[1:]:
            acc = lax.add(acc, v)
        return acc

    add10 = tl.jit(total)
    out = {
        "add2": _best(lambda: add(x, y), SMALL),
        "add10": _best(lambda: add10(*xs), SMALL),
        "eager": _best(lambda: eager(x, y), SMALL),
    }
    rng = np.random.default_rng(0)
    ws = [tl.device_put(rng.standard_normal((256, 256), np.float32) / 16) for _ in range(4)]
    bs = [tl.device_put(np.zeros(256, np.float32)) for _ in range(4)]
    batch = tl.device_put(rng.standard_normal((128, 256), np.float32))
    dims = (((1,), (0,)), ((), ()))

    def make() -> Any:
        def mlp(ws: Any, bs: Any, h: Any) -> Any:
            for w, b in zip(ws, bs, strict=True):
                z = lax.dot_general(h, w, dims)
                h = lax.tanh(lax.add(z, lax.broadcast_in_dim(b, z.shape, (1,))))
            return h

        return tl.jit(mlp)

    firsts = []
    for _ in range(5):
        f = make()
        start = time.perf_counter()
        f(ws, bs, batch).block_until_ready()
        firsts.append((time.perf_counter() - start) * 1e6)
    out["mlp_first"] = sorted(firsts)[2]
    out["mlp"] = _best(lambda: f(ws, bs, batch).block_until_ready(), 200)
    a = tl.device_put(rng.standard_normal((1000, 1000), np.float32))
    mm = tl.jit(lambda p, q: lax.dot_general(p, q, dims))
    out["matmul"] = _best(lambda: mm(a, a).block_until_ready(), 20)
    return out


def jax_times() -> dict[str, float] | None:
    """The same rows for JAX, in a separate process; None when JAX is missing."""
    return _jax_side.jax_times(JAX_CODE)


ROUNDS = 3


def _merge(best: dict[str, float] | None, new: dict[str, float] | None) -> dict[str, float] | None:
    if new is None:
        return best
    if best is None:
        return new
    return {k: min(best[k], new[k]) for k in best}


def main() -> None:
    """Print the table (best of alternating rounds, to damp a busy machine's noise)."""
    theirs: dict[str, float] | None = None
    ours: dict[str, float] | None = None
    for _ in range(ROUNDS):
        theirs = _merge(theirs, jax_times())
        ours = _merge(ours, tessela_times())
    assert ours is not None
    print(f"{'benchmark':<22}{'tessela us':>12}{'jax us':>12}{'ratio':>8}")
    for key, label in ROWS:
        ref = theirs[key] if theirs else float("nan")
        ratio = f"{ours[key] / ref:8.2f}" if theirs else "     n/a"
        print(f"{label:<22}{ours[key]:>12.1f}{ref:>12.1f}{ratio}")


if __name__ == "__main__":
    main()
