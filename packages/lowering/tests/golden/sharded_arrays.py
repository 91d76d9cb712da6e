"""Sharded arrays on 8 CPU devices: placement, shards, values, eager ops, errors.

Run with JAX 0.10.2 (``XLA_FLAGS=--xla_force_host_platform_device_count=8
python sharded_arrays.py jax > sharded_arrays.txt``) it writes the golden
output; ``tests/test_multidevice.py`` runs it with ``tessela`` (8 devices) and
compares line by line.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from _outcome import error

if sys.argv[1] == "jax":
    import jax
    from jax import lax
    from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
    from jax.sharding import PartitionSpec as P

    devs = jax.devices()
    device_put = jax.device_put
    make_array_from_callback = jax.make_array_from_callback
    from_arrays = jax.make_array_from_single_device_arrays
    from_local = jax.make_array_from_process_local_data
else:
    import tessela_lowering as tl
    from tessela_lowering.sharding import (
        Mesh,
        NamedSharding,
        SingleDeviceSharding,
        make_array_from_callback,
        make_array_from_process_local_data,
        make_array_from_single_device_arrays,
    )
    from tessela_lowering.sharding import PartitionSpec as P
    from tessela_tracer import lax

    devs = tl.devices()
    device_put = tl.device_put
    from_arrays = make_array_from_single_device_arrays
    from_local = make_array_from_process_local_data


def describe(x: Any) -> list[str]:
    shards = [(s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist())
              for s in x.addressable_shards]  # fmt: skip
    return [
        repr(x.sharding),
        str((x.shape, x.dtype.name, x.is_fully_replicated, x.is_fully_addressable)),
        str(sorted(d.id for d in x.devices())),
        str(shards),
        str(np.asarray(x).tolist()),
    ]


out: list[str] = []
mesh = Mesh(np.array(devs[:8]).reshape(4, 2), ("x", "y"))
data = np.arange(32, dtype=np.float32).reshape(8, 4)
for spec in [
    P("x"),
    P("x", "y"),
    P(None, "y"),
    P(),
    P(("x", "y")),
    P("y", "x"),
    P(("y", "x"), None),
]:
    out.append(f"spec {spec}")
    out += describe(device_put(data, NamedSharding(mesh, spec)))

x = device_put(data, NamedSharding(mesh, P("x", "y")))
out += [repr(x), str(x)]
out.append(str(np.asarray(x.addressable_data(3)).tolist()))
out.append(str(sorted(d.id for d in x.addressable_data(3).sharding.device_set)))
out.append(str([(s.device.id, s.index) for s in x.global_shards]))

ops = {
    "add scalar": lambda a: lax.add(a, np.float32(1)),
    "sin": lax.sin,
    "sum 0": lambda a: lax.reduce_sum(a, (0,)),
    "sum 1": lambda a: lax.reduce_sum(a, (1,)),
    "max all": lambda a: lax.reduce_max(a, (0, 1)),
    "transpose": lambda a: lax.transpose(a, (1, 0)),
    "dot": lambda a: lax.dot(a, lax.transpose(a, (1, 0))),
    "slice": lambda a: lax.slice(a, (2, 0), (6, 4)),
    "reshape": lambda a: lax.reshape(a, (32,)),
    "add host": lambda a: lax.add(a, np.ones((8, 4), np.float32)),
    "mul self": lambda a: lax.mul(a, a),
}
for spec in [P("x"), P("x", "y"), P(None, "y")]:
    a = device_put(data, NamedSharding(mesh, spec))
    for name, op in ops.items():
        r = op(a)
        out.append(f"{spec} {name}: {r.sharding.spec} {np.asarray(r).ravel()[:6].tolist()}")

b = device_put(data, NamedSharding(mesh, P("x")))
c = device_put(data, NamedSharding(mesh, P(None, "y")))
r = lax.add(b, c)
out.append(f"mixed: {r.sharding.spec} {np.asarray(r).ravel()[:6].tolist()}")

single = device_put(data, SingleDeviceSharding(devs[3]))
out.append(repr(single.sharding.device_set))
out.append(str([(s.device.id, s.index, s.replica_id) for s in single.addressable_shards]))
out.append(str((single.is_fully_replicated, single.is_fully_addressable)))
back = device_put(x, SingleDeviceSharding(devs[1]))
out.append(f"{sorted(d.id for d in back.devices())} {np.asarray(back).sum()}")

cb = make_array_from_callback((8, 4), NamedSharding(mesh, P("x")), lambda index: data[index])
out += describe(cb)
parts = [device_put(data[2 * (i // 2) : 2 * (i // 2) + 2], d) for i, d in enumerate(devs[:8])]
out += describe(from_arrays((8, 4), NamedSharding(mesh, P("x")), parts))
out += describe(from_local(NamedSharding(mesh, P("y")), data))
out += describe(device_put(np.float32(2), NamedSharding(mesh, P())))

out.append(error(lambda: device_put(np.ones(6, np.float32), NamedSharding(mesh, P("x")))))
out.append(error(lambda: device_put(np.ones(4, np.float32), NamedSharding(mesh, P("z")))))
out.append(error(lambda: device_put(np.ones(4, np.float32), NamedSharding(mesh, P("x", "y")))))
out.append(
    error(lambda: make_array_from_callback((6,), NamedSharding(mesh, P("x")), lambda i: data))
)
print("\n".join(out))
