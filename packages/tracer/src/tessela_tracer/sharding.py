"""``tessela_tracer.sharding``: the device-free sharding types an abstract value reports.

:class:`PartitionSpec`, :class:`AbstractMesh`, :class:`AxisType` and
:class:`NamedSharding` as ``jax.sharding`` has them; the lowering adds meshes
of real devices and placement on top of these same classes.
``ShapedArray.sharding`` is :func:`unsharded` of its rank.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import ShapedArray
    >>> ShapedArray((3,), np.float32).sharding == NamedSharding(
    ...     AbstractMesh((), ()), PartitionSpec(None)
    ... )
    True
"""

from tessela_tracer._abstract_sharding import (
    AbstractMesh,
    AxisType,
    DuplicateSpecError,
    IndivisibleError,
    NamedSharding,
    PartitionSpec,
    unsharded,
)

__all__ = [
    "AbstractMesh",
    "AxisType",
    "DuplicateSpecError",
    "IndivisibleError",
    "NamedSharding",
    "PartitionSpec",
    "unsharded",
]
