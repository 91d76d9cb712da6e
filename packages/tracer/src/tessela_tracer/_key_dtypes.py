"""Extended dtypes: the dtype of typed PRNG key arrays.

JAX gives typed keys (``jax.random.key(0)``) a dtype of their own, an
*extended* dtype that is not a NumPy dtype. Tessela does the same: an array
whose aval has dtype :data:`key_fry` (printed ``key<fry>``) stands for an
array of Threefry keys of that shape. Each key is stored as two ``uint32``
words, so the value of a ``key<fry>[3]`` array lives in a ``uint32[3,2]``
buffer: the key dtype's *physical* shape is ``(2,)`` and its physical dtype
``uint32``. Only the lowering looks at that layout; every other layer sees
the logical shape.

:data:`extended` and :data:`prng_key` are abstract kinds for
``issubdtype``, as ``jax.dtypes.extended`` and ``jax.dtypes.prng_key`` are::

    issubdtype(key_fry, prng_key)   # True
    issubdtype(key_fry, np.integer) # False

This module depends on NumPy only, so that the dtype helpers can use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "ExtendedDType",
    "KeyDType",
    "extended",
    "is_extended",
    "is_key_dtype",
    "key_fry",
    "physical_shape_dtype",
    "prng_key",
]


class extended(np.generic):
    """The abstract kind of every extended dtype (``jax.dtypes.extended``)."""


class prng_key(extended):
    """The abstract kind of PRNG key dtypes (``jax.dtypes.prng_key``)."""


class ExtendedDType:
    """Base class of dtypes that are not NumPy dtypes.

    A subclass sets :attr:`type` to its abstract kind, and :attr:`physical_shape`
    and :attr:`physical_dtype` to the trailing shape and element type of one
    element's storage.

    Example:
        >>> isinstance(key_fry, ExtendedDType)
        True
    """

    __slots__ = ()
    type: type = extended
    name: str
    physical_shape: tuple[int, ...]
    physical_dtype: np.dtype[Any]

    @property
    def itemsize(self) -> int:
        """Bytes per element of the physical storage."""
        n = 1
        for d in self.physical_shape:
            n *= d
        return n * self.physical_dtype.itemsize

    @property
    def kind(self) -> str:
        """A NumPy-like kind code: ``V`` (no NumPy kind matches)."""
        return "V"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


class KeyDType(ExtendedDType):
    """The dtype of typed PRNG keys of one implementation, e.g. ``key<fry>``.

    Args:
      tag: the short name printed between the angle brackets (``fry``).
      impl: the implementation's name (``threefry2x32``).
      key_shape: the physical shape of one key (``(2,)``).

    Example:
        >>> KeyDType("fry", "threefry2x32", (2,))
        key<fry>
        >>> key_fry == "key<fry>", key_fry.itemsize
        (True, 8)
    """

    __slots__ = ("_tag", "impl", "name", "physical_dtype", "physical_shape")
    type = prng_key

    def __init__(self, tag: str, impl: str, key_shape: tuple[int, ...]) -> None:
        self._tag = tag
        self.impl = impl
        self.name = f"key<{tag}>"
        self.physical_shape = tuple(key_shape)
        self.physical_dtype = np.dtype(np.uint32)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeyDType):
            return self.impl == other.impl
        if isinstance(other, str):
            return other in (self.name, self.impl)
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("KeyDType", self.impl))

    def __reduce__(self) -> tuple[Any, ...]:
        return (KeyDType, (self._tag, self.impl, self.physical_shape))


key_fry = KeyDType("fry", "threefry2x32", (2,))
"""The dtype of Threefry-2x32 keys, ``key<fry>``."""


def is_extended(dtype: object, /) -> bool:
    """Whether ``dtype`` is an extended (non-NumPy) dtype.

    Args:
      dtype: any object.

    Returns:
      True for instances of :class:`ExtendedDType`.

    Example:
        >>> is_extended(key_fry), is_extended(np.dtype("float32"))
        (True, False)
    """
    return isinstance(dtype, ExtendedDType)


def is_key_dtype(dtype: object, /) -> bool:
    """Whether ``dtype`` is a PRNG key dtype.

    Args:
      dtype: any object.

    Returns:
      True for instances of :class:`KeyDType`.

    Example:
        >>> is_key_dtype(key_fry)
        True
    """
    return isinstance(dtype, KeyDType)


def physical_shape_dtype(
    shape: tuple[int, ...], dtype: npt.DTypeLike | ExtendedDType, /
) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype of the storage of an array of ``shape`` and ``dtype``.

    Args:
      shape: the logical shape.
      dtype: the logical dtype (a NumPy dtype passes through unchanged).

    Returns:
      ``(shape, dtype)`` of the physical buffer.

    Example:
        >>> physical_shape_dtype((3,), key_fry)
        ((3, 2), dtype('uint32'))
    """
    if isinstance(dtype, ExtendedDType):
        return (*tuple(shape), *dtype.physical_shape), dtype.physical_dtype
    return tuple(shape), np.dtype(dtype)
