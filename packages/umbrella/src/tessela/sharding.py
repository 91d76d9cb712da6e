"""``tessela.sharding``: ``jax.sharding``'s meshes, partition specs and shardings.

They come from :mod:`tessela_lowering.sharding`, which owns devices and
placement. Their queries follow JAX 0.10.2; ``device_put(x, NamedSharding(...))``
splits an array over a mesh's devices, and operations on sharded arrays are
partitioned by XLA with the result shardings JAX reports.

Example:
    >>> from tessela.sharding import PartitionSpec as P
    >>> P("data", None)
    P('data', None)
"""

from tessela_lowering.sharding import *  # noqa: F403
from tessela_lowering.sharding import __all__ as __all__
