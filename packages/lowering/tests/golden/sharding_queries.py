"""Queries of meshes, partition specs and named shardings, printed one per line.

Run with JAX 0.10.2 (``python sharding_queries.py jax``, with 4 CPU devices:
``XLA_FLAGS=--xla_force_host_platform_device_count=4``) it writes the golden
output ``sharding_queries.txt``; ``tests/test_sharding.py`` runs it with
``tessela`` in a subprocess and compares line by line.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from _outcome import error

if sys.argv[1] == "jax":
    import jax
    from jax.sharding import AbstractMesh, Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    devs = jax.devices()
    make_mesh = jax.make_mesh
else:
    import tessela_lowering as tl
    from tessela_lowering.sharding import AbstractMesh, Mesh, NamedSharding, make_mesh
    from tessela_lowering.sharding import PartitionSpec as P

    devs = tl.devices()


def by_id(mapping: Any) -> list[Any]:
    return sorted((d.id, v) for d, v in mapping.items())


m = Mesh(np.array(devs[:4]).reshape(2, 2), ("x", "y"))
out = [repr(m), str(m), str(m.shape), str(m.device_ids.tolist())]
for spec in [P("x"), P(("x", "y"), None), P(None, "y"), P(), P("y", "x")]:
    s = NamedSharding(m, spec)
    facts = (s.is_fully_replicated, s.num_devices, s.shard_shape((4, 6)), sorted(s.replicated_axes))
    out += [repr(s), str(facts), str(by_id(s.devices_indices_map((4, 6))))]
out.append(error(lambda: NamedSharding(m, P("z"))))
out.append(error(lambda: NamedSharding(m, P("x", "x"))))
out.append(error(lambda: NamedSharding(m, P("x")).shard_shape((3, 6))))
out += [repr(P("x", None, ("a", "b"))), repr(P()), repr(P(("x",)))]
out.append(str((P("x") == P("x", None), P(("x",)) == P("x"), P("x") == ("x",))))
out.append(repr(P("x", unreduced={"y"})))
out += [repr(make_mesh((2, 2), ("a", "b"))), repr(AbstractMesh((2, 2), ("x", "y")))]
out.append(str(NamedSharding(m, P("x")) == NamedSharding(m, P("x", None))))
print("\n".join(out))
