"""Per-call cost of ``jit`` and eager operations for every common call shape.

Each row is measured for Tessela and for JAX on 1 CPU device and on 8
(``--xla_force_host_platform_device_count=8``), and printed as microseconds
per call with the Tessela/JAX ratio. The two run side by side: one worker
process each (Tessela's never imports JAX), both alive for the whole run,
timing the same row in alternating short batches; a row's time is the best
batch (``TESSELA_BENCH_BATCHES`` per side, default 30), so that both see the
same machine load and a batch that another process interrupted does not
count. JAX runs under ``TESSELA_BENCH_JAX_PYTHON`` (default: this
interpreter); without JAX the JAX columns read "n/a". Run it as
``python bench_calls.py`` (``nox -s bench-lowering``).

``TESSELA_BENCH_CLOCK=cpu`` times each batch in the worker's CPU time (every
thread of its process, XLA's included) instead of wall time: on a machine
shared with other work, whose load changes within a run, it counts what the
calls cost rather than how long the machine took to serve them.

``TESSELA_BENCH_PLATFORM`` (default ``cpu``) names the backend both sides
run on, e.g. ``cuda``: on an accelerator the table has one device column
(the accelerator's first device) instead of 1 and 8 CPU devices.

Rows:
  add2        ``f(a, b)``, two device arrays
  numpy       ``f(np_a, np_b)``, NumPy arguments
  scalar      ``f(a, 2.0)``, a Python scalar
  static      ``f(a, 3)`` with the second argument static
  kwarg       ``f(a, b=b)``, a keyword argument
  static_kw   ``f(a, n=3)`` with ``n`` a static argument name
  mixed       ``f(a, 0.5, np_b)``: an array, a Python scalar and a NumPy array
  committed   ``f(a_committed, b)``
  tree        ``step(params, np_batch)``, 24 parameter leaves
  donated     the same with ``params`` donated
  add10       ten array arguments
  eager_add   eager ``x + y``
  eager_sum   eager ``sum(x)``
  eager_np    eager ``add(np_a, np_b)``
  eager_scalar  eager ``x * 2.0``
  (the eager rows call the NumPy API on both sides: ``x + y``, ``sum``, ``add``)
  train       one step of a training loop: Adam written with the NumPy API over a
              24-leaf params pytree, its state donated, a NumPy batch and a Python
              scalar learning rate per step; batches of steps of one long loop,
              time per step
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

ROWS = [
    ("add2", "f(a, b) arrays"),
    ("numpy", "f(np_a, np_b)"),
    ("scalar", "f(a, 2.0)"),
    ("static", "static argument"),
    ("kwarg", "keyword argument"),
    ("static_kw", "static, by keyword"),
    ("mixed", "array, scalar, NumPy"),
    ("committed", "committed argument"),
    ("tree", "24-leaf tree + np"),
    ("donated", "same, donated"),
    ("add10", "ten arguments"),
    ("eager_add", "eager x + y"),
    ("eager_sum", "eager sum(x)"),
    ("eager_np", "eager add(np, np)"),
    ("eager_scalar", "eager x * 2.0"),
    ("train", "Adam loop, per step"),
]
NUMBER = 200  # calls per batch (a quarter of it for the rows of ~100 us)
SLOW_ROWS = ("tree", "donated", "train")
SHAPES = [(16, 16), (16,), (16, 8), (8,)] * 6  # 24 leaves
B1, B2, EPS = 0.9, 0.999, 1e-8


def _params(rng: np.random.Generator) -> dict[str, list[np.ndarray[Any, Any]]]:
    leaves = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    return {"w": leaves[0::2], "b": leaves[1::2]}


def _adam_step(np_mod: Any, tree_map: Callable[..., Any]) -> Callable[..., Any]:
    # One Adam step on the loss 0.5 * (mean(batch**2) + 1e-3) * |params|^2,
    # whose gradient is written out; the same code runs on Tessela and JAX.
    def step(state: Any, batch: Any, lr: float) -> Any:
        params, m, v, t = state["params"], state["m"], state["v"], state["t"]
        scale = np_mod.mean(batch * batch) + 1e-3
        grads = tree_map(lambda p: p * scale, params)
        t = t + 1
        m = tree_map(lambda m_, g: B1 * m_ + (1 - B1) * g, m, grads)
        v = tree_map(lambda v_, g: B2 * v_ + (1 - B2) * g * g, v, grads)
        c1 = 1 - B1**t
        c2 = 1 - B2**t
        params = tree_map(
            lambda p, m_, v_: p - lr * (m_ / c1) / (np_mod.sqrt(v_ / c2) + EPS), params, m, v
        )
        return {"params": params, "m": m, "v": v, "t": t}

    return step


class _Trainer:
    """One step of a long training loop per call; ``wait()`` blocks on the state."""

    def __init__(
        self, step: Callable[..., Any], state: Any, batches: list[Any], wait: Callable[[Any], Any]
    ) -> None:
        self.step, self.state, self.batches, self.block = step, state, batches, wait
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        batch = self.batches[self.count % len(self.batches)]
        self.state = self.step(self.state, batch, 1e-3)

    def wait(self) -> None:
        self.block(self.state)


def tessela_rows() -> dict[str, Callable[[], Any]]:
    """One call of each row, for Tessela (in this process)."""
    import tessela_lowering as tl
    import tessela_numpy as tnp
    from tessela_pytree import tree_leaves, tree_map
    from tessela_tracer import lax

    rng = np.random.default_rng(0)
    np_a = np.ones(3, np.float32)
    np_b = np.ones(3, np.float32)
    a, b = tl.device_put(np_a), tl.device_put(np_b)
    a_committed = tl.device_put(np_a, tl.devices()[0])
    f = tl.jit(lambda x, y: lax.add(x, y))
    f_static = tl.jit(lambda x, n: lax.mul(x, float(n)), static_argnums=1)
    f_static_kw = tl.jit(lambda x, n: lax.mul(x, float(n)), static_argnames="n")
    f3 = tl.jit(lambda x, s, y: lax.add(lax.mul(x, s), y))

    def total(*xs: Any) -> Any:
        acc = xs[0]
        for v in xs[1:]:
            acc = lax.add(acc, v)
        return acc

    f10 = tl.jit(total)
    xs = [tl.device_put(np.ones(3, np.float32)) for _ in range(10)]

    def step(params: Any, batch: Any) -> Any:
        s = lax.mul(lax.reduce_sum(batch, (0, 1)), 1e-6)
        return tree_map(lambda p: lax.sub(p, lax.mul(p, s)), params)

    f_step = tl.jit(step)
    f_donate = tl.jit(step, donate_argnums=0)
    batch = rng.standard_normal((8, 16)).astype(np.float32)
    params = tl.device_put(_params(rng))
    state = [tl.device_put(_params(rng))]

    def donated() -> None:
        state[0] = f_donate(state[0], batch)

    return {
        "add2": lambda: f(a, b),
        "numpy": lambda: f(np_a, np_b),
        "scalar": lambda: f(a, 2.0),
        "static": lambda: f_static(a, 3),
        "kwarg": lambda: f(a, y=b),
        "static_kw": lambda: f_static_kw(a, n=3),
        "mixed": lambda: f3(a, 0.5, np_b),
        "committed": lambda: f(a_committed, b),
        "tree": lambda: f_step(params, batch),
        "donated": donated,
        "add10": lambda: f10(*xs),
        # The NumPy API's calls, as JAX's rows make them (not lax's).
        "eager_add": lambda: a + b,
        "eager_sum": lambda: tnp.sum(a),
        "eager_np": lambda: tnp.add(np_a, np_b),
        "eager_scalar": lambda: a * 2.0,
        "train": _Trainer(
            tl.jit(_adam_step(tnp, tree_map), donate_argnums=0),
            tl.device_put(_adam_state(np.random.default_rng(1), np.float32)),
            _batches(),
            lambda s: [x.block_until_ready() for x in tree_leaves(s)],
        ),
    }


def _adam_state(rng: np.random.Generator, int_dtype: Any) -> dict[str, Any]:
    params = _params(rng)
    zeros = {k: [np.zeros_like(x) for x in v] for k, v in params.items()}
    return {"params": params, "m": zeros, "v": {k: list(v) for k, v in zeros.items()},
            "t": np.zeros((), int_dtype)}  # fmt: skip


def _batches() -> list[np.ndarray[Any, Any]]:
    rng = np.random.default_rng(2)
    return [rng.standard_normal((32, 16)).astype(np.float32) for _ in range(10)]


def jax_rows() -> dict[str, Callable[[], Any]]:
    """The same rows for JAX (in this process, which must not run Tessela)."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    np_a = np.ones(3, np.float32)
    np_b = np.ones(3, np.float32)
    a, b = jnp.asarray(np_a), jnp.asarray(np_b)
    a_committed = jax.device_put(np_a, jax.devices()[0])
    f = jax.jit(lambda x, y: x + y)
    f_static = jax.jit(lambda x, n: x * float(n), static_argnums=1)
    f_static_kw = jax.jit(lambda x, n: x * float(n), static_argnames="n")
    f3 = jax.jit(lambda x, s, y: x * s + y)

    def total(*xs: Any) -> Any:
        acc = xs[0]
        for v in xs[1:]:
            acc = acc + v
        return acc

    f10 = jax.jit(total)
    xs = [jnp.ones(3, np.float32) for _ in range(10)]

    def step(params: Any, batch: Any) -> Any:
        s = jnp.sum(batch) * 1e-6
        return jax.tree_util.tree_map(lambda p: p - p * s, params)

    f_step = jax.jit(step)
    f_donate = jax.jit(step, donate_argnums=0)
    batch = rng.standard_normal((8, 16)).astype(np.float32)
    params = jax.device_put(_params(rng))
    state = [jax.device_put(_params(rng))]

    def donated() -> None:
        state[0] = f_donate(state[0], batch)

    return {
        "add2": lambda: f(a, b),
        "numpy": lambda: f(np_a, np_b),
        "scalar": lambda: f(a, 2.0),
        "static": lambda: f_static(a, 3),
        "kwarg": lambda: f(a, y=b),
        "static_kw": lambda: f_static_kw(a, n=3),
        "mixed": lambda: f3(a, 0.5, np_b),
        "committed": lambda: f(a_committed, b),
        "tree": lambda: f_step(params, batch),
        "donated": donated,
        "add10": lambda: f10(*xs),
        "eager_add": lambda: a + b,
        "eager_sum": lambda: jnp.sum(a),
        "eager_np": lambda: jnp.add(np_a, np_b),
        "eager_scalar": lambda: a * 2.0,
        "train": _Trainer(
            jax.jit(_adam_step(jnp, jax.tree_util.tree_map), donate_argnums=0),
            jax.device_put(_adam_state(np.random.default_rng(1), np.int32)),
            _batches(),
            jax.block_until_ready,
        ),
    }


def _worker(which: str) -> None:
    # Serves "row number" lines: runs the row ``number`` times, prints us per call.
    rows = tessela_rows() if which == "tessela" else jax_rows()
    cpu = os.environ.get("TESSELA_BENCH_CLOCK", "wall") == "cpu"
    clock = time.process_time if cpu else timeit.default_timer
    for fn in rows.values():
        fn()
        fn()
    print("ready", flush=True)
    for line in sys.stdin:
        name, number = line.split()
        fn = rows[name]
        n = int(number)
        wait = getattr(fn, "wait", None)
        start = clock()
        for _ in range(n):
            fn()
        if wait is not None:  # the training loop: its steps have run
            wait()
        print((clock() - start) / n * 1e6, flush=True)


def _platform() -> str:
    return os.environ.get("TESSELA_BENCH_PLATFORM", "cpu")


def _start(python: str, which: str, devices: int) -> subprocess.Popen[str] | None:
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={devices}".strip()
    env.pop("TESSELA_NUM_CPU_DEVICES", None)
    env.pop("JAX_NUM_CPU_DEVICES", None)
    env.pop("TESSELA_PLATFORMS", None)
    env["JAX_PLATFORMS"] = _platform()
    proc = subprocess.Popen(
        [python, os.path.abspath(__file__), "--worker", which],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        proc.stdin.close()
        err = proc.stderr.read() if proc.stderr is not None else ""
        proc.wait()
        if which == "tessela":
            raise RuntimeError(err)
        return None
    return proc


def _batch(proc: subprocess.Popen[str], name: str, number: int) -> float:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{name} {number}\n")
    proc.stdin.flush()
    return float(proc.stdout.readline())


def _measure(
    jax_python: str, devices: int, batches: int
) -> tuple[dict[str, float], dict[str, float] | None]:
    """Best batch of each row for Tessela and JAX, alternating batch by batch."""
    ours = _start(sys.executable, "tessela", devices)
    theirs = _start(jax_python, "jax", devices)
    assert ours is not None
    best: dict[str, float] = {}
    best_jax: dict[str, float] = {}
    for key, _ in ROWS:
        number = NUMBER // 4 if key in SLOW_ROWS else NUMBER
        for _ in range(batches):
            best[key] = min(best.get(key, float("inf")), _batch(ours, key, number))
            if theirs is not None:
                t = _batch(theirs, key, number)
                best_jax[key] = min(best_jax.get(key, float("inf")), t)
    for proc in (ours, theirs):
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()
            proc.wait()
    return best, (best_jax if theirs is not None else None)


def main() -> None:
    """Print the table: best batches, Tessela and JAX alternating, 1 and 8 devices."""
    jax_python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    batches = int(os.environ.get("TESSELA_BENCH_BATCHES", "30"))
    counts = (1, 8) if _platform() == "cpu" else (1,)
    results = {devices: _measure(jax_python, devices, batches) for devices in counts}
    clock = os.environ.get("TESSELA_BENCH_CLOCK", "wall")
    header = f"{f'call (us per call, {clock})':<25}"
    for devices in results:
        header += f"{f'{devices} dev: tessela':>16}{'jax':>8}{'ratio':>7}"
    print(header)
    for key, label in ROWS:
        line = f"{label:<25}"
        for ours, theirs in results.values():
            ref = theirs[key] if theirs else float("nan")
            ratio = f"{ours[key] / ref:7.2f}" if theirs else "    n/a"
            line += f"{ours[key]:>16.1f}{ref:>8.1f}{ratio}"
        print(line)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(sys.argv[2])
    else:
        main()
