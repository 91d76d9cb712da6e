"""The concrete-array API of a value without a buffer: what JAX's tracers answer.

:class:`TracedArray` sits between the abstract :class:`~tessela_tracer.typing.Array`
and :class:`~tessela_tracer.Tracer`: ``itemsize`` and ``nbytes`` come from the
abstract value (as for every array); what needs a device buffer raises as in JAX.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from tessela_tracer._array_ops import Array
from tessela_tracer._avals import ShapedArray
from tessela_tracer._errors import ConcretizationTypeError

__all__ = ["TracedArray"]


def _no_buffer(x: Any, what: str) -> ConcretizationTypeError:
    return ConcretizationTypeError(
        x, f"The {what} was called on traced array with shape {x.aval.str_short()}."
    )


def _no_method(x: Any, name: str) -> str:
    return f"The {name!r} method is not available on traced array with shape {x.aval.str_short()}."


def _not_available(x: Any, name: str) -> str:
    return (
        f"The {name!r} attribute is not available on traced array with shape {x.aval.str_short()}."
    )


class TracedArray(Array):
    """What an array without a buffer (a tracer) answers for the concrete-array API.

    As JAX's tracers do: ``itemsize``/``nbytes`` come from the abstract value;
    the methods and properties that need the buffer (``devices()``,
    ``delete()``, ``is_deleted()``, ``addressable_data(i)``, ``tobytes()``,
    ``on_device_size_in_bytes()``, ``unsafe_buffer_pointer()``, ``__dlpack__``,
    ``committed``, ``addressable_shards``, ``global_shards``,
    ``is_fully_addressable``, ``is_fully_replicated``, ``traceback``) raise
    :class:`~tessela_tracer.errors.ConcretizationTypeError`; ``device``,
    ``sharding``, ``block_until_ready`` and ``copy_to_host_async`` raise
    ``AttributeError``, so ``hasattr`` answers False for them.

    Example:
        >>> from tessela_tracer import make_jaxpr
        >>> from tessela_tracer.errors import ConcretizationTypeError
        >>> def f(x):
        ...     try:
        ...         x.devices()
        ...     except ConcretizationTypeError as e:
        ...         print(str(e).splitlines()[1])
        ...     print(x.nbytes, hasattr(x, "device"))
        ...     return x
        >>> _ = make_jaxpr(f)(1.0)
        The devices() method was called on traced array with shape float32[].
        4 False
    """

    __slots__ = ()
    dimension_as_value = None

    def devices(self) -> NoReturn:
        """Raise: a traced array lives on no device yet."""
        raise _no_buffer(self, "devices() method")

    def delete(self) -> None:
        """Raise: a traced array has no buffer to delete."""
        raise _no_buffer(self, "delete() method")

    def is_deleted(self) -> bool:
        """Raise: a traced array has no buffer."""
        raise _no_buffer(self, "is_deleted() method")

    def addressable_data(self, index: int) -> Array:
        """Raise: a traced array has no shards."""
        raise _no_buffer(self, "addressable_data() method")

    def tobytes(self, order: str = "C") -> bytes:
        """Raise: a traced array has no bytes."""
        raise _no_buffer(self, "tobytes() method")

    def on_device_size_in_bytes(self) -> int:
        """Raise: a traced array has no buffer."""
        raise _no_buffer(self, "on_device_size_in_bytes() method")

    def unsafe_buffer_pointer(self) -> int:
        """Raise: a traced array has no buffer."""
        raise _no_buffer(self, "unsafe_buffer_pointer() method")

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        raise _no_buffer(self, "__dlpack__() method")

    @property
    def committed(self) -> bool:
        """Raise: placement is known only for concrete arrays."""
        raise ConcretizationTypeError(self, _not_available(self, "committed"))

    @property
    def addressable_shards(self) -> NoReturn:
        """Raise: a traced array has no shards."""
        raise ConcretizationTypeError(self, _not_available(self, "addressable_shards"))

    @property
    def global_shards(self) -> NoReturn:
        """Raise: a traced array has no shards."""
        raise _no_buffer(self, "global_shards property")

    @property
    def is_fully_addressable(self) -> bool:
        """Raise: known only for concrete arrays."""
        raise _no_buffer(self, "is_fully_addressable property")

    @property
    def is_fully_replicated(self) -> bool:
        """Raise: known only for concrete arrays."""
        raise _no_buffer(self, "is_fully_replicated property")

    @property
    def traceback(self) -> NoReturn:
        """Raise: known only for concrete arrays."""
        raise _no_buffer(self, "traceback property")

    # ``device``, ``sharding``, ``block_until_ready`` and ``copy_to_host_async``
    # raise AttributeError (``hasattr`` is False), as JAX's tracers do, with
    # JAX's text. Properties rather than a ``__getattr__``, which would slow
    # every attribute load on every tracer.
    if not TYPE_CHECKING:  # the type checker sees the declared attributes only

        @property
        def device(self) -> NoReturn:
            raise AttributeError(_not_available(self, "device"))

        @property
        def sharding(self) -> NoReturn:
            raise AttributeError(
                _not_available(self, "sharding")
                + " To query sharding information on tracers, use `jax.typeof(x)`."
            )

        @property
        def block_until_ready(self) -> NoReturn:
            raise AttributeError(_no_method(self, "block_until_ready"))

        @property
        def copy_to_host_async(self) -> NoReturn:
            raise AttributeError(_no_method(self, "copy_to_host_async"))

    # What JAX's tracers of arrays answer for its internal mutable-reference and
    # constant bookkeeping: nothing mutable, no known constant, no parent.
    mutable_qdd = None
    parent = None

    @property
    def aval_mutable_qdd(self) -> ShapedArray:
        """The abstract value (arrays carry no mutable quasi-dynamic data)."""
        aval: ShapedArray = self.aval
        return aval

    def cur_qdd(self) -> None:
        """None: arrays carry no quasi-dynamic data."""
        return None

    def get_const(self) -> None:
        """None: the constant behind a tracer is not exposed."""
        return None

    def full_lower(self) -> TracedArray:
        """The tracer itself (JAX keeps this method for old code)."""
        return self

    def get_referent(self) -> TracedArray:
        """The object identity checks compare: the tracer itself."""
        return self
