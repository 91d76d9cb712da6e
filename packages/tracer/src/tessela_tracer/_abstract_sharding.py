"""Partition specs, abstract meshes and named shardings: the device-free half of sharding.

An abstract value reports how its array is laid out as a :class:`NamedSharding`
over an :class:`AbstractMesh` (axis names, sizes and types, no devices); a
:class:`PartitionSpec` says which mesh axes split each dimension. The
lowering's meshes of real devices and its placement use these same classes.
Their queries, equality and printing follow JAX 0.10.2.

Example:
    >>> NamedSharding(AbstractMesh((), ()), PartitionSpec(None, None))
    NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))
"""

from __future__ import annotations

import dataclasses
import enum
import math
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "AbstractDevice",
    "AbstractMesh",
    "AxisType",
    "DuplicateSpecError",
    "IndivisibleError",
    "ManualAxisType",
    "NamedSharding",
    "PartitionSpec",
    "unsharded",
]


class AxisType(enum.Enum):
    """How a mesh axis is partitioned: by XLA (``Auto``), by the types (``Explicit``), by hand."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


class _Unconstrained:
    def __repr__(self) -> str:
        return "UNCONSTRAINED"


class PartitionSpec:
    """Which mesh axes split each dimension of an array.

    Each entry is ``None`` (the dimension is not split), a mesh axis name, or a
    tuple of names (split over their product, the first name major).

    Args:
      *partitions: one entry per leading array dimension.
      unreduced: mesh axes over which the array holds unreduced partial sums.
      reduced: mesh axes over which it is reduced (replicated).

    Example:
        >>> P = PartitionSpec
        >>> P("x", None, ("a", "b"))
        P('x', None, ('a', 'b'))
        >>> P(("x",)) == P("x"), len(P("x", None))
        (True, 2)
    """

    __slots__ = ("_partitions", "reduced", "unreduced")
    UNCONSTRAINED = _Unconstrained()

    def __init__(
        self,
        *partitions: Hashable | Sequence[Hashable] | None,
        unreduced: frozenset[Hashable] | set[Hashable] = frozenset(),
        reduced: frozenset[Hashable] | set[Hashable] = frozenset(),
    ) -> None:
        self._partitions = tuple(_canonical_entry(p) for p in partitions)
        self.unreduced = frozenset(unreduced)
        self.reduced = frozenset(reduced)

    def __len__(self) -> int:
        return len(self._partitions)

    def __getitem__(self, i: Any) -> Any:
        return self._partitions[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._partitions)

    def index(self, value: object) -> int:
        """The position of the first entry equal to ``value``."""
        return self._partitions.index(value)

    def count(self, value: object) -> int:
        """How many entries equal ``value``."""
        return self._partitions.count(value)

    def _key(self) -> tuple[Any, ...]:
        return (self._partitions, self.unreduced, self.reduced)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PartitionSpec) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> Any:
        return (_rebuild_spec, (self._partitions, self.unreduced, self.reduced))

    def __repr__(self) -> str:
        parts = [repr(p) for p in self._partitions]
        for name in ("unreduced", "reduced"):
            axes: frozenset[Hashable] = getattr(self, name)
            if axes:
                parts.append(f"{name}={{{', '.join(repr(a) for a in sorted(axes, key=str))}}}")
        if len(self._partitions) == 1 and len(parts) == 1:
            return f"P({parts[0]},)"
        return f"P({', '.join(parts)})"

    def axes_of(self, dim: int, /) -> tuple[Hashable, ...]:
        """The mesh axes that split dimension ``dim`` (empty when it is not split)."""
        entry = self._partitions[dim] if dim < len(self._partitions) else None
        if entry is None or entry is PartitionSpec.UNCONSTRAINED:
            return ()
        return entry if isinstance(entry, tuple) else (entry,)


def _canonical_entry(p: Any) -> Any:
    if isinstance(p, list):
        p = tuple(p)
    if isinstance(p, tuple) and len(p) == 1:
        return p[0]
    return p


def _rebuild_spec(partitions: tuple[Any, ...], unreduced: Any, reduced: Any) -> PartitionSpec:
    return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


class DuplicateSpecError(Exception):
    """A partition spec maps one mesh axis to two array dimensions."""


class IndivisibleError(Exception):
    """A sharded dimension is not divisible by the number of its shards."""


def _axes_repr(names: Sequence[Hashable], sizes: Sequence[int], types: Sequence[AxisType]) -> str:
    axes = ", ".join(f"{n!r}: {s}" for n, s in zip(names, sizes, strict=True))
    return f"{axes}, axis_types={tuple(types)!r}"


class AbstractMesh:
    """A mesh's axis names, sizes and types, without devices.

    Args:
      axis_sizes: the size of each axis.
      axis_names: the name of each axis.
      axis_types: the type of each axis (``AxisType.Auto`` by default).

    Example:
        >>> AbstractMesh((2, 2), ("x", "y"))
        AbstractMesh('x': 2, 'y': 2, axis_types=(Auto, Auto))
    """

    __slots__ = ("axis_names", "axis_sizes", "axis_types")

    def __init__(
        self,
        axis_sizes: Sequence[int],
        axis_names: Sequence[Hashable],
        axis_types: Sequence[AxisType] | AxisType | None = None,
    ) -> None:
        self.axis_sizes = tuple(int(s) for s in axis_sizes)
        self.axis_names = tuple(axis_names)
        self.axis_types = _axis_types(axis_types, len(self.axis_names), AxisType.Auto)
        if len(self.axis_sizes) != len(self.axis_names):
            raise ValueError(
                f"AbstractMesh got {len(self.axis_sizes)} axis sizes and "
                f"{len(self.axis_names)} axis names; give one name per size."
            )

    @property
    def shape(self) -> OrderedDict[Hashable, int]:
        """Axis name to size, in order."""
        return OrderedDict(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def size(self) -> int:
        """The number of devices the mesh has room for."""
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        """Whether the mesh has no axes."""
        return not self.axis_names

    @property
    def abstract_mesh(self) -> AbstractMesh:
        """The mesh itself (a concrete mesh answers with its axes)."""
        return self

    def _axes_of_type(self, kind: AxisType) -> tuple[Hashable, ...]:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types, strict=True) if t == kind)

    @property
    def auto_axes(self) -> tuple[Hashable, ...]:
        """The names of the ``Auto`` axes, in order."""
        return self._axes_of_type(AxisType.Auto)

    @property
    def explicit_axes(self) -> tuple[Hashable, ...]:
        """The names of the ``Explicit`` axes, in order."""
        return self._axes_of_type(AxisType.Explicit)

    @property
    def manual_axes(self) -> tuple[Hashable, ...]:
        """The names of the ``Manual`` axes, in order."""
        return self._axes_of_type(AxisType.Manual)

    def update_axis_types(self, name_to_type: Mapping[Hashable, AxisType]) -> AbstractMesh:
        """This mesh with the axes named in ``name_to_type`` given those types.

        Args:
          name_to_type: axis name to its new type; other axes keep theirs.

        Returns:
          The new abstract mesh.

        Example:
            >>> AbstractMesh((2, 2), ("x", "y")).update_axis_types({"y": AxisType.Explicit})
            AbstractMesh('x': 2, 'y': 2, axis_types=(Auto, Explicit))
        """
        types = tuple(
            name_to_type.get(n, t) for n, t in zip(self.axis_names, self.axis_types, strict=True)
        )
        return AbstractMesh(self.axis_sizes, self.axis_names, types)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbstractMesh) and (
            other.axis_sizes,
            other.axis_names,
            other.axis_types,
        ) == (self.axis_sizes, self.axis_names, self.axis_types)

    def __hash__(self) -> int:
        return hash((self.axis_sizes, self.axis_names, self.axis_types))

    def __repr__(self) -> str:
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        return f"AbstractMesh({_axes_repr(self.axis_names, self.axis_sizes, self.axis_types)})"


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """The kind of device a mesh's axes stand for, without a device.

    Args:
      device_kind: the device kind (``"cpu"``, a GPU's name).
      num_cores: its number of cores (``None`` when not known).
      platform: the platform (``"cpu"``, ``"cuda"``).

    Example:
        >>> AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")
        AbstractDevice(device_kind=cpu, num_cores=None, platform=cpu)
    """

    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self) -> str:
        return (
            f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
            f"platform={self.platform})"
        )


_MANUAL_TYPES: weakref.WeakValueDictionary[tuple[frozenset[Any], ...], ManualAxisType] = (
    weakref.WeakValueDictionary()
)


class ManualAxisType:
    """How a value varies over the mesh axes of a manual region (``shard_map``).

    Instances are interned: equal arguments give the same object.

    Args:
      varying: axes over which the value differs from device to device.
      unreduced: axes over which it holds unreduced partial sums.
      reduced: axes over which it is reduced.

    Raises:
      ValueError: an axis is both varying and unreduced (or reduced).

    Example:
        >>> ManualAxisType(varying={"x"}) is ManualAxisType(varying=frozenset({"x"}))
        True
        >>> ManualAxisType()
        ManualAxisType(varying=frozenset(), unreduced=frozenset(), reduced=frozenset())
    """

    __slots__ = ("__weakref__", "reduced", "unreduced", "varying")

    varying: frozenset[Hashable]
    unreduced: frozenset[Hashable]
    reduced: frozenset[Hashable]

    def __new__(
        cls,
        *,
        varying: frozenset[Hashable] | set[Hashable] = frozenset(),
        unreduced: frozenset[Hashable] | set[Hashable] = frozenset(),
        reduced: frozenset[Hashable] | set[Hashable] = frozenset(),
    ) -> ManualAxisType:
        for name, other in (("unreduced", unreduced), ("reduced", reduced)):
            if varying & other:
                raise ValueError(
                    f"varying and {name} cannot have common mesh axes. Got "
                    f"varying={varying} and {name}={other}"
                )
        key = (frozenset(varying), frozenset(unreduced), frozenset(reduced))
        found = _MANUAL_TYPES.get(key)
        if found is None:
            found = object.__new__(cls)
            for attr, value in zip(("varying", "unreduced", "reduced"), key, strict=True):
                object.__setattr__(found, attr, value)
            _MANUAL_TYPES[key] = found
        return found

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ManualAxisType is immutable; use update({name}=...)")

    def __reduce__(self) -> Any:
        return (_rebuild_manual, (self.varying, self.unreduced, self.reduced))

    def update(self, **kwargs: Any) -> ManualAxisType:
        """This value with the fields given in ``kwargs`` replaced.

        Args:
          **kwargs: ``varying``, ``unreduced`` and/or ``reduced``.

        Returns:
          The (interned) updated value.
        """
        fields = {"varying": self.varying, "unreduced": self.unreduced, "reduced": self.reduced}
        fields.update(kwargs)
        return ManualAxisType(**fields)

    def __repr__(self) -> str:
        return (
            f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
            f"reduced={self.reduced})"
        )


def _rebuild_manual(varying: Any, unreduced: Any, reduced: Any) -> ManualAxisType:
    return ManualAxisType(varying=varying, unreduced=unreduced, reduced=reduced)


def _axis_types(
    given: Sequence[AxisType] | AxisType | None, n: int, default: AxisType
) -> tuple[AxisType, ...]:
    if given is None:
        return (default,) * n
    if isinstance(given, AxisType):
        return (given,) * n
    types = tuple(given)
    if len(types) != n or not all(isinstance(t, AxisType) for t in types):
        raise ValueError(f"axis_types must be {n} AxisType values, got {types!r}")
    return types


class NamedSharding:
    """A sharding given by a mesh and a partition spec.

    Args:
      mesh: the named axes: an :class:`AbstractMesh`, or a mesh of devices
        (the lowering's ``Mesh``, whose ``devices`` the device queries read).
      spec: which mesh axes split each array dimension.
      memory_kind: the kind of memory (``"device"`` over devices, ``None`` abstractly).

    Raises:
      ValueError: ``spec`` names an axis the mesh does not have.
      DuplicateSpecError: ``spec`` uses one mesh axis for two dimensions.

    Example:
        >>> s = NamedSharding(AbstractMesh((2, 2), ("x", "y")), PartitionSpec("x"))
        >>> s.shard_shape((4, 3)), s.is_fully_replicated, s.memory_kind
        ((2, 3), False, None)
    """

    __slots__ = ("_memory_kind", "mesh", "spec")

    def __init__(self, mesh: Any, spec: PartitionSpec, *, memory_kind: str | None = None) -> None:
        if not isinstance(spec, PartitionSpec):
            raise TypeError(
                f"NamedSharding takes a PartitionSpec as spec, got {spec!r}; "
                "write PartitionSpec(*entries) (or P(...))."
            )
        seen: set[Hashable] = set()
        for dim in range(len(spec)):
            for axis in spec.axes_of(dim):
                if axis not in mesh.axis_names:
                    raise ValueError(
                        f"Resource axis: {axis} of {spec!r} is not found in mesh: "
                        f"{mesh.axis_names!r}."
                    )
                if axis in seen:
                    raise DuplicateSpecError(
                        "A single NamedSharding spec specification can map every mesh axis "
                        f"to at most one positional dimension, but {spec!r} has duplicate "
                        f"entries for `{axis}`"
                    )
                seen.add(axis)
        self.mesh = mesh
        self.spec = spec
        self._memory_kind = memory_kind

    @property
    def memory_kind(self) -> str | None:
        """The kind of memory the shards live in (``None`` over an abstract mesh)."""
        if self._memory_kind is None and isinstance(self.mesh, AbstractMesh):
            return None
        return self._memory_kind or "device"

    @property
    def device_set(self) -> set[Any]:
        """Every device of the mesh."""
        return set(self.mesh.devices.flat)

    @property
    def num_devices(self) -> int:
        """The number of devices of the mesh."""
        return int(self.mesh.size)

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process holds every shard."""
        return not self.mesh.is_multi_process

    @property
    def replicated_axes(self) -> frozenset[Hashable]:
        """The mesh axes the spec does not use: the array is replicated over them."""
        used = {a for d in range(len(self.spec)) for a in self.spec.axes_of(d)}
        return frozenset(n for n in self.mesh.axis_names if n not in used)

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holds the whole array."""
        sizes = self.mesh.shape
        return all(sizes[a] == 1 for d in range(len(self.spec)) for a in self.spec.axes_of(d))

    def _tiling(self, global_shape: Sequence[int]) -> list[int]:
        sizes = self.mesh.shape
        return [math.prod(sizes[a] for a in self.spec.axes_of(d)) for d in range(len(global_shape))]

    def shard_shape(self, global_shape: Sequence[int], /) -> tuple[int, ...]:
        """The shape of each shard of an array of ``global_shape``.

        Args:
          global_shape: the whole array's shape.

        Returns:
          The shape of one shard.

        Raises:
          IndivisibleError: a split dimension is not divisible by its number of shards.
        """
        tiling = self._tiling(global_shape)
        for axis, (n, t) in enumerate(zip(global_shape, tiling, strict=True)):
            if n % t:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {axis} is "
                    f"partitioned {t} times, but the dimension size is {n} (full shape: "
                    f"{tuple(global_shape)}, per-dimension tiling factors: {tiling} should "
                    "evenly divide the shape)"
                )
        return tuple(n // t for n, t in zip(global_shape, tiling, strict=True))

    def devices_indices_map(
        self, global_shape: Sequence[int], /
    ) -> Mapping[Any, tuple[slice, ...]]:
        """The part of an array of ``global_shape`` that each device holds.

        Args:
          global_shape: the whole array's shape.

        Returns:
          Device to a tuple of one slice per dimension.
        """
        shard = self.shard_shape(global_shape)
        sizes = self.mesh.shape
        out: dict[Any, tuple[slice, ...]] = {}
        for position in np.ndindex(*self.mesh.axis_sizes):
            coords = dict(zip(self.mesh.axis_names, position, strict=True))
            index = []
            for d in range(len(global_shape)):
                axes = self.spec.axes_of(d)
                if not axes:
                    index.append(slice(None))
                    continue
                k = 0
                for a in axes:
                    k = k * sizes[a] + coords[a]
                index.append(slice(k * shard[d], (k + 1) * shard[d]))
            out[self.mesh.devices[position]] = tuple(index)
        return out

    def addressable_devices_indices_map(
        self, global_shape: Sequence[int], /
    ) -> Mapping[Any, tuple[slice, ...]]:
        """:meth:`devices_indices_map` restricted to this process's devices."""
        local = set(self.mesh.local_devices)
        return {d: i for d, i in self.devices_indices_map(global_shape).items() if d in local}

    def _key(self) -> tuple[Any, ...]:
        return (self.mesh, self.spec, self.memory_kind)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedSharding) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        kind = "" if self.memory_kind is None else f", memory_kind={self.memory_kind}"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}{kind})"


def unsharded(ndim: int) -> NamedSharding:
    """The sharding an abstract value of ``ndim`` dimensions reports when nothing splits it.

    Args:
      ndim: the number of array dimensions.

    Returns:
      ``NamedSharding`` over the empty abstract mesh, one ``None`` per dimension.

    Example:
        >>> unsharded(2)
        NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))
    """
    return _UNSHARDED[ndim] if ndim < len(_UNSHARDED) else _unsharded(ndim)


def _unsharded(ndim: int) -> NamedSharding:
    return NamedSharding(AbstractMesh((), ()), PartitionSpec(*(None,) * ndim))


_UNSHARDED = tuple(_unsharded(n) for n in range(8))
