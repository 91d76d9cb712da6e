"""The concrete array type: one immutable buffer on one device.

An :class:`Array` pairs a device buffer with its abstract value and a
*committed* flag. Committed arrays were placed on a device on purpose
(``device_put(x, device)``, or results of computations on committed inputs);
computations follow them. Uncommitted arrays live on the default device and
move freely.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
from tessela_pytree import tree_map
from tessela_tracer import (
    ArrayCopySemantics,
    ArrayOps,
    ShapedArray,
    Tracer,
    get_aval,
    register_aval_handler,
)
from tessela_tracer.dtypes import is_extended
from tessela_tracer.primitives import device_put_p
from tessela_tracer.sharding import NamedSharding
from tessela_tracer.typing import ArrayLike

from tessela_lowering import _xla
from tessela_lowering._array_buffer import BufferMethods, Format, layout_of
from tessela_lowering._devices import get_default_device
from tessela_lowering._xla import Buffer, Device, HostArray

__all__ = [
    "PY_SCALAR_TYPES",
    "Array",
    "DonatedArgumentError",
    "Shard",
    "SingleDeviceSharding",
    "device_get",
    "device_put",
    "device_put_impl",
    "leaf_key",
    "make_array",
    "signature",
    "single_result",
]


class SingleDeviceSharding:
    """The placement of an array that lives whole on one device.

    Args:
      device: the device.
    """

    __slots__ = ("_device",)

    def __init__(self, device: Device, /) -> None:
        self._device = device

    @property
    def device_set(self) -> set[Device]:
        """The devices holding a part of the array (exactly one here)."""
        return {self._device}

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Device, tuple[slice, ...]]:
        """The part of an array of ``global_shape`` each device holds: all of it, on one device."""
        return {self._device: (slice(None),) * len(global_shape)}

    @property
    def memory_kind(self) -> str:
        """The kind of memory the array lives in: ``unpinned_host`` on CPU, else ``device``.

        Example:
          >>> import tessela_lowering as tl
          >>> tl.device_put(1.0).sharding.memory_kind
          'unpinned_host'
        """
        return "unpinned_host" if self._device.platform == "cpu" else "device"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self) -> int:
        return hash(("SingleDeviceSharding", self._device))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class Shard:
    """One device's part of an array: where it lives, which slice, which copy, its data.

    Args:
      device: the device holding the part.
      index: one slice per dimension: the part of the whole array it holds.
      replica_id: which copy of that part (0 for the first).
      data: the part, as a single-device :class:`Array`.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.device_put(2.0).addressable_shards[0].index
      ()
    """

    __slots__ = ("data", "device", "index", "replica_id")

    def __init__(
        self, device: Device, index: tuple[slice, ...], replica_id: int, data: Array
    ) -> None:
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self) -> str:
        return (
            f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})"
        )


INVALID_BUFFER = "Invalid argument: CopyToHostAsync() called on invalid buffer"
"""What XLA reports when a deleted (donated) buffer is read; every error about one says it."""


def _deleted_message(aval: ShapedArray) -> str:
    return (
        f"{INVALID_BUFFER}: Array has been deleted with shape={aval.str_short()}. It was "
        f"donated to a jitted computation (donate_argnums / donate_argnames), whose output "
        f"now owns its buffer, or deleted with .delete(). Use the value the call returned "
        f"instead, don't donate this argument, or keep a copy (x.copy()) if it is needed "
        f"after the call."
    )


def _deleted_error(aval: ShapedArray) -> RuntimeError:
    return RuntimeError(_deleted_message(aval))


class DonatedArgumentError(ValueError, RuntimeError):
    """A deleted (donated) array passed to a jitted function that donates arguments.

    JAX raises ValueError there (and RuntimeError for every other use of a
    deleted array); this class is both, so that code catching either works.
    """


def _donated_error(aval: ShapedArray) -> DonatedArgumentError:
    return DonatedArgumentError(_deleted_message(aval))


def _block_error(aval: ShapedArray) -> Exception:
    # JAX raises jaxlib's runtime error class here.
    return _xla.XlaRuntimeError(_deleted_message(aval))


_signatures: dict[Any, int] = {}
_next_signature = itertools.count().__next__  # atomic under the GIL


def signature(aval: ShapedArray, /, device: Device | None = None, committed: bool = False) -> int:
    """A small integer naming ``aval`` on ``device``: equal avals get the same number.

    The dispatch fast paths key their caches on these numbers, which hash and
    compare in C, instead of on avals, whose ``__hash__``/``__eq__`` run in
    Python. Arrays carry the number of their aval, device and commitment, so
    that a key names where each argument lives too. The table holds one entry
    per distinct triple the process has seen.

    Args:
      aval: the abstract value.
      device: the device the array lives on (``None``: the default device).
      committed: whether the array is committed to it.

    Returns:
      Its number (0 or more).

    Example:
      >>> import numpy as np
      >>> from tessela_tracer import ShapedArray
      >>> a = ShapedArray((3,), np.float32)
      >>> signature(a) == signature(ShapedArray((3,), np.float32))
      True
      >>> signature(a) == signature(ShapedArray((3,), np.float32, weak_type=True))
      False
    """
    if device is None:
        device = get_default_device()
    key = (aval, device, committed)
    sig = _signatures.get(key)
    if sig is None:
        sig = _signatures.setdefault(key, _next_signature())
    return sig


class Array(BufferMethods, ArrayOps):
    """An immutable array on one device.

    Arrays come from :func:`device_put` and from every computation; NumPy's
    operators and methods come from the NumPy layer. Use ``x.at[i].set(v)``
    for functional updates.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> x = tl.device_put(np.arange(3.0, dtype=np.float32))
      >>> x
      Array([0., 1., 2.], dtype=float32)
      >>> x.shape, x.committed
      ((3,), False)
    """

    __slots__ = ("_buf", "_committed", "_npy", "_sig", "aval")

    aval: ShapedArray
    _buf: Buffer
    _committed: bool
    _npy: HostArray | None
    _sig: int  # signature(aval, device, committed): the dispatch caches' key

    def __init__(self, buf: Buffer, aval: ShapedArray, committed: bool) -> None:
        self._buf = buf
        self.aval = aval
        self._committed = committed
        self._npy = None
        self._sig = signature(aval, _xla.buffer_device(buf), committed)

    # -- placement -------------------------------------------------------

    @property
    def device(self) -> Device:
        """The device holding the array."""
        return _xla.buffer_device(self._buf)

    def devices(self) -> set[Device]:
        """The set of devices holding a part of the array."""
        return {self.device}

    @property
    def sharding(self) -> SingleDeviceSharding:
        """Where the array lives."""
        return SingleDeviceSharding(self.device)

    @property
    def committed(self) -> bool:
        """Whether the array was placed on its device on purpose."""
        return self._committed

    @property
    def addressable_shards(self) -> list[Shard]:
        """The parts of the array this process holds (here the whole array)."""
        return [Shard(self.device, (slice(None),) * self.aval.ndim, 0, self)]

    @property
    def global_shards(self) -> list[Shard]:
        """The parts of the array on every device (here the whole array)."""
        return self.addressable_shards

    def addressable_data(self, index: int) -> Array:
        """The data of addressable shard ``index`` (only 0 here: the array itself)."""
        if index != 0:
            raise IndexError(f"list index out of range: the array has 1 shard, got {index}")
        return self

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holding the array holds all of it (true on one device)."""
        return True

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process holds every shard (true on one device)."""
        return True

    def is_deleted(self) -> bool:
        """Whether the buffer was donated or deleted."""
        return bool(self._buf.is_deleted())

    def delete(self) -> None:
        """Free the device buffer now; later uses raise RuntimeError."""
        self._buf.delete()
        self._npy = None

    def block_until_ready(self) -> Array:
        """Wait until the value is computed; returns the array itself.

        A deleted (donated) array raises jaxlib's ``JaxRuntimeError``, as in JAX.
        """
        if self._buf.is_deleted():
            raise _block_error(self.aval)
        self._buf.block_until_ready()
        return self

    def _live_buffer(self) -> Buffer:
        if self._buf.is_deleted():
            raise _deleted_error(self.aval)
        return self._buf

    # -- host values -----------------------------------------------------

    @property
    def _value(self) -> HostArray:
        npy = self._npy
        if npy is None:
            npy = _xla.to_numpy(self._live_buffer())
            npy.flags.writeable = False
            self._npy = npy
        return npy

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> HostArray:
        if is_extended(self.aval.dtype):
            raise TypeError(
                "Array with PRNG key dtype cannot be converted to a NumPy array. Use "
                "random.key_data(arr) if you wish to extract the underlying integer array."
            )
        value = self._value
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        if copy:
            return value.copy()
        return value

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """Export the buffer as a DLPack capsule (the array API's signature, as ``jax.Array``'s).

        A versioned export (``max_version``, ``dl_device`` or ``copy`` given) of
        a CPU array goes through its host view, which DLPack 1.0 marks read-only.
        """
        versioned = max_version is not None or dl_device is not None or copy is not None
        if versioned and stream is None and self.device.platform == "cpu":
            return self._value.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)
        return _xla.to_dlpack(self._live_buffer())

    def __dlpack_device__(self) -> tuple[int, int]:
        platform = _xla.device_platform(self.device)
        kind = {"cpu": 1, "gpu": 2, "cuda": 2, "rocm": 10}.get(platform, 1)
        return kind, int(self.device.local_hardware_id or 0)

    def tolist(self) -> Any:
        """The value as nested Python lists of Python scalars."""
        if is_extended(self.aval.dtype):  # as JAX's key arrays, which lack it
            raise AttributeError(
                "PRNG key arrays have no attribute 'tolist'; use "
                "random.key_data(keys).tolist() for their uint32 data."
            )
        return self._value.tolist()

    def item(self, *args: int) -> bool | int | float | complex:
        """The single element (or the element at ``args``) as a Python scalar."""
        if is_extended(self.aval.dtype):
            raise NotImplementedError(
                "Cannot call abstract method item on a PRNG key array; use "
                "random.key_data(keys) for its uint32 data."
            )
        out: bool | int | float | complex = self._value.item(*args)
        return out

    def copy(self) -> Array:
        """A new array with the same value, on the same device."""
        buf = _xla.device_put(self._value, self.device)
        return Array(buf, self.aval, self._committed)

    def clone(self) -> Array:
        """A new array object over the same (immutable) device buffer, as JAX's.

        A subclass (a sharded array) returns its ``copy()``, with the same layout.
        """
        if type(self) is not Array:
            return self.copy()
        return Array(self._live_buffer().clone(), self.aval, self._committed)

    def to_device(self, device: object, *, stream: object = None) -> Array:
        """A copy committed to ``device`` (a device or a sharding); ``stream`` must be None."""
        if stream is not None:
            raise NotImplementedError("stream argument of array.to_device()")
        out: Array = device_put(self, device)
        return out

    @property
    def format(self) -> Format:
        """The array's device layout and sharding (a deleted array has no layout)."""
        if self.is_deleted():
            return Format(None, self.sharding)
        return Format(layout_of(self._whole_buffer()), self.sharding)

    def __reduce__(self) -> tuple[Any, ...]:
        if is_extended(self.aval.dtype):  # key arrays keep their dtype (their data travels)
            return (_unpickle, (self._value.copy(), False, self.aval.dtype))
        return (_unpickle, (self._value.copy(), self.aval.weak_type))

    # -- Python conversions (the array is concrete) ----------------------

    def __bool__(self) -> bool:
        if is_extended(self.aval.dtype):
            raise TypeError("key array cannot be converted to boolean.")
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __index__(self) -> int:
        if not np.issubdtype(self.aval.dtype, np.integer):
            raise TypeError(
                f"only integer arrays can be used as an index, got {self.aval.dtype.name}; "
                f"convert with x.astype(int) first."
            )
        return int(self._value)

    def __format__(self, spec: str) -> str:
        if self.aval.shape or is_extended(self.aval.dtype):  # a key's text, as ``str``
            return format(str(self), spec)
        return format(self._value.item(), spec)

    def __str__(self) -> str:
        if is_extended(self.aval.dtype):
            return _format_keys(self._value, self.aval)
        return str(self._value)

    def __repr__(self) -> str:
        if is_extended(self.aval.dtype):
            return _format_keys(self._value, self.aval)
        # A deleted (donated) array raises RuntimeError from ``_value``, as in JAX.
        return _format_repr(self._value, self.aval)


_new = object.__new__


def make_array(buf: Buffer, aval: ShapedArray, committed: bool, sig: int, /) -> Array:
    """``Array(buf, aval, committed)`` for a caller that already knows its signature.

    Args:
      buf: the device buffer.
      aval: its abstract value.
      committed: whether the array is committed to its device.
      sig: ``signature(aval, device, committed)``.

    Returns:
      The :class:`Array`.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> x = tl.device_put(np.float32(2))
      >>> make_array(x._buf, x.aval, False, signature(x.aval))
      Array(2., dtype=float32)
    """
    out: Array = _new(Array)
    out._buf = buf
    out.aval = aval
    out._committed = committed
    out._npy = None
    out._sig = sig
    return out


def single_result(
    aval: ShapedArray, device: Device, committed: bool, /
) -> Callable[[list[Buffer]], Array]:
    """A function making the :class:`Array` of ``aval`` on ``device`` from ``[buf]``.

    The dispatch fast paths hand it to :func:`_xla.runner`, so that running
    and wrapping the single output cost one Python call.

    Args:
      aval: the output's abstract value.
      device: the device the output lands on.
      committed: whether the output is committed to it.

    Returns:
      ``finish(outs) -> Array`` for a one-element list of buffers.

    Example:
      >>> import numpy as np
      >>> import tessela_lowering as tl
      >>> x = tl.device_put(np.float32(2))
      >>> single_result(x.aval, x.device, False)([x._buf])
      Array(2., dtype=float32)
    """
    sig = signature(aval, device, committed)

    def finish(outs: list[Buffer]) -> Array:
        out: Array = _new(Array)
        out._buf = outs[0]
        out.aval = aval
        out._committed = committed
        out._npy = None
        out._sig = sig
        return out

    return finish


PY_SCALAR_TYPES = frozenset({bool, int, float, complex})
"""The Python scalar types; a leaf of one of them is keyed on its type (``leaf_key``)."""


def leaf_key(x: object, /) -> object:
    """What the dispatch caches key a leaf argument on; TypeError when it is none of theirs.

    An :class:`Array` gives its signature (aval, device, commitment), a NumPy
    array or scalar its ``(dtype, shape)``, a Python scalar its type: with the
    x64 flag, each of these fixes the leaf's aval and how it moves to a device.

    Args:
      x: a leaf argument.

    Returns:
      A hashable key.

    Raises:
      TypeError: ``x`` is something else (a tracer, a container, ...).

    Example:
      >>> import numpy as np
      >>> leaf_key(2.0), leaf_key(np.zeros((2, 3), np.int8))
      (<class 'float'>, (dtype('int8'), (2, 3)))
    """
    kind = type(x)
    value: Any = x  # what the type tests below establish (no cast() call: this is per leaf)
    if kind is Array:
        return value._sig
    if kind is np.ndarray:
        return (value.dtype, value.shape)
    if kind in PY_SCALAR_TYPES:
        return kind
    if isinstance(x, np.generic):
        return (x.dtype, ())
    raise TypeError(f"no dispatch key for {kind.__name__}")


def _format_keys(value: HostArray, aval: ShapedArray) -> str:
    # JAX's form for key arrays: the logical shape and dtype, then the key data.
    return f"Array({aval.shape}, dtype={aval.dtype.name}) overlaying:\n{value}"


def _format_repr(value: HostArray, aval: ShapedArray) -> str:
    prefix = "Array("
    tail = f"dtype={aval.dtype.name}"
    if aval.weak_type:
        tail += ", weak_type=True"
    tail += ")"
    width = int(np.get_printoptions()["linewidth"])
    if value.size == 0:
        body = f"[], shape={value.shape}"
    else:
        body = np.array2string(
            value, prefix=prefix, suffix=",", separator=", ", max_line_width=width
        )
    last_line = len(body) - body.rfind("\n") + 1
    sep = " " * len(prefix) if last_line + len(tail) + 1 > width else " "
    if sep != " ":
        sep = "\n" + sep
    return f"{prefix}{body},{sep}{tail}"


def _unpickle(value: HostArray, weak_type: bool, dtype: Any = None) -> Array:
    if dtype is not None:  # a key array: ``value`` is its data
        shape = value.shape[: value.ndim - len(dtype.physical_shape)]
        aval = ShapedArray(shape, dtype, False)
    else:
        aval = ShapedArray(value.shape, value.dtype, weak_type)
    return Array(_xla.device_put(value, get_default_device()), aval, False)


register_aval_handler(Array, lambda a: a.aval)


PutTarget: TypeAlias = Device | SingleDeviceSharding | NamedSharding | None
"""Where :func:`device_put` places a value: a device, a sharding, or ``None`` (the default)."""

_sharded_put: list[Callable[[Any, Any], Any]] = []
"""Where :func:`device_put` sends a sharding over several devices (set by ``_sharded``)."""


def device_put(x: Any, /, device: PutTarget = None) -> Any:
    """Place a value, or every leaf of a pytree, on a device.

    Args:
      x: an :class:`Array`, a NumPy array or scalar, a Python scalar, or a
        pytree of them.
      device: the target device (or a :class:`SingleDeviceSharding`, or a
        ``NamedSharding``, which splits each leaf over its mesh). When
        given, the results are *committed* to it. When ``None``, values from
        the host go uncommitted to the default device and arrays stay where
        they are.

    Returns:
      An :class:`Array` for each leaf, in ``x``'s structure.

    Example:
      >>> import tessela_lowering as tl
      >>> y = tl.device_put(1.5, tl.devices()[0])
      >>> y, y.committed
      (Array(1.5, dtype=float32, weak_type=True), True)
      >>> tl.device_put({"b": 2, "w": [1.0]}, device=tl.devices()[0])["w"]
      [Array(1., dtype=float32, weak_type=True)]
    """
    if isinstance(device, SingleDeviceSharding):
        device = device._device
    if device is not None and not hasattr(device, "client") and _sharded_put:
        # A sharding over several devices (``NamedSharding``): tessela_lowering._sharded.
        return _sharded_put[0](x, device)
    if device is not None and not hasattr(device, "client"):
        raise TypeError(
            f"device_put(x, device): device must be a Device such as tessela.devices()[0], "
            f"got {type(device).__name__}."
        )
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic, int, float, complex, bool)):
        return _put_one(x, device)
    return tree_map(lambda leaf: _put_one(leaf, device), x)


def _put_one(x: Any, device: Device | None) -> Any:
    if isinstance(x, Tracer):
        # Under a trace, placement is an equation of the program, as in JAX.
        (out,) = device_put_p.bind(
            x,
            devices=(device,),
            srcs=(None,),
            copy_semantics=(ArrayCopySemantics.REUSE_INPUT,),
        )
        return out
    if isinstance(x, Array):
        if device is None:
            return x
        if x.device == device:
            return x if x.committed else Array(x._live_buffer(), x.aval, True)
        return Array(_xla.copy_to_device(x._live_buffer(), device), x.aval, True)
    aval = get_aval(x)
    host = np.asarray(x, dtype=aval.dtype)
    target = get_default_device() if device is None else device
    return Array(_xla.device_put(host, target), aval, device is not None)


def device_put_impl(
    *xs: ArrayLike,
    devices: Sequence[PutTarget],
    srcs: Sequence[PutTarget],
    copy_semantics: Sequence[ArrayCopySemantics | None],
) -> list[Array]:
    """The eager implementation of ``device_put_p``: :func:`device_put` of each operand.

    Args:
      xs: the operands (arrays, NumPy values, Python scalars).
      devices: one target device (or ``None``) per operand.
      srcs: the source devices (unused).
      copy_semantics: the copy semantics (arrays are immutable: a reused
        buffer is never observed).

    Returns:
      One :class:`Array` per operand.

    Example:
      >>> import numpy as np
      >>> device_put_impl(np.int8(3), devices=(None,), srcs=(None,), copy_semantics=(None,))
      [Array(3, dtype=int8)]
    """
    del srcs, copy_semantics
    return [_put_to(x, d) for x, d in zip(xs, devices, strict=True)]


def _put_to(x: ArrayLike, target: PutTarget) -> Any:
    # A target of device_put_p is a device, a SingleDeviceSharding or a sharding over a mesh.
    if isinstance(target, SingleDeviceSharding):
        return _put_one(x, target._device)
    if target is not None and not hasattr(target, "client") and _sharded_put:
        return _sharded_put[0](x, target)
    return _put_one(x, target)


def device_get(x: Any, /) -> Any:
    """Copy arrays back to the host as NumPy arrays.

    Args:
      x: an :class:`Array`, or a list/tuple/dict nesting of them (other leaves
        pass through unchanged).

    Returns:
      The same structure with every :class:`Array` replaced by a NumPy array.

    Example:
      >>> import tessela_lowering as tl
      >>> tl.device_get({"a": tl.device_put(2)})
      {'a': array(2, dtype=int32)}
    """
    if isinstance(x, Array):
        # Key arrays have no NumPy form: they come back as they are, as in JAX.
        return x if is_extended(x.aval.dtype) else np.array(x._value)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(device_get(v) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(device_get(v) for v in x)
    if isinstance(x, dict):
        return type(x)({k: device_get(v) for k, v in x.items()})
    return x
