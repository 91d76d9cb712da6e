"""shard_map on 8 CPU devices: collectives, specs, jit, grad and vmap, one result per line.

Run with JAX 0.10.2 (``XLA_FLAGS=--xla_force_host_platform_device_count=8
python shard_map_cases.py jax > shard_map_cases.txt``) it writes the golden
output; ``tests/test_shard_map.py`` runs it with ``tessela`` on 8 devices and
compares line by line (numbers to 5 significant digits).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

if sys.argv[1] == "jax":
    import jax as tx
    import jax.numpy as tnp
    from jax.experimental.shard_map import shard_map as old_shard_map
    from jax.sharding import AxisType, Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P
else:
    import tessela as tx
    import tessela.numpy as tnp
    from tessela.experimental.shard_map import shard_map as old_shard_map
    from tessela.sharding import AxisType, Mesh, NamedSharding
    from tessela.sharding import PartitionSpec as P

lax = tx.lax
mesh = Mesh(np.array(tx.devices()[:8]).reshape(4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
data = np.arange(32, dtype=np.float32).reshape(8, 4) / 8


def show(name: str, value: Any, eager: bool = True) -> str:
    # Results of jit carry JAX's shardings only once jit partitions its programs.
    arr = np.asarray(value)
    spec = getattr(getattr(value, "sharding", None), "spec", None) if eager else "-"
    return f"{name}: {arr.shape} {spec} {np.round(arr.ravel()[:8], 4).tolist()}"


cases = {
    "psum x": (lambda a: lax.psum(a, "x"), P("x", "y"), P(None, "y")),
    "psum xy": (lambda a: lax.psum(a, ("x", "y")), P("x", "y"), P()),
    "pmean y": (lambda a: lax.pmean(a, "y"), P("x", "y"), P("x")),
    "pmax x": (lambda a: lax.pmax(a, "x"), P("x"), P()),
    "pmin y": (lambda a: lax.pmin(a, "y"), P(None, "y"), P()),
    "axis_index": (
        lambda a: a * 0 + lax.axis_index("x") * 10 + lax.axis_index("y"),
        P("x", "y"),
        P("x", "y"),
    ),
    "all_gather": (lambda a: lax.all_gather(a, "x"), P("x"), P(None, None, None)),
    "all_gather tiled": (lambda a: lax.all_gather(a, "y", axis=1, tiled=True), P("x", "y"), P("x")),
    "local sum": (lambda a: a.sum(0, keepdims=True), P("x"), P("x")),
    "transpose blocks": (lambda a: a.T, P("x", "y"), P("y", "x")),
    "ppermute": (
        lambda a: lax.ppermute(a, "x", [(0, 1), (1, 2), (2, 3), (3, 0)]),
        P("x", "y"),
        P("x", "y"),
    ),
    "ppermute partial": (lambda a: lax.ppermute(a, "y", [(0, 1)]), P("x", "y"), P("x", "y")),
    "psum_scatter tiled": (
        lambda a: lax.psum_scatter(a, "x", scatter_dimension=1, tiled=True),
        P("x"),
        P(None, "x"),
    ),
    "psum_scatter": (
        lambda a: lax.psum_scatter(a[:, :2], "y", scatter_dimension=1),
        P("x"),
        P(("x", "y")),
    ),
    "all_to_all tiled": (lambda a: lax.all_to_all(a, "x", 0, 1, tiled=True), P(None, "x"), P("x")),
    "all_to_all": (lambda a: lax.all_to_all(a[:, :2], "y", 1, 0), P("x"), P(None, ("x", "y"))),
    "pswapaxes": (lambda a: lax.pswapaxes(a[:2], "y", 0), P("x", "y"), P("x", "y")),
}
out: list[str] = []
for name, (f, i, o) in cases.items():
    g = tx.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, check_vma=False)
    out.append(show(name, g(data)))
    out.append(show(name + " jit", tx.jit(g)(data), eager=False))

g = tx.shard_map(lambda a, b: (a * b, lax.psum(b, "x")), mesh=mesh,
                 in_specs=(P("x"), P("x")), out_specs=(P("x"), P()))  # fmt: skip
a, b = g(data, data + 1)
out += [show("two args a", a), show("two args b", b)]

loss = tx.shard_map(lambda a: lax.psum((a * a).sum(), ("x", "y")), mesh=mesh,
                    in_specs=P("x", "y"), out_specs=P())  # fmt: skip
out.append(show("grad", tx.grad(loss)(data), eager=False))
out.append(show("jit grad", tx.jit(tx.grad(loss))(data), eager=False))
shift = tx.shard_map(lambda a: lax.ppermute(a * a, "x", [(0, 1), (1, 0), (2, 3), (3, 2)]),
                     mesh=mesh, in_specs=P("x"), out_specs=P("x"))  # fmt: skip
out.append(show("grad ppermute", tx.grad(lambda a: (shift(a) * data).sum())(data), eager=False))
scatter = tx.shard_map(lambda a: lax.psum_scatter(tnp.sin(a), "y", scatter_dimension=1,
                                                  tiled=True), mesh=mesh, in_specs=P("x"),
                       out_specs=P("x", "y"), check_vma=False)  # fmt: skip
out.append(show("grad psum_scatter", tx.grad(lambda a: (scatter(a) ** 2).sum())(data),
                eager=False))  # fmt: skip
swap = tx.shard_map(lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True), mesh=mesh,
                    in_specs=P("x"), out_specs=P(None, "x"))  # fmt: skip
out.append(show("grad all_to_all", tx.grad(lambda a: (swap(a) * swap(data)).sum())(data),
                eager=False))  # fmt: skip
mean = tx.shard_map(lambda a: lax.pmean(tnp.sin(a), "x"), mesh=mesh, in_specs=P("x"),
                    out_specs=P())  # fmt: skip
out.append(show("vmap", tx.vmap(mean)(np.stack([data, 2 * data])), eager=False))
out.append(show("grad of sum", tx.grad(lambda a: mean(a).sum())(data), eager=False))

old = old_shard_map(lambda a: lax.psum(a, "y"), mesh, in_specs=(P(None, "y"),), out_specs=P())
out.append(show("experimental", old(data)))
placed = tx.device_put(data, NamedSharding(mesh, P("x")))
out.append(show("placed input", tx.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x"),
                                             out_specs=P("x"))(placed)))  # fmt: skip


def error(thunk: Any) -> str:
    try:
        thunk()
    except Exception as e:
        return type(e).__name__
    return "no error"


out.append(error(lambda: tx.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"),
                                      out_specs=P("x"))(np.ones(6, np.float32))))  # fmt: skip
out.append(error(lambda: tx.shard_map(lambda a: a, mesh=mesh, in_specs=P("z"),
                                      out_specs=P("x"))(np.ones(8, np.float32))))  # fmt: skip
print("\n".join(out))
