"""What ``jax.Array`` answers about its device buffer: readiness, size, pointer, layout.

:class:`BufferMethods` is a base of :class:`~tessela_lowering.Array`: each
method asks jaxlib's buffer (``is_ready``, ``platform``,
``on_device_size_in_bytes``, ``unsafe_buffer_pointer``, ``clone``, the
asynchronous host copy, the creation ``traceback``) or the host value
(``tobytes``). :class:`Layout` and :class:`Format` are what ``x.format``
returns, with the reprs of ``jax.Array.format``.
"""

from __future__ import annotations

from typing import Any

from tessela_tracer import ShapedArray

from tessela_lowering._xla import Buffer, HostArray

__all__ = ["BufferMethods", "Format", "Layout", "layout_of"]


class Layout:
    """The memory layout of an array on its device (``major_to_minor`` dimension order).

    Example:
        >>> Layout((1, 0))
        Layout(major_to_minor=(1, 0), tiling=(), sub_byte_element_size_in_bits=0)
    """

    __slots__ = ("major_to_minor", "sub_byte_element_size_in_bits", "tiling")

    def __init__(
        self,
        major_to_minor: tuple[int, ...],
        tiling: tuple[tuple[int, ...], ...] = (),
        sub_byte_element_size_in_bits: int = 0,
    ) -> None:
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = tuple(tuple(t) for t in tiling)
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    def _key(self) -> tuple[Any, ...]:
        return (self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
            f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})"
        )


class Format:
    """An array's layout together with its sharding (``x.format``).

    Example:
        >>> Format(Layout((0,)), None).layout.major_to_minor
        (0,)
    """

    __slots__ = ("layout", "sharding")

    def __init__(self, layout: Layout | None, sharding: Any) -> None:
        self.layout = layout
        self.sharding = sharding

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Format)
            and self.layout == other.layout
            and self.sharding == other.sharding
        )

    def __hash__(self) -> int:
        return hash((self.layout, self.sharding))

    def __repr__(self) -> str:
        return f"Format(layout={self.layout}, sharding={self.sharding})"


def layout_of(buf: Buffer) -> Layout | None:
    """The :class:`Layout` of a live jaxlib buffer (None when its runtime has none).

    Args:
        buf: a jaxlib single-device array.

    Returns:
        Its layout, ``major_to_minor`` being XLA's ``minor_to_major`` reversed.

    Example:
        >>> import numpy as np
        >>> import tessela_lowering as tl
        >>> layout_of(tl.device_put(np.ones((2, 3), np.float32))._buf).major_to_minor
        (0, 1)
    """
    try:
        xla_layout = buf._pjrt_layout._xla_layout()
    except RuntimeError as err:  # jaxlib's runtime error for runtimes without layouts
        if str(err).startswith("UNIMPLEMENTED"):
            return None
        raise
    return Layout(
        tuple(xla_layout.minor_to_major())[::-1],
        tuple(tuple(t) for t in xla_layout.tiling()),
        int(xla_layout.element_size_in_bits()),
    )


class BufferMethods:
    """The buffer-level methods of ``jax.Array`` (a base of the concrete array).

    Example:
        >>> import numpy as np
        >>> import tessela_lowering as tl
        >>> x = tl.device_put(np.arange(3, dtype=np.int32))
        >>> x.is_ready(), x.platform(), x.on_device_size_in_bytes()
        (True, 'cpu', 12)
    """

    __slots__ = ()

    aval: ShapedArray
    _buf: Buffer
    _committed: bool

    def _live_buffer(self) -> Buffer:
        raise NotImplementedError  # the concrete array's own

    def _whole_buffer(self) -> Buffer:
        # jaxlib's array holding every shard: a sharded array's global buffer,
        # else the one device buffer.
        whole = getattr(self, "_global", None)
        if whole is None:
            return self._live_buffer()
        if whole.is_deleted():
            self._live_buffer()  # raises the deleted-array error
        return whole

    @property
    def _value(self) -> HostArray:
        raise NotImplementedError  # the concrete array's own

    def is_ready(self) -> bool:
        """Whether the value has been computed (``block_until_ready`` would not wait).

        Returns:
            True once the device buffer holds the result.

        Example:
            >>> import tessela_lowering as tl
            >>> tl.device_put(1.0).block_until_ready().is_ready()
            True
        """
        return bool(self._whole_buffer().is_ready())

    def platform(self) -> str:
        """The platform of the device holding the array (``"cpu"``, ``"gpu"``, ...).

        Returns:
            The platform name.

        Example:
            >>> import tessela_lowering as tl
            >>> tl.device_put(1.0).platform()
            'cpu'
        """
        return str(self._whole_buffer().platform())

    def on_device_size_in_bytes(self) -> int:
        """The bytes the array takes on its devices (padding included; every shard counted).

        Returns:
            The size in bytes.

        Example:
            >>> import numpy as np
            >>> import tessela_lowering as tl
            >>> tl.device_put(np.zeros(4, np.float32)).on_device_size_in_bytes()
            16
        """
        return int(self._whole_buffer().on_device_size_in_bytes())

    def unsafe_buffer_pointer(self) -> int:
        """The address of the device buffer (valid while the array lives; one shard only).

        Returns:
            The address, as an integer.

        Example:
            >>> import tessela_lowering as tl
            >>> tl.device_put(1.0).unsafe_buffer_pointer() > 0
            True
        """
        return int(self._whole_buffer().unsafe_buffer_pointer())

    def copy_to_host_async(self) -> None:
        """Start copying the value to the host, so that a later ``np.asarray`` need not wait.

        Returns:
            None.

        Example:
            >>> import tessela_lowering as tl
            >>> x = tl.device_put(2.0)
            >>> x.copy_to_host_async()
            >>> float(x)
            2.0
        """
        buf = self._whole_buffer()
        if getattr(self, "_npy", None) is None and len(buf._arrays) == 1:
            buf._copy_single_device_array_to_host_async()

    def tobytes(self, order: str = "C") -> bytes:
        """The raw bytes of the value, as ``numpy.ndarray.tobytes``.

        Args:
            order: ``"C"`` (row-major), ``"F"`` (column-major) or ``"A"``.

        Returns:
            The bytes.

        Example:
            >>> import numpy as np
            >>> import tessela_lowering as tl
            >>> tl.device_put(np.array([1, 2], np.int16)).tobytes()
            b'\\x01\\x00\\x02\\x00'
        """
        return bytes(self._value.tobytes(order))  # type: ignore[arg-type]

    @property
    def traceback(self) -> Any:
        """jaxlib's traceback of where the buffer was made (None when tracebacks are off).

        Example:
            >>> import tessela_lowering as tl
            >>> tl.device_put(1.0).traceback is None
            True
        """
        return self._whole_buffer().traceback
