"""``tessela_lowering.spmd``: programs over the devices of a mesh, for the packages above.

The pieces that ``tessela.shard_map`` and jit on sharded arguments build on:

- :class:`ShardedArray`: an array split over a mesh's devices.
- :func:`shard_map_call`: run a per-device program (a jaxpr traced on the
  blocks, with the mesh axes bound as named axes) over a mesh, lowered to an
  ``sdy.manual_computation``; its collectives become XLA collectives.
- :func:`shard_map_runner`: :func:`shard_map_call` bound to one layout of
  sharded arguments, for callers that key calls on their signatures.
- :func:`shard_map_text`: the module :func:`shard_map_call` compiles.
- :func:`local_aval` / :func:`global_aval`: a block's abstract value and back.
- :func:`run_jaxpr`: run a program on arguments of which some are sharded,
  partitioned by XLA (what jit does with sharded arguments).
- :func:`apply_sharded`: one primitive on sharded operands (the eager path).
- :func:`any_sharded`: whether a call's arguments include a sharded array.

Example:
    >>> import numpy as np
    >>> import tessela_lowering as tl
    >>> from tessela_lowering.sharding import Mesh, PartitionSpec
    >>> from tessela_tracer import ShapedArray
    >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
    >>> local_aval(ShapedArray((4,), np.float32), mesh, PartitionSpec("x"), "x")
    ShapedArray(float32[4])
"""

from __future__ import annotations

from tessela_lowering._shard_map import (
    global_aval,
    local_aval,
    manual_mesh,
    shard_map_call,
    shard_map_runner,
    shard_map_text,
)
from tessela_lowering._sharded import ShardedArray, any_sharded
from tessela_lowering._spmd import apply_sharded, compile_jaxpr, run_jaxpr

__all__ = [
    "ShardedArray",
    "any_sharded",
    "apply_sharded",
    "compile_jaxpr",
    "global_aval",
    "local_aval",
    "manual_mesh",
    "run_jaxpr",
    "shard_map_call",
    "shard_map_runner",
    "shard_map_text",
]
