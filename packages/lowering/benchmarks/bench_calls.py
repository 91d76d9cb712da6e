"""Per-call cost of ``jit`` and eager operations for every common call shape.

Each row is measured for Tessela and for JAX, each in a fresh process, on 1
CPU device and on 8 (``--xla_force_host_platform_device_count=8``), and printed
as microseconds per call with the Tessela/JAX ratio. JAX runs under
``TESSELA_BENCH_JAX_PYTHON`` (default: this interpreter); without JAX the JAX
columns read "n/a". Run it as ``python bench_calls.py`` (``nox -s bench``).

Rows:
  add2        ``f(a, b)``, two device arrays
  numpy       ``f(np_a, np_b)``, NumPy arguments
  scalar      ``f(a, 2.0)``, a Python scalar
  static      ``f(a, 3)`` with the second argument static
  kwarg       ``f(a, b=b)``, a keyword argument
  committed   ``f(a_committed, b)``
  tree        ``step(params, np_batch)``, 24 parameter leaves
  donated     the same with ``params`` donated
  add10       ten array arguments
  eager_add   eager ``x + y``
  eager_sum   eager ``sum(x)``
  eager_np    eager ``add(np_a, np_b)``
  train       one step of a training loop: Adam written with the NumPy API over a
              24-leaf params pytree, its state donated, a NumPy batch and a Python
              scalar learning rate per step; 1,000 steps, time per step
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    ("committed", "committed argument"),
    ("tree", "24-leaf tree + np"),
    ("donated", "same, donated"),
    ("add10", "ten arguments"),
    ("eager_add", "eager x + y"),
    ("eager_sum", "eager sum(x)"),
    ("eager_np", "eager add(np, np)"),
    ("train", "Adam loop, per step"),
]
NUMBER = 2000
REPEAT = 5
SHAPES = [(16, 16), (16,), (16, 8), (8,)] * 6  # 24 leaves
STEPS = 1000
B1, B2, EPS = 0.9, 0.999, 1e-8


def _best(fn: Callable[[], Any], number: int = NUMBER) -> float:
    fn()
    fn()
    return min(timeit.repeat(fn, number=number, repeat=REPEAT)) / number * 1e6


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


def _train(step: Callable[..., Any], state: Any, batches: list[Any], wait: Any) -> float:
    # Microseconds per step of a 1,000-step loop (best of three loops).
    best = float("inf")
    for _ in range(3):
        current = state()
        start = timeit.default_timer()
        for i in range(STEPS):
            current = step(current, batches[i % len(batches)], 1e-3)
        wait(current)
        best = min(best, (timeit.default_timer() - start) / STEPS * 1e6)
    return best


def tessela_rows() -> dict[str, float]:
    """Microseconds per call for each row, for Tessela (in this process)."""
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
        "add2": _best(lambda: f(a, b)),
        "numpy": _best(lambda: f(np_a, np_b)),
        "scalar": _best(lambda: f(a, 2.0)),
        "static": _best(lambda: f_static(a, 3)),
        "kwarg": _best(lambda: f(a, y=b)),
        "committed": _best(lambda: f(a_committed, b)),
        "tree": _best(lambda: f_step(params, batch), NUMBER // 4),
        "donated": _best(donated, NUMBER // 4),
        "add10": _best(lambda: f10(*xs)),
        "eager_add": _best(lambda: lax.add(a, b)),
        "eager_sum": _best(lambda: lax.reduce_sum(a, (0,))),
        "eager_np": _best(lambda: lax.add(np_a, np_b)),
        "train": _train(
            tl.jit(_adam_step(tnp, tree_map), donate_argnums=0),
            lambda: tl.device_put(_adam_state(np.random.default_rng(1), np.float32)),
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


def jax_rows() -> dict[str, float]:
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
        "add2": _best(lambda: f(a, b)),
        "numpy": _best(lambda: f(np_a, np_b)),
        "scalar": _best(lambda: f(a, 2.0)),
        "static": _best(lambda: f_static(a, 3)),
        "kwarg": _best(lambda: f(a, y=b)),
        "committed": _best(lambda: f(a_committed, b)),
        "tree": _best(lambda: f_step(params, batch), NUMBER // 4),
        "donated": _best(donated, NUMBER // 4),
        "add10": _best(lambda: f10(*xs)),
        "eager_add": _best(lambda: a + b),
        "eager_sum": _best(lambda: jnp.sum(a)),
        "eager_np": _best(lambda: jnp.add(np_a, np_b)),
        "train": _train(
            jax.jit(_adam_step(jnp, jax.tree_util.tree_map), donate_argnums=0),
            lambda: jax.device_put(_adam_state(np.random.default_rng(1), np.int32)),
            _batches(),
            jax.block_until_ready,
        ),
    }


def _measure(python: str, which: str, devices: int) -> dict[str, float] | None:
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={devices}".strip()
    env.pop("TESSELA_NUM_CPU_DEVICES", None)
    env.pop("JAX_NUM_CPU_DEVICES", None)
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run(
        [python, os.path.abspath(__file__), "--worker", which],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    if proc.returncode != 0:
        if which == "tessela":
            raise RuntimeError(proc.stderr)
        return None
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _merge(best: dict[str, float] | None, new: dict[str, float] | None) -> dict[str, float] | None:
    if best is None or new is None:
        return new if best is None else best
    return {k: min(best[k], new[k]) for k in best}


def main() -> None:
    """Print the table: best of alternating rounds, 1 and 8 devices."""
    jax_python = os.environ.get("TESSELA_BENCH_JAX_PYTHON", sys.executable)
    rounds = int(os.environ.get("TESSELA_BENCH_ROUNDS", "3"))
    results: dict[int, tuple[dict[str, float], dict[str, float] | None]] = {}
    for devices in (1, 8):
        ours: dict[str, float] | None = None
        theirs: dict[str, float] | None = None
        for _ in range(rounds):
            theirs = _merge(theirs, _measure(jax_python, "jax", devices))
            ours = _merge(ours, _measure(sys.executable, "tessela", devices))
        assert ours is not None
        results[devices] = (ours, theirs)
    header = f"{'call (us per call)':<22}"
    for devices in results:
        header += f"{f'{devices} dev: tessela':>16}{'jax':>8}{'ratio':>7}"
    print(header)
    for key, label in ROWS:
        line = f"{label:<22}"
        for ours, theirs in results.values():
            ref = theirs[key] if theirs else float("nan")
            ratio = f"{ours[key] / ref:7.2f}" if theirs else "    n/a"
            line += f"{ours[key]:>16.1f}{ref:>8.1f}{ratio}"
        print(line)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        rows = tessela_rows() if sys.argv[2] == "tessela" else jax_rows()
        print(json.dumps(rows))
    else:
        main()
