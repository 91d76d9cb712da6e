"""Dispatch overhead: Tessela in this process, JAX in a subprocess (sys.executable).

Rows:
  eager x + y        a tiny elementwise add on concrete arrays
  executable call    running one cached compiled add (Tessela) vs. a jitted add (JAX)

Prints one table with a Tessela/JAX ratio column. JAX must be importable by
``sys.executable`` for the JAX column; without it the column reads "n/a".
"""

from __future__ import annotations

import textwrap
import timeit

import _jax_side
import numpy as np

N = 20000

JAX_CODE = textwrap.dedent(
    """
    import json, timeit
    N = __N__
    import jax, jax.numpy as jnp
    x = jnp.ones(3, jnp.float32); y = jnp.ones(3, jnp.float32)
    add = jax.jit(lambda a, b: a + b)
    add(x, y).block_until_ready(); (x + y).block_until_ready()
    def best(f):
        return min(timeit.repeat(f, number=N, repeat=5)) / N * 1e6
    print(json.dumps({"eager": best(lambda: x + y), "call": best(lambda: add(x, y))}))
    """
).replace("__N__", str(N))


def _best(fn: object) -> float:
    return min(timeit.repeat(fn, number=N, repeat=5)) / N * 1e6  # type: ignore[arg-type]


def tessela_times() -> dict[str, float]:
    """Microseconds per call for each row, measured in this process."""
    import tessela_lowering as tl
    from tessela_lowering import _dispatch, _xla
    from tessela_tracer import primitives as lax

    x = tl.device_put(np.ones(3, np.float32))
    y = tl.device_put(np.ones(3, np.float32))
    lax.add_p.bind(x, y).block_until_ready()
    key = next(k for k in _dispatch._cache if k[0] is lax.add_p)
    entry = _dispatch._cache[key]
    bufs = [x._buf, y._buf]
    return {
        "eager": _best(lambda: lax.add_p.bind(x, y)),
        "call": _best(lambda: _xla.execute(entry.executable, bufs, entry.handlers)),
    }


def jax_times() -> dict[str, float] | None:
    """The same rows for JAX, in a separate process; None when JAX is missing."""
    return _jax_side.jax_times(JAX_CODE)


def main() -> None:
    """Print the table."""
    ours = tessela_times()
    theirs = jax_times()
    print(f"{'benchmark':<20}{'tessela us':>12}{'jax us':>10}{'ratio':>8}")
    for row, label in (("eager", "eager x + y"), ("call", "executable call")):
        ref = theirs[row] if theirs else float("nan")
        ratio = f"{ours[row] / ref:8.2f}" if theirs else "     n/a"
        print(f"{label:<20}{ours[row]:>12.2f}{ref:>10.2f}{ratio}")


if __name__ == "__main__":
    main()
