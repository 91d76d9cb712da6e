"""The sharding annotations and collectives of shard_map modules, as JAX 0.10.2 emits them.

Run with JAX 0.10.2 (``XLA_FLAGS=--xla_force_host_platform_device_count=8
python shard_map_lowering.py jax > shard_map_lowering.txt``) it prints, for
each case, the lines of ``jit(shard_map(f)).lower(x).as_text()`` that carry
the manual computation's shardings and the collectives; ``tests/test_multidevice.py`` runs it
with ``tessela`` (8 devices), printing the same lines of
``tessela_lowering.spmd.shard_map_text``, and compares.
"""

from __future__ import annotations

import contextlib
import re
import sys
from typing import Any

import numpy as np

# The entry's own argument shardings are left out: JAX writes them only for
# committed arguments, which ``lower`` on a NumPy value does not have.
KEEP = re.compile(r"sdy\.manual_computation.*|"
                  r"\"stablehlo\.(all_\w+|collective_permute|reduce_scatter)\".*|"
                  r"stablehlo\.(partition_id|divide|remainder) .*")  # fmt: skip

if sys.argv[1] == "jax":
    import jax
    from jax import lax
    from jax.sharding import AxisType, Mesh
    from jax.sharding import PartitionSpec as P

    devs = jax.devices()

    def module(f: Any, mesh: Any, in_spec: Any, out_spec: Any, x: np.ndarray) -> str:
        g = jax.shard_map(f, mesh=mesh, in_specs=in_spec, out_specs=out_spec, check_vma=False)
        return jax.jit(g).lower(x).as_text()

else:
    import tessela_lowering as tl
    from tessela_lowering.sharding import AxisType, Mesh
    from tessela_lowering.sharding import PartitionSpec as P
    from tessela_lowering.spmd import local_aval, shard_map_text
    from tessela_tracer import ShapedArray, lax, trace_to_jaxpr
    from tessela_tracer.extend import axis_frame

    devs = tl.devices()

    def module(f: Any, mesh: Any, in_spec: Any, out_spec: Any, x: np.ndarray) -> str:
        aval = ShapedArray(x.shape, x.dtype)
        with contextlib.ExitStack() as stack:
            for name, size in mesh.shape.items():
                stack.enter_context(axis_frame(name, size))
            body = trace_to_jaxpr(lambda a: [f(a)], [local_aval(aval, mesh, in_spec, "x")])
        return shard_map_text(body, mesh, [in_spec], [out_spec], [aval])


mesh = Mesh(np.array(devs[:8]).reshape(4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
x = np.zeros((8, 4), np.float32)
cases = {
    "psum x": (lambda a: lax.psum(a, "x"), P("x", "y"), P(None, "y")),
    "pmax xy": (lambda a: lax.pmax(a, ("x", "y")), P("x", "y"), P()),
    "pmin y": (lambda a: lax.pmin(a, "y"), P(None, "y"), P()),
    "all_gather y": (lambda a: lax.all_gather(a, "y", axis=1, tiled=True), P("x", "y"), P("x")),
    "axis_index x": (
        lambda a: lax.add(a, lax.convert_element_type(lax.axis_index("x"), np.float32)),
        P("x"),
        P("x"),
    ),
    "replicated": (lambda a: lax.mul(a, np.float32(2)), P(), P()),
    "ppermute x": (
        lambda a: lax.ppermute(a, "x", [(0, 1), (1, 2), (2, 3), (3, 0)]),
        P("x"),
        P("x"),
    ),
    "psum_scatter y": (
        lambda a: lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
        P("x"),
        P("x", "y"),
    ),
    "all_to_all x": (lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True), P("x"), P(None, "x")),
}
for name, (f, i, o) in cases.items():
    print(f"# {name}")
    for line in module(f, mesh, i, o, x).splitlines():
        for match in KEEP.finditer(line):
            text = re.sub(r"%[\w#]+", "%v", match.group(0))
            print(re.sub(r"handle = \d+", "handle = N", text))
