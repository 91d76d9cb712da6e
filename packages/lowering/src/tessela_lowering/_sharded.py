"""Arrays split over the devices of a mesh, and the functions that make them.

A :class:`ShardedArray` is an :class:`~tessela_lowering._array.Array` whose
value lives in parts, one per device of a ``NamedSharding``'s mesh: one
jaxlib multi-device buffer owns the per-device buffers. Its queries
(``sharding``, ``addressable_shards``, ``global_shards``,
``is_fully_replicated``, ...) answer as JAX's; reading its value assembles the
parts on the host. Operations on sharded arrays run through XLA's SPMD
partitioner (:mod:`tessela_lowering._spmd`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from tessela_pytree import tree_map
from tessela_tracer import ArrayCopySemantics, ShapedArray, Tracer, get_aval, register_aval_handler
from tessela_tracer.primitives import device_put_p

from tessela_lowering import _xla
from tessela_lowering._array import (
    Array,
    Shard,
    SingleDeviceSharding,
    _deleted_error,
    _sharded_put,
    signature,
)
from tessela_lowering._mesh import IndivisibleError, NamedSharding
from tessela_lowering._xla import Buffer, Device, HostArray, _shards
from tessela_lowering._xla._shards import XlaSharding
from tessela_lowering.distributed import process_local_layout

__all__ = [
    "ShardedArray",
    "any_sharded",
    "hlo_sharding_of",
    "laid_out_as",
    "make_array_from_callback",
    "make_array_from_process_local_data",
    "make_array_from_single_device_arrays",
    "put_sharded",
    "wrap_global",
]


def hlo_sharding_of(sharding: NamedSharding, ndim: int) -> XlaSharding:
    """XLA's HloSharding of ``sharding`` for an array of rank ``ndim``.

    Positions in the tile assignment are indices into the mesh's devices in
    row-major order (the order of the array's shards).

    Args:
      sharding: the named sharding.
      ndim: the array's rank.

    Returns:
      The HloSharding.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> mesh = Mesh(np.array(tl.devices()[:1]).reshape(1, 1), ("x", "y"))
      >>> str(hlo_sharding_of(NamedSharding(mesh, PartitionSpec("x")), 2))
      '{replicated}'
    """
    mesh = sharding.mesh
    names = list(mesh.axis_names)
    sizes = mesh.shape
    used: list[Any] = []
    tiles: list[int] = []
    for d in range(ndim):
        axes = list(sharding.spec.axes_of(d))
        used.extend(axes)
        tiles.append(int(np.prod([sizes[a] for a in axes], dtype=np.int64)))
    rest = [n for n in names if n not in used]
    perm = [names.index(a) for a in used + rest]
    positions = np.arange(mesh.size).reshape(mesh.axis_sizes).transpose(perm)
    copies = int(np.prod([sizes[a] for a in rest], dtype=np.int64))
    return _shards.hlo_sharding([*tiles, copies], positions.ravel().tolist(), replicated_last=True)


class ShardedArray(Array):
    """An array split over the devices of a mesh (made by ``device_put(x, NamedSharding)``).

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
      >>> x = tl.device_put(np.arange(4.0, dtype=np.float32), NamedSharding(mesh, PartitionSpec("x")))
      >>> x.sharding.spec, x.addressable_shards[0].index
      (P('x',), (slice(0, 4, None),))
    """

    __slots__ = ("_gathered", "_global", "_named")

    _global: Buffer
    _named: NamedSharding
    _gathered: Buffer | None

    @property
    def _buf(self) -> Buffer:
        # The whole value on the mesh's first device: what single-device code paths read.
        return self._live_buffer()

    def _live_buffer(self) -> Buffer:
        if self._global.is_deleted():
            raise _deleted_error(self.aval)
        if self._gathered is None:
            self._gathered = _xla.device_put(self._value, self.device)
        return self._gathered

    @property
    def device(self) -> Device:
        """The mesh's first device (JAX answers with the sharding for several devices)."""
        return self._named.mesh.devices.flat[0]

    def devices(self) -> set[Device]:
        """Every device holding a part of the array."""
        return set(self._named.mesh.devices.flat)

    @property
    def sharding(self) -> NamedSharding:  # type: ignore[override]
        """How the array is split over the mesh."""
        return self._named

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holds the whole array."""
        return self._named.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process holds every shard."""
        return self._named.is_fully_addressable

    @property
    def global_shards(self) -> list[Shard]:
        """Every device's part, in the mesh's device order (``data`` is None on other processes)."""
        bufs = iter(_shards.shard_buffers(self._global))
        local = set(self._named.mesh.local_devices)
        indices = self._named.devices_indices_map(self.aval.shape)
        seen: dict[tuple[Any, ...], int] = {}
        out = []
        for dev in self._named.mesh.devices.flat:
            index = indices[dev]
            key = tuple((s.start, s.stop) for s in index)
            replica = seen.get(key, 0)
            seen[key] = replica + 1
            shard_aval = ShapedArray(_shape_of(index, self.aval.shape), self.aval.dtype)
            data = Array(next(bufs), shard_aval, True) if dev in local else None
            out.append(Shard(dev, index, replica, data))  # type: ignore[arg-type]
        return out

    @property
    def addressable_shards(self) -> list[Shard]:
        """The parts this process holds."""
        return [s for s in self.global_shards if s.data is not None]

    def addressable_data(self, index: int) -> Array:
        """The data of addressable shard ``index`` as a single-device array."""
        return self.addressable_shards[index].data

    def is_deleted(self) -> bool:
        """Whether the array was deleted (or donated)."""
        return bool(self._global.is_deleted())

    def delete(self) -> None:
        """Free every device's part now."""
        self._global.delete()
        self._gathered = None
        self._npy = None

    def block_until_ready(self) -> ShardedArray:
        """Wait until every part is computed; returns the array itself."""
        if self._global.is_deleted():
            raise _deleted_error(self.aval)
        self._global.block_until_ready()
        return self

    @property
    def _value(self) -> HostArray:
        npy = self._npy
        if npy is None:
            if self._global.is_deleted():
                raise _deleted_error(self.aval)
            if not self._readable():
                raise RuntimeError(
                    "Fetching value for `jax.Array` that spans non-addressable (non process "
                    "local) devices is not possible. You can use "
                    "`jax.experimental.multihost_utils.process_allgather` to print the global "
                    "array or use `.addressable_shards` method of jax.Array to inspect the "
                    "addressable (process local) shards."
                )
            npy = np.empty(self.aval.shape, self.aval.dtype)
            indices = self._named.devices_indices_map(self.aval.shape)
            done: set[tuple[Any, ...]] = set()
            bufs = _shards.shard_buffers(self._global)
            # The shards this process holds (every shard on one process).
            for dev, buf in zip(self._named.mesh.local_devices, bufs, strict=True):
                index = indices[dev]
                key = tuple((s.start, s.stop) for s in index)
                if key not in done:
                    done.add(key)
                    npy[index] = _xla.to_numpy(buf)
            npy.flags.writeable = False
            self._npy = npy
        return npy

    def _readable(self) -> bool:
        # As JAX: the whole value is known here when this process's shards cover it.
        if self._named.is_fully_addressable:
            return True
        indices = self._named.devices_indices_map(self.aval.shape)
        here = {_index_key(indices[d]) for d in self._named.mesh.local_devices}
        return len(here) == len({_index_key(i) for i in indices.values()})

    def __repr__(self) -> str:
        if self._global.is_deleted() or self._readable():
            return super().__repr__()
        weak = ", weak_type=True" if self.aval.weak_type else ""
        return f"Array(shape={self.aval.shape}, dtype={self.aval.dtype.name}{weak})"

    def __str__(self) -> str:
        if self._global.is_deleted() or self._readable():
            return super().__str__()
        return repr(self)

    def copy(self) -> ShardedArray:
        """A new array with the same value and sharding."""
        out: ShardedArray = put_sharded(self._value, self._named, self.aval)
        return out


def _shape_of(index: tuple[slice, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape, strict=True))


register_aval_handler(ShardedArray, lambda a: a.aval)


def any_sharded(leaves: Sequence[object], /) -> bool:
    """Whether any of ``leaves`` is a :class:`ShardedArray` (a call to run over a mesh).

    Args:
      leaves: the flat arguments of a call.

    Returns:
      True when one of them is split over a mesh.

    Example:
      >>> import numpy as np
      >>> any_sharded([np.ones(2), 1.0])
      False
    """
    return any(type(x) is ShardedArray for x in leaves)


def laid_out_as(args: Iterable[object], shardings: Iterable[object], /) -> bool:
    """Whether each of ``args`` is a :class:`ShardedArray` with the matching sharding.

    A compiled program bound to its arguments' layout runs on such arguments'
    buffers as they are, without checking or moving them.

    Args:
      args: the arguments.
      shardings: the sharding each argument must have, as many as ``args``.

    Returns:
      True when every argument is a ShardedArray whose sharding equals its
      sharding; False at the first that is not.

    Raises:
      ValueError: ``args`` and ``shardings`` differ in length.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> s = NamedSharding(Mesh(np.array(tl.devices()[:1]), ("x",)), PartitionSpec("x"))
      >>> x = tl.device_put(np.ones(2, np.float32), s)
      >>> laid_out_as([x], [s]), laid_out_as([np.ones(2)], [s])
      (True, False)
    """
    for x, sharding in zip(args, shardings, strict=True):
        if type(x) is not ShardedArray or x.sharding != sharding:
            return False
    return True


_on_first: list[Callable[[], None]] = []
"""Run once, when the first sharded array is made (installs the SPMD eager path)."""


def wrap_global(buf: Buffer, aval: ShapedArray, sharding: NamedSharding) -> ShardedArray:
    """A :class:`ShardedArray` around a multi-device buffer laid out as ``sharding``.

    Args:
      buf: a multi-device buffer whose shards follow the mesh's device order.
      aval: the whole array's abstract value.
      sharding: its named sharding.

    Returns:
      The array (committed to its mesh).
    """
    while _on_first:
        _on_first.pop()()
    out: ShardedArray = object.__new__(ShardedArray)
    out._global = buf
    out._named = sharding
    out._gathered = None
    out.aval = aval
    out._committed = True
    out._npy = None
    out._sig = signature(aval, sharding, True)
    return out


def _check_rank(sharding: NamedSharding, aval: ShapedArray, what: str) -> None:
    if len(sharding.spec) > aval.ndim:
        raise ValueError(
            f"One of {what} args is incompatible with its sharding annotation {sharding!r}: "
            f"Sharding {sharding!r} is only valid for values of rank at least "
            f"{len(sharding.spec)}, but was applied to a value of rank {aval.ndim}. Give the "
            f"PartitionSpec at most {aval.ndim} entries, one per dimension of the value."
        )


def _check_divisible(sharding: NamedSharding, shape: tuple[int, ...], what: str) -> None:
    try:
        sharding.shard_shape(shape)
    except IndivisibleError as err:
        raise IndivisibleError(
            f"{err}. The {what} argument of shape {shape} cannot be split evenly: pad each "
            "split dimension to a multiple of its number of parts, or split it over fewer "
            "mesh axes."
        ) from None


def put_sharded(
    value: npt.ArrayLike, sharding: NamedSharding, aval: ShapedArray | None = None
) -> ShardedArray:
    """Split a host value (or a concrete array) over ``sharding``'s mesh.

    Args:
      value: an :class:`Array`, a NumPy array or scalar, a Python scalar.
      sharding: the named sharding.
      aval: its abstract value (default: ``get_aval(value)``).

    Returns:
      A :class:`ShardedArray`.

    Raises:
      ValueError: the spec has more entries than the value has dimensions.
      IndivisibleError: a split dimension is not divisible by its number of parts.
    """
    if aval is None:
        aval = get_aval(value)
    _check_rank(sharding, aval, "device_put")
    _check_divisible(sharding, aval.shape, "device_put")
    host = np.asarray(value, dtype=aval.dtype)
    indices = sharding.devices_indices_map(aval.shape)
    devs = sharding.mesh.local_devices
    bufs = [_xla.device_put(np.array(host[indices[d]], order="C"), d) for d in devs]
    every = list(sharding.mesh.devices.flat)  # the placement names every process's devices
    buf = _shards.assemble(aval, every, hlo_sharding_of(sharding, aval.ndim), bufs)
    return wrap_global(buf, aval, sharding)


def _put_leaf(x: Any, sharding: NamedSharding) -> Any:
    if isinstance(x, Tracer):
        (out,) = device_put_p.bind(
            x, devices=(sharding,), srcs=(None,),
            copy_semantics=(ArrayCopySemantics.REUSE_INPUT,),
        )  # fmt: skip
        return out
    if isinstance(x, ShardedArray) and x.sharding == sharding:
        return x
    return put_sharded(x, sharding)


def _device_put_sharded(x: Any, sharding: object) -> Any:
    if not isinstance(sharding, NamedSharding):
        raise TypeError(
            f"device_put(x, device): device must be a Device, a SingleDeviceSharding or a "
            f"NamedSharding, got {type(sharding).__name__}; e.g. "
            "NamedSharding(tessela.make_mesh((n,), ('x',)), P('x'))."
        )
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic, int, float, complex, bool)):
        return _put_leaf(x, sharding)
    return tree_map(lambda leaf: _put_leaf(leaf, sharding), x)


_sharded_put.append(_device_put_sharded)


def make_array_from_callback(
    shape: Sequence[int],
    sharding: NamedSharding | SingleDeviceSharding,
    data_callback: Callable[[tuple[slice, ...]], npt.ArrayLike],
    dtype: npt.DTypeLike | None = None,
) -> Array:
    """An array of ``shape`` laid out as ``sharding``, each part given by ``data_callback``.

    Args:
      shape: the whole array's shape.
      sharding: how it is laid out.
      data_callback: called with each device's index (one slice per dimension);
        returns that part (a NumPy array or an array).
      dtype: the dtype (default: the parts' dtype).

    Returns:
      The array.

    Raises:
      IndivisibleError: a split dimension is not divisible by its number of parts.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
      >>> data = np.arange(4.0, dtype=np.float32)
      >>> make_array_from_callback((4,), NamedSharding(mesh, PartitionSpec("x")), lambda i: data[i])
      Array([0., 1., 2., 3.], dtype=float32)
    """
    shape = tuple(int(n) for n in shape)
    if isinstance(sharding, SingleDeviceSharding):
        part = np.asarray(data_callback((slice(None),) * len(shape)), dtype=dtype)
        return _put_single(part, sharding)
    _check_divisible(sharding, shape, "make_array_from_callback")
    indices = sharding.devices_indices_map(shape)
    devs = sharding.mesh.local_devices
    parts = [np.asarray(data_callback(indices[d]), dtype=dtype) for d in devs]
    aval = ShapedArray(shape, parts[0].dtype if parts else np.dtype(dtype or np.float32))
    _check_rank(sharding, aval, "make_array_from_callback")
    want = sharding.shard_shape(shape)
    for d, part in zip(devs, parts, strict=True):
        if part.shape != want:
            raise ValueError(
                f"make_array_from_callback: the callback returned shape {part.shape} for "
                f"device {d!r}, but the sharding's shard shape is {want}; return "
                "exactly the part the index selects."
            )
    bufs = [_xla.device_put(np.array(p, order="C"), d) for p, d in zip(parts, devs, strict=True)]
    every = list(sharding.mesh.devices.flat)  # the placement names every process's devices
    buf = _shards.assemble(aval, every, hlo_sharding_of(sharding, aval.ndim), bufs)
    return wrap_global(buf, aval, sharding)


def _put_single(value: HostArray, sharding: SingleDeviceSharding) -> Array:
    device = next(iter(sharding.device_set))
    aval = ShapedArray(value.shape, value.dtype)
    return Array(_xla.device_put(value, device), aval, True)


def make_array_from_single_device_arrays(
    shape: Sequence[int],
    sharding: NamedSharding | SingleDeviceSharding,
    arrays: Sequence[Array],
    *,
    dtype: npt.DTypeLike | None = None,
) -> Array:
    """An array of ``shape`` from one single-device array per device of ``sharding``.

    Args:
      shape: the whole array's shape.
      sharding: how it is laid out.
      arrays: each device's part, on that device, in any order.
      dtype: the dtype (default: the parts' dtype).

    Returns:
      The array (it shares the parts' buffers).

    Raises:
      ValueError: a device has no part, or a part has the wrong shape.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
      >>> part = tl.device_put(np.ones(2, np.float32), tl.devices()[0])
      >>> make_array_from_single_device_arrays((2,), NamedSharding(mesh, PartitionSpec()), [part])
      Array([1., 1.], dtype=float32)
    """
    shape = tuple(int(n) for n in shape)
    if isinstance(sharding, SingleDeviceSharding):
        (only,) = arrays
        return Array(only._live_buffer(), ShapedArray(shape, only.aval.dtype), True)
    by_device = {a.device: a for a in arrays}
    devs = sharding.mesh.local_devices
    missing = [d for d in devs if d not in by_device]
    if missing or len(arrays) != len(devs):
        raise ValueError(
            f"make_array_from_single_device_arrays: the sharding spans {len(devs)} devices and "
            f"got {len(arrays)} arrays (no array on {missing!r}); pass exactly one array per "
            "device of the sharding, each on its device."
        )
    want = sharding.shard_shape(shape)
    first = by_device[devs[0]]
    aval = ShapedArray(shape, np.dtype(dtype) if dtype is not None else first.aval.dtype)
    for d in devs:
        if by_device[d].aval.shape != want:
            raise ValueError(
                f"make_array_from_single_device_arrays: the array on {d!r} has shape "
                f"{by_device[d].aval.shape}, but the sharding's shard shape for {shape} is {want}."
            )
    bufs = [by_device[d]._live_buffer() for d in devs]
    every = list(sharding.mesh.devices.flat)  # the placement names every process's devices
    buf = _shards.assemble(aval, every, hlo_sharding_of(sharding, aval.ndim), bufs)
    return wrap_global(buf, aval, sharding)


def make_array_from_process_local_data(
    sharding: NamedSharding | SingleDeviceSharding,
    local_data: npt.ArrayLike,
    global_shape: Sequence[int] | None = None,
) -> Array:
    """An array laid out as ``sharding`` from the data this process holds.

    With one process, the local data is the whole array.

    Args:
      sharding: how the array is laid out.
      local_data: this process's data (a NumPy array or an array).
      global_shape: the whole array's shape (default: ``local_data``'s shape).

    Returns:
      The array.

    Raises:
      ValueError: ``global_shape`` differs from the local data's shape.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
      >>> mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
      >>> make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec("x")), np.ones(2))
      Array([1., 1.], dtype=float32)
    """
    aval = get_aval(local_data)
    host = np.asarray(local_data, dtype=aval.dtype)
    several = isinstance(sharding, NamedSharding) and sharding.mesh.is_multi_process
    if not several and global_shape is not None and tuple(global_shape) != host.shape:
        raise ValueError(
            f"make_array_from_process_local_data: global_shape {tuple(global_shape)} differs "
            f"from the local data's shape {host.shape}; with one process the local data is the "
            "whole array."
        )
    if isinstance(sharding, SingleDeviceSharding):
        return _put_single(host, sharding)
    if several:
        # Each device's part, read from this process's data (distributed.process_local_layout).
        shape, where = process_local_layout(sharding, host.shape, global_shape)
        by_index = {_index_key(sharding.devices_indices_map(shape)[d]): i for d, i in where.items()}
        return make_array_from_callback(shape, sharding, lambda i: host[by_index[_index_key(i)]])
    out: Array = put_sharded(host, sharding, ShapedArray(host.shape, aval.dtype))
    return out


def _index_key(index: tuple[slice, ...]) -> tuple[tuple[Any, Any], ...]:
    return tuple((s.start, s.stop) for s in index)
