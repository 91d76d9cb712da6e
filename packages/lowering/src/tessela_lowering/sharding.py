"""``tessela_lowering.sharding``: how arrays are laid out over devices, as ``jax.sharding``.

A :class:`Mesh` arranges devices in an n-dimensional grid with named axes; a
:class:`PartitionSpec` says, per array dimension, which mesh axes split it; a
:class:`NamedSharding` pairs the two. ``device_put(x, NamedSharding(...))``
splits an array over the mesh's devices (a sharded array, whose
``addressable_shards`` are the parts); operations on sharded arrays are
partitioned by XLA and their results carry the shardings JAX reports.
:func:`reshard` moves arrays over meshes whose axes are ``Explicit`` (eagerly,
or as a sharding constraint under ``jit``); :func:`use_abstract_mesh` sets the
abstract mesh that bare ``PartitionSpec`` arguments refer to.

Example:
    >>> import numpy as np
    >>> import tessela_lowering as tl
    >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(tl.devices()), ("x",))
    >>> NamedSharding(mesh, P("x")).shard_shape((4, 2))[1]
    2
"""

from __future__ import annotations

from tessela_tracer.sharding import AbstractDevice, ManualAxisType, reshard, use_abstract_mesh

from tessela_lowering import _spmd  # noqa: F401  (installs the eager path of sharded arrays)
from tessela_lowering._array import Shard, SingleDeviceSharding
from tessela_lowering._mesh import (
    AbstractMesh,
    AxisType,
    DuplicateSpecError,
    IndivisibleError,
    Mesh,
    NamedSharding,
    PartitionSpec,
    Sharding,
    get_abstract_mesh,
    get_mesh,
    make_mesh,
    set_mesh,
)
from tessela_lowering._sharded import (
    make_array_from_callback,
    make_array_from_process_local_data,
    make_array_from_single_device_arrays,
)
from tessela_lowering._sharding_api import (
    auto_axes,
    explicit_axes,
    make_single_device_sharding,
)
from tessela_lowering._xla._shards import DeviceClass as Device

__all__ = [
    "AbstractDevice",
    "AbstractMesh",
    "AxisType",
    "Device",
    "DuplicateSpecError",
    "IndivisibleError",
    "ManualAxisType",
    "Mesh",
    "NamedSharding",
    "PartitionSpec",
    "Shard",
    "Sharding",
    "SingleDeviceSharding",
    "auto_axes",
    "explicit_axes",
    "get_abstract_mesh",
    "get_mesh",
    "make_array_from_callback",
    "make_array_from_process_local_data",
    "make_array_from_single_device_arrays",
    "make_mesh",
    "make_single_device_sharding",
    "reshard",
    "set_mesh",
    "use_abstract_mesh",
]
