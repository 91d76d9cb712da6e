"""Sharded computation on 8 CPU devices, side by side with JAX.

Rows (float32, ``--xla_force_host_platform_device_count=8``):
  matmul      ``jit(a @ b)``, 4096x4096 operands with ``NamedSharding`` over a
              2x4 mesh (``a`` split by rows over 'x', ``b`` by columns over
              'y'); milliseconds per call
  mlp_step    one data-parallel training step of an MLP: the batch split over
              'x' of an 8-device mesh, the parameters replicated, ``jit`` of the
              gradient and the SGD update; milliseconds per step
  jit_sharded ``jit(f)(a, b)`` on two small arrays split over the 8-device
              mesh: dispatch, microseconds per call
  pmap        ``pmap(f)(x)`` on a small (8, 4) array already split over the
              devices by a previous ``pmap``: dispatch, microseconds per call

One worker process for Tessela and one for JAX (Tessela's never imports JAX),
both alive for the whole run; the driver asks them for each row in turn,
alternating, ``TESSELA_BENCH_ROUNDS`` rounds (default 3) of a few batches
each, and a row's time is its best batch over every round, so both sides see
the same machine load and an interrupted batch does not count. JAX runs under
``TESSELA_BENCH_JAX_PYTHON`` (default: this interpreter); without JAX the JAX
column reads "n/a". Run it as ``python bench_sharding.py``.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

DEVICES = 8
# name, label, unit scale (seconds -> printed unit), calls per batch, batches per round, target
ROWS: list[tuple[str, str, float, int, int, float]] = [
    ("matmul", "4096^2 matmul, 2x4 mesh (ms)", 1e3, 1, 3, 1.05),
    ("mlp_step", "MLP train step, dp x8 (ms)", 1e3, 5, 3, 1.05),
    ("jit_sharded", "jit dispatch, sharded (us)", 1e6, 200, 5, 1.0),
    ("pmap", "pmap dispatch (us)", 1e6, 200, 5, 1.0),
]
N = 4096
SIZES = (256, 512, 512, 10)
BATCH = 1024
LR = 1e-3


def _timer(call: Callable[[], Any], wait: Callable[[Any], Any]) -> Callable[[int], float]:
    """A function timing ``number`` calls of ``call``; seconds per call."""
    wait(call())

    def time_batch(number: int) -> float:
        start = timeit.default_timer()
        out = None
        for _ in range(number):
            out = call()
        wait(out)
        return (timeit.default_timer() - start) / number

    return time_batch


def _mlp_data() -> tuple[list[tuple[Any, Any]], Any, Any]:
    rng = np.random.default_rng(0)
    params = [
        (rng.normal(size=(a, b)).astype(np.float32) * 0.05, np.zeros(b, np.float32))
        for a, b in itertools.pairwise(SIZES)
    ]
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.normal(size=(BATCH, SIZES[-1])).astype(np.float32)
    return params, x, y


def _rows(lib: Any, np_mod: Any, sharding: Any, tree_map: Callable[..., Any]) -> dict[str, Any]:
    """The timers of every row, for one library (``lib`` is tessela or jax)."""
    named, spec = sharding.NamedSharding, sharding.PartitionSpec
    mesh2 = lib.make_mesh((2, 4), ("x", "y"))
    mesh8 = lib.make_mesh((DEVICES,), ("x",))
    rng = np.random.default_rng(1)
    a = lib.device_put(rng.standard_normal((N, N), np.float32), named(mesh2, spec("x", None)))
    b = lib.device_put(rng.standard_normal((N, N), np.float32), named(mesh2, spec(None, "y")))
    matmul = lib.jit(lambda u, v: u @ v)

    def loss(params: Any, x: Any, y: Any) -> Any:
        h = x
        for w, bias in params[:-1]:
            h = np_mod.tanh(h @ w + bias)
        w, bias = params[-1]
        return np_mod.mean((h @ w + bias - y) ** 2)

    def sgd(params: Any, x: Any, y: Any) -> Any:
        grads = lib.grad(loss)(params, x, y)
        return tree_map(lambda p, g: p - LR * g, params, grads)

    params, x, y = _mlp_data()
    state = [lib.device_put(params, named(mesh8, spec()))]
    xs = lib.device_put(x, named(mesh8, spec("x")))
    ys = lib.device_put(y, named(mesh8, spec("x")))
    step = lib.jit(sgd, donate_argnums=0)

    def train() -> Any:
        state[0] = step(state[0], xs, ys)
        return state[0]

    small = named(mesh8, spec("x"))
    sa = lib.device_put(np.ones((8, 16), np.float32), small)
    sb = lib.device_put(np.ones((8, 16), np.float32), small)
    add = lib.jit(lambda u, v: u * 2.0 + v)
    double = lib.pmap(lambda u: u * 2.0 + 1.0)
    px = double(np.ones((DEVICES, 4), np.float32))
    wait = lib.block_until_ready
    return {
        "matmul": _timer(lambda: matmul(a, b), wait),
        "mlp_step": _timer(train, wait),
        "jit_sharded": _timer(lambda: add(sa, sb), wait),
        "pmap": _timer(lambda: double(px), wait),
    }


def _tessela_rows() -> dict[str, Any]:
    import tessela
    import tessela.numpy as tnp
    from tessela import sharding, tree_util

    return _rows(tessela, tnp, sharding, tree_util.tree_map)


def _jax_rows() -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    from jax import sharding

    return _rows(jax, jnp, sharding, jax.tree_util.tree_map)


def _worker(which: str) -> None:
    """Answer row names on stdin with the best batch time (seconds) on stdout."""
    timers = _tessela_rows() if which == "tessela" else _jax_rows()
    print("ready", flush=True)
    for line in sys.stdin:
        name, number, batches = line.split()
        best = min(timers[name](int(number)) for _ in range(int(batches)))
        print(json.dumps(best), flush=True)


def _start(python: str, which: str) -> subprocess.Popen[str] | None:
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={DEVICES}".strip()
    env.pop("TESSELA_NUM_CPU_DEVICES", None)
    env.pop("JAX_NUM_CPU_DEVICES", None)
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.Popen(
        [python, os.path.abspath(__file__), "--worker", which],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        proc.wait()
        if which == "tessela":
            raise RuntimeError("the Tessela worker failed to start")
        return None
    return proc


def _ask(proc: subprocess.Popen[str], name: str, number: int, batches: int) -> float:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{name} {number} {batches}\n")
    proc.stdin.flush()
    return float(json.loads(proc.stdout.readline()))


def main() -> None:
    """Print the table: best batch of alternating rounds, with the Tessela/JAX ratio."""
    jax_python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    rounds = int(os.environ.get("TESSELA_BENCH_ROUNDS", "3"))
    theirs_proc = _start(jax_python, "jax")
    ours_proc = _start(sys.executable, "tessela")
    assert ours_proc is not None
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    try:
        for r in range(rounds):
            for name, _label, _scale, number, batches, _target in ROWS:
                # Each round swaps which side goes first.
                sides = [(ours_proc, ours), (theirs_proc, theirs)]
                for proc, sink in sides if r % 2 else sides[::-1]:
                    if proc is not None:
                        t = _ask(proc, name, number, batches)
                        sink[name] = min(sink.get(name, t), t)
    finally:
        for proc in (ours_proc, theirs_proc):
            if proc is not None and proc.stdin is not None:
                proc.stdin.close()
                proc.wait()
    print(f"{DEVICES} CPU devices, float32; best batch of {rounds} alternating rounds")
    print(f"{'row':<32}{'tessela':>10}{'jax':>10}{'ratio':>7}{'target':>8}")
    for name, label, scale, _number, _batches, target in ROWS:
        mine = ours[name] * scale
        if name in theirs:
            ref = theirs[name] * scale
            ratio = mine / ref
            verdict = "ok" if ratio <= target else "MISS"
            print(f"{label:<32}{mine:>10.1f}{ref:>10.1f}{ratio:>7.2f}{target:>8.2f} {verdict}")
        else:
            print(f"{label:<32}{mine:>10.1f}{'n/a':>10}{'n/a':>7}{target:>8.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(sys.argv[2])
    else:
        main()
