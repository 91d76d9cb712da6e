"""``tessela.experimental.shard_map``: ``shard_map(f, mesh, in_specs, out_specs, check_rep=True)``.

JAX 0.10.2 keeps this older, positional form beside ``jax.shard_map``.

Example:
    >>> import numpy as np
    >>> import tessela as tx
    >>> from tessela.experimental.shard_map import shard_map
    >>> from tessela.sharding import PartitionSpec as P
    >>> mesh = tx.make_mesh((1,), ("x",))
    >>> shard_map(lambda b: b + 1, mesh, P("x"), P("x"))(np.zeros(2, np.float32))
    Array([1., 1.], dtype=float32)
"""

from tessela._shard_map import _experimental_shard_map as shard_map

__all__ = ["shard_map"]
