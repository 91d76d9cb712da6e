"""``tessela_tracer.sharding``: the device-free sharding types an abstract value reports.

:class:`PartitionSpec`, :class:`AbstractMesh`, :class:`AxisType` and
:class:`NamedSharding` as ``jax.sharding`` has them; the lowering adds meshes
of real devices and placement on top of these same classes.
``ShapedArray.sharding`` is :func:`unsharded` of its rank. The mesh in
context (``concrete_mesh_var``, which the lowering's ``set_mesh`` sets, and
:func:`use_abstract_mesh`) is what bare ``PartitionSpec`` arguments of
:func:`with_sharding_constraint`, :func:`reshard` and ``jit``'s
``in_shardings``/``out_shardings`` refer to.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import ShapedArray
    >>> ShapedArray((3,), np.float32).sharding == NamedSharding(
    ...     AbstractMesh((), ()), PartitionSpec(None)
    ... )
    True
"""

from tessela_tracer._abstract_sharding import (
    AbstractDevice,
    AbstractMesh,
    AxisType,
    DuplicateSpecError,
    IndivisibleError,
    ManualAxisType,
    NamedSharding,
    PartitionSpec,
    unsharded,
)
from tessela_tracer._mesh_context import (
    check_seed_mesh,
    concrete_mesh_var,
    context_mesh,
    get_abstract_mesh,
    use_abstract_mesh,
)
from tessela_tracer._prims_sharding import (
    constraint_hooks,
    constraints_bound,
    reshard,
    with_sharding_constraint,
)

__all__ = [
    "AbstractDevice",
    "AbstractMesh",
    "AxisType",
    "DuplicateSpecError",
    "IndivisibleError",
    "ManualAxisType",
    "NamedSharding",
    "PartitionSpec",
    "check_seed_mesh",
    "concrete_mesh_var",
    "constraint_hooks",
    "constraints_bound",
    "context_mesh",
    "get_abstract_mesh",
    "reshard",
    "unsharded",
    "use_abstract_mesh",
    "with_sharding_constraint",
]
