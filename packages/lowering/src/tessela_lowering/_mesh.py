"""Meshes of devices and the current mesh: the device half of ``tessela_lowering.sharding``.

A :class:`Mesh` arranges devices in an n-dimensional grid with named axes; a
:class:`PartitionSpec` says, per array dimension, which mesh axes split it; a
:class:`NamedSharding` pairs the two. The spec, the abstract mesh and the named
sharding are ``tessela_tracer.sharding``'s own classes (abstract values report
them too); over a ``Mesh`` the sharding's device queries (``device_set``,
``devices_indices_map``) read its devices. Queries, equality and printing
follow JAX 0.10.2.

Example:
    >>> import numpy as np
    >>> import tessela_lowering as tl
    >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
    >>> NamedSharding(mesh, PartitionSpec("x")).shard_shape((4, 2))
    (4, 2)
"""

from __future__ import annotations

import abc
import contextlib
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np
import numpy.typing as npt
from tessela_tracer import ClosedJaxpr, ShapedArray
from tessela_tracer import primitives as P
from tessela_tracer.sharding import (
    AbstractMesh,
    AxisType,
    DuplicateSpecError,
    IndivisibleError,
    NamedSharding,
    PartitionSpec,
    concrete_mesh_var,
)
from tessela_tracer.sharding import get_abstract_mesh as _abstract_in_context

from tessela_lowering._array import SingleDeviceSharding
from tessela_lowering._devices import devices as _all_devices
from tessela_lowering._xla import Device

__all__ = [
    "AbstractMesh",
    "AxisType",
    "DuplicateSpecError",
    "IndivisibleError",
    "Mesh",
    "NamedSharding",
    "PartitionSpec",
    "Sharding",
    "SingleDeviceSharding",
    "constrained_out_specs",
    "get_abstract_mesh",
    "get_mesh",
    "make_mesh",
    "mesh_in_context",
    "on_context_mesh",
    "same_axes",
    "same_layout",
    "set_mesh",
    "typed_out_shardings",
    "typed_spec",
]


# The tracer's context variable: bare PartitionSpecs (jit's shardings,
# with_sharding_constraint, reshard) are resolved against the mesh set here.
_current_mesh: ContextVar[Mesh | None] = concrete_mesh_var


class Mesh:
    """Devices in an n-dimensional grid whose axes have names.

    Args:
      devices: an array (or nested sequence) of devices, one dimension per axis.
      axis_names: the name of each axis.
      axis_types: the type of each axis (``AxisType.Auto`` by default).

    Raises:
      ValueError: the number of names is not the number of dimensions of ``devices``.

    Example:
        >>> import numpy as np
        >>> import tessela_lowering as tl
        >>> Mesh(np.array(tl.devices()[:1]), ("x",))
        Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Auto,))
    """

    __slots__ = ("_key_cache", "_token", "axis_names", "axis_types", "devices")

    def __init__(
        self,
        devices: np.ndarray[Any, Any] | Sequence[Any],
        axis_names: Sequence[Hashable] | Hashable,
        axis_types: Sequence[AxisType] | AxisType | None = None,
    ) -> None:
        grid = np.array(devices, dtype=object)
        names = tuple(axis_names) if isinstance(axis_names, (tuple, list)) else (axis_names,)
        if grid.ndim != len(names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                f"of its second argument (`axis_names`), but got devices.ndim == {grid.ndim} "
                f"and len(axis_names) == {len(names)}."
            )
        if len(set(names)) != len(names):
            raise ValueError(f"Mesh axis names must be unique, got {names!r}")
        self.devices = grid
        self.axis_names = names
        self.axis_types = AbstractMesh(grid.shape, names, axis_types).axis_types
        self._token: list[Any] = []
        self._key_cache: tuple[Any, ...] | None = None

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        """The size of each axis."""
        return tuple(map(int, self.devices.shape))

    @property
    def shape(self) -> OrderedDict[Hashable, int]:
        """Axis name to size, in order."""
        return OrderedDict(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def shape_tuple(self) -> tuple[tuple[Hashable, int], ...]:
        """``(name, size)`` pairs, in order."""
        return tuple(self.shape.items())

    @property
    def size(self) -> int:
        """The number of devices."""
        return 0 if self.empty else int(self.devices.size)

    @property
    def empty(self) -> bool:
        """Whether the mesh has no axes (the mesh in effect when none is set)."""
        return not self.axis_names

    @property
    def device_ids(self) -> npt.NDArray[np.int64]:
        """The ids of the devices, in the mesh's shape."""
        ids = np.array([d.id for d in self.devices.flat], dtype=np.int64)
        return ids.reshape(self.devices.shape)

    @property
    def local_devices(self) -> list[Device]:
        """The devices of this process, in mesh order."""
        return [d for d in self.devices.flat if _is_local(d)]

    @property
    def is_multi_process(self) -> bool:
        """Whether the devices span several processes."""
        return len({getattr(d, "process_index", 0) for d in self.devices.flat}) > 1

    @property
    def abstract_mesh(self) -> AbstractMesh:
        """The mesh's axes without its devices."""
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types)

    def _key(self) -> tuple[Any, ...]:
        # Computed once: a mesh's devices, names and types do not change, and
        # sharded dispatch compares and hashes meshes on every call.
        key = self._key_cache
        if key is None:
            key = (tuple(self.device_ids.flat), self.axis_sizes, self.axis_names, self.axis_types)
            self._key_cache = key
        return key

    def __eq__(self, other: object) -> bool:
        return other is self or (isinstance(other, Mesh) and other._key() == self._key())

    def __hash__(self) -> int:
        return hash(self._key())

    def __enter__(self) -> Mesh:
        self._token.append(_current_mesh.set(self))
        return self

    def __exit__(self, *exc: object) -> None:
        _current_mesh.reset(self._token.pop())

    def __repr__(self) -> str:
        if self.empty:
            return "Mesh()"
        return (
            f"Mesh(axis_sizes={self.axis_sizes!r}, axis_names={self.axis_names!r}, "
            f"axis_types={self.axis_types!r})"
        )

    def __str__(self) -> str:
        if self.empty:
            return "Mesh()"
        return "Mesh" + repr(self.abstract_mesh).removeprefix("AbstractMesh")


def _is_local(device: Device) -> bool:
    # A device of this process (objects that are not jaxlib devices count as local).
    client = getattr(device, "client", None)
    return client is None or device.process_index == client.process_index()


class Sharding(abc.ABC):
    """How an array is laid out over devices (the base of every sharding).

    Example:
        >>> import tessela_lowering as tl
        >>> isinstance(tl.device_put(1.0).sharding, Sharding)
        True
    """

    @property
    @abc.abstractmethod
    def device_set(self) -> set[Device]:
        """The devices that hold a part of the array."""


Sharding.register(SingleDeviceSharding)
Sharding.register(NamedSharding)


def make_mesh(
    axis_shapes: Sequence[int],
    axis_names: Sequence[Hashable],
    axis_types: Sequence[AxisType] | None = None,
    *,
    devices: Sequence[Device] | None = None,
) -> Mesh:
    """A mesh of the first ``prod(axis_shapes)`` devices, axes of type ``Explicit`` by default.

    Args:
      axis_shapes: the size of each axis.
      axis_names: the name of each axis.
      axis_types: the type of each axis (``AxisType.Explicit`` by default, as JAX).
      devices: the devices to use (default: every device).

    Returns:
      The mesh.

    Raises:
      ValueError: more devices are asked for than there are.

    Example:
        >>> make_mesh((1,), ("x",))
        Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Explicit,))
    """
    pool = list(_all_devices() if devices is None else devices)
    n = math.prod(int(s) for s in axis_shapes)
    if n > len(pool):
        raise ValueError(
            f"make_mesh{tuple(axis_shapes)!r} needs {n} devices, but there are {len(pool)}; "
            "choose axis sizes whose product is at most the device count."
        )
    return Mesh(
        np.array(pool[:n], dtype=object).reshape(tuple(int(s) for s in axis_shapes)),
        tuple(axis_names),
        AxisType.Explicit if axis_types is None else axis_types,
    )


class _MeshContext:
    """The current mesh is ``mesh`` from now on, and again the previous one after ``with``."""

    def __init__(self, mesh: Mesh) -> None:
        self._token = _current_mesh.set(mesh)
        self.mesh = mesh

    def __enter__(self) -> Mesh:
        return self.mesh

    def __exit__(self, *exc: object) -> None:
        _current_mesh.reset(self._token)


def set_mesh(mesh: Mesh, /) -> contextlib.AbstractContextManager[Mesh]:
    """Make ``mesh`` the current mesh; as a ``with`` block, only inside it.

    Args:
      mesh: the mesh.

    Returns:
      A context manager that restores the previous mesh on exit.

    Example:
        >>> mesh = make_mesh((1,), ("x",))
        >>> with set_mesh(mesh):
        ...     get_mesh() is mesh
        True
        >>> get_mesh()
        Mesh()
    """
    if not isinstance(mesh, Mesh):
        raise TypeError(f"set_mesh takes a Mesh, got {mesh!r}; build one with make_mesh(...)")
    return _MeshContext(mesh)


def get_mesh() -> Mesh:
    """The current mesh (``Mesh()``, empty, when none is set).

    Returns:
      The mesh.
    """
    mesh = _current_mesh.get()
    return mesh if mesh is not None else Mesh(np.empty((), dtype=object), ())


def get_abstract_mesh() -> AbstractMesh:
    """The axes of the current mesh (empty when none is set).

    Returns:
      The abstract mesh: ``use_abstract_mesh``'s when one is in effect, else
      the current mesh's.
    """
    return _abstract_in_context()


def typed_spec(spec: PartitionSpec, ndim: int) -> PartitionSpec:
    """``spec`` with one entry per dimension of a rank-``ndim`` array (``None`` appended).

    Args:
      spec: a partition spec with at most ``ndim`` entries.
      ndim: the array's rank.

    Returns:
      The padded spec.

    Example:
      >>> typed_spec(PartitionSpec("x"), 2)
      P('x', None)
      >>> typed_spec(PartitionSpec(), 0)
      P()
    """
    if len(spec) >= ndim:
        return spec
    return PartitionSpec(*spec, *([None] * (ndim - len(spec))))


def same_axes(mesh: Mesh | AbstractMesh, other: Mesh | AbstractMesh) -> bool:
    """Whether two meshes have the same axis names and sizes (their axis types may differ).

    Args:
      mesh: a mesh (concrete or abstract).
      other: another.

    Returns:
      ``True`` when names and sizes agree.

    Example:
      >>> same_axes(AbstractMesh((2,), ("x",)), AbstractMesh((2,), ("x",), (AxisType.Explicit,)))
      True
    """
    return bool(mesh.axis_names == other.axis_names and mesh.axis_sizes == other.axis_sizes)


def mesh_in_context(abstract: AbstractMesh) -> Mesh | None:
    """The mesh of devices set in context (``set_mesh``) when it has ``abstract``'s axes.

    Args:
      abstract: the abstract mesh a sharding is over.

    Returns:
      The context's mesh when its axis names and sizes are ``abstract``'s
      (see :func:`same_axes`), else ``None``.

    Example:
      >>> mesh_in_context(AbstractMesh((1,), ("x",))) is None  # no mesh set
      True
    """
    mesh = _current_mesh.get()
    if mesh is None or not same_axes(mesh, abstract):
        return None
    return mesh


def on_context_mesh(
    sharding: object, missing: Callable[[object], str], *, keep_axis_types: bool = False
) -> object:
    """``sharding`` over the mesh in context, when it is a NamedSharding over an abstract mesh.

    Args:
      sharding: a sharding (returned as it is unless over an abstract mesh).
      missing: makes the ``ValueError``'s message from ``sharding`` when no mesh
        with its axes is set (:func:`mesh_in_context`).
      keep_axis_types: whether the result's mesh takes the abstract mesh's axis
        types (as JAX's eager values report them).

    Returns:
      The sharding, over the concrete mesh in context where it was abstract.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> abstract = NamedSharding(AbstractMesh((1,), ("x",)), PartitionSpec("x"))
      >>> with set_mesh(Mesh(np.array(tl.devices()[:1]), ("x",))):
      ...     on_context_mesh(abstract, repr).mesh.devices.shape
      (1,)
    """
    if isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, AbstractMesh):
        mesh = mesh_in_context(sharding.mesh)
        if mesh is None:
            raise ValueError(missing(sharding))
        if keep_axis_types and mesh.axis_types != sharding.mesh.axis_types:
            mesh = Mesh(mesh.devices, mesh.axis_names, sharding.mesh.axis_types)
        return NamedSharding(mesh, sharding.spec)
    return sharding


def same_layout(a: object, b: object, ndim: int) -> bool:
    """Whether two named shardings over meshes of the same devices split a rank-``ndim`` array alike.

    Args:
      a: a sharding (``False`` unless a ``NamedSharding`` over a ``Mesh``).
      b: another.
      ndim: the array's rank.

    Returns:
      ``True`` when the devices are the same, in the same order, and every
      dimension is split over the same axes (mesh axis types are not compared).

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> devs = np.array(tl.devices()[:1])
      >>> a = NamedSharding(Mesh(devs, ("x",)), PartitionSpec("x"))
      >>> b = NamedSharding(Mesh(devs, ("x",), AxisType.Explicit), PartitionSpec("x", None))
      >>> same_layout(a, b, 2)
      True
    """
    if not (isinstance(a, NamedSharding) and isinstance(b, NamedSharding)):
        return False
    ma, mb = a.mesh, b.mesh
    if not (isinstance(ma, Mesh) and isinstance(mb, Mesh) and same_axes(ma, mb)):
        return False
    if a.memory_kind != b.memory_kind or ma.device_ids.tolist() != mb.device_ids.tolist():
        return False
    return all(a.spec.axes_of(d) == b.spec.axes_of(d) for d in range(ndim)) and (
        len(a.spec) <= ndim and len(b.spec) <= ndim
    )


def constrained_out_specs(closed: ClosedJaxpr) -> list[PartitionSpec | None]:
    """Per output of ``closed``, the spec of the sharding constraint that produces it (else ``None``).

    An output made by ``sharding_constraint`` (a ``reshard``, a nested jit's
    ``out_shardings``, or their transposes) has exactly that sharding in its
    type, as JAX reports it; through nested ``jit_p`` equations too.

    Args:
      closed: the program.

    Returns:
      One spec or ``None`` per output.

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import make_jaxpr
      >>> constrained_out_specs(make_jaxpr(lambda a: a + 1)(np.ones(2)))
      [None]
    """
    made: dict[Any, tuple[Any, int]] = {}
    for eqn in closed.jaxpr.eqns:
        for i, var in enumerate(eqn.outvars):
            made[var] = (eqn, i)
    out: list[PartitionSpec | None] = []
    for atom in closed.jaxpr.outvars:
        eqn, i = made.get(atom, (None, 0))
        spec = None
        if eqn is not None and eqn.primitive is P.sharding_constraint_p:
            spec = getattr(eqn.params["sharding"], "spec", None)
        elif eqn is not None and eqn.primitive is P.jit_p:
            spec = constrained_out_specs(eqn.params["jaxpr"])[i]
        out.append(spec)
    return out


def typed_out_shardings(
    mesh: Mesh,
    shardings: Sequence[NamedSharding],
    out_avals: Sequence[ShapedArray],
    constrained: Sequence[PartitionSpec | None] | None = None,
) -> list[NamedSharding]:
    """The result shardings JAX reports over a mesh whose axes are all ``Explicit``.

    A result's spec is part of its type there: one entry per dimension
    (``P('x', None)``) for a computed result, the constraint's own spec for
    one made by a sharding constraint. Over other meshes ``shardings`` is
    returned as it is.

    Args:
      mesh: the program's mesh.
      shardings: the shardings XLA's propagation gives the results.
      out_avals: the results' abstract values.
      constrained: per result, the spec of the constraint that made it, or ``None``.

    Returns:
      The shardings to report.
    """
    if not (mesh.axis_types and all(t == AxisType.Explicit for t in mesh.axis_types)):
        return list(shardings)
    given = list(constrained) if constrained is not None else [None] * len(out_avals)
    return [
        NamedSharding(mesh, c if c is not None else typed_spec(s.spec, a.ndim))
        for s, a, c in zip(shardings, out_avals, given, strict=True)
    ]
