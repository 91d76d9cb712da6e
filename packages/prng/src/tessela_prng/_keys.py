"""Typed key arrays, raw keys, and the key-level operations.

A typed key array wraps a ``uint32`` data array of shape ``(*shape, 2)`` and
reports only ``shape``; its dtype prints as ``key<fry>``. Legacy raw keys are
plain ``uint32[..., 2]`` arrays. Every public function accepts both and
returns the kind it was given.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeAlias, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numpy.typing import DTypeLike

from ._config import canonical_dtype, canonical_shape, config
from ._namespace import Namespace, PrngArray, SupportsArray, namespace_of, numpy_xp
from ._threefry import fold_in_data, random_bits_data, seed_data, split_data

__all__ = [
    "KeyArray",
    "KeyLike",
    "PRNGKey",
    "bits",
    "check_key",
    "clone",
    "fold_in",
    "key",
    "key_data",
    "key_impl",
    "register_key_type",
    "split",
    "wrap_key_data",
]

Array: TypeAlias = PrngArray
_T = TypeVar("_T")
_IMPL_NAME = "threefry2x32"


class _KeyDType:
    """The dtype of Threefry key arrays; prints as ``key<fry>``."""

    __slots__ = ()
    name = "key<fry>"
    impl = _IMPL_NAME

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _KeyDType) or other in (self.name, _IMPL_NAME)

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE = _KeyDType()


def _format_data(data: Array) -> str:
    try:
        return str(np.asarray(data))
    except Exception:
        return repr(data)


class KeyArray:
    """An array of Threefry PRNG keys; build one with :func:`key`."""

    __slots__ = ("_data",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, data: Array, /) -> None:
        self._data = data

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self) -> _KeyDType:
        return KEY_DTYPE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized key array (shape ()); split it to get several keys.")
        return self.shape[0]

    def __iter__(self) -> Iterator[KeyArray]:
        for i in range(len(self)):
            yield KeyArray(self._data[i, ...])

    def __getitem__(self, index: Any) -> KeyArray:
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is Ellipsis for i in index):
            raise IndexError(
                "key arrays do not support Ellipsis indexing; index leading axes only."
            )
        return KeyArray(self._data[(*index, slice(None))])

    def reshape(self, *shape: int | Sequence[int]) -> KeyArray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        xp = namespace_of(self._data)
        return KeyArray(xp.reshape(self._data, (*shape, 2)))

    def ravel(self) -> KeyArray:
        return self.reshape(-1)

    flatten = ravel

    def __eq__(self, other: object) -> Any:
        if not isinstance(other, KeyArray):
            return NotImplemented
        xp = namespace_of(self._data)
        return xp.all(self._data == other._data, axis=-1)

    def __ne__(self, other: object) -> Any:
        result = self.__eq__(other)
        if result is NotImplemented:
            return result
        return ~result

    def __repr__(self) -> str:
        return f"Array({self.shape}, dtype={KEY_DTYPE}) overlaying:\n{_format_data(self._data)}"

    __str__ = __repr__


KeyLike: TypeAlias = KeyArray | SupportsArray
"""A key argument: a typed key array (this package's or a registered library's), or raw
``uint32[..., 2]`` key data of any array-API library."""


def _is_uint32(xp: Namespace, dtype: Any) -> bool:
    try:
        return bool(dtype == xp.uint32)
    except Exception:
        return False


_KEY_TYPES: dict[type, Callable[[Any], SupportsArray | None]] = {}


def register_key_type(cls: type[_T], key_data_of: Callable[[_T], SupportsArray | None], /) -> None:
    """Accept another library's typed key arrays wherever a key is expected.

    An array library with its own typed keys (an array whose dtype is a key
    dtype, as ``tessela.random.key`` makes) registers its array class here;
    every function of this package then takes such keys as typed keys, their
    data given by ``key_data_of``.

    Args:
        cls: the array class (subclasses match too).
        key_data_of: returns the ``uint32[..., 2]`` data of an instance that
            holds typed keys, or None for an instance that does not (a raw
            ``uint32`` key of the same class).

    Returns:
        None.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import key, key_data, register_key_type, split
        >>> class Keys:
        ...     def __init__(self, words):
        ...         self.words = words
        >>> register_key_type(Keys, lambda k: k.words)
        >>> mine = split(Keys(np.array([0, 0], np.uint32)))
        >>> key_data(mine).tolist() == key_data(split(key(0))).tolist()
        True
    """
    _KEY_TYPES[cls] = key_data_of


def _registered_key_data(key: Any) -> SupportsArray | None:
    for cls, key_data_of in _KEY_TYPES.items():
        if isinstance(key, cls):
            return key_data_of(key)
    return None


def check_key(name: str, key: object, /, *, allow_batched: bool = False) -> tuple[Array, bool]:
    """Return ``(data, was_typed)`` for a typed or raw key argument of ``name``."""
    foreign = _registered_key_data(key) if _KEY_TYPES else None
    data: Array
    if isinstance(key, KeyArray):
        data, typed = key._data, True
    elif foreign is not None:
        data, typed = cast(Array, foreign), True
    elif hasattr(key, "shape") and hasattr(key, "dtype") and not isinstance(key, np.generic):
        xp = namespace_of(key)
        if len(key.shape) < 1 or key.shape[-1] != 2 or not _is_uint32(xp, key.dtype):
            raise TypeError(
                f"{name}: key must be a key array from key() or a raw uint32 key with "
                f"trailing dimension 2 from PRNGKey(); got an array of shape "
                f"{tuple(key.shape)} and dtype {key.dtype}. Create keys with "
                "tessela_prng.key(seed)."
            )
        data, typed = cast(Array, key), False
    else:
        raise TypeError(
            f"{name}: unexpected PRNG key type {type(key).__name__}; pass a key from "
            "tessela_prng.key(seed) (or a raw key from PRNGKey(seed))."
        )
    if not allow_batched and len(data.shape) > 1:
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape "
            f"{tuple(data.shape[:-1])} != (). Index or split it, or map over the keys."
        )
    return data, typed


def _wrap(data: Array, typed: bool) -> KeyArray | Array:
    return KeyArray(data) if typed else data


def _check_impl(name: str, impl: Any) -> None:
    if impl is None or impl is KEY_DTYPE or impl == _IMPL_NAME:
        return
    if isinstance(impl, str):
        raise ValueError(
            f'{name}: unrecognized PRNG implementation "{impl}". Did you mean one of: '
            f'"{_IMPL_NAME}"?'
        )
    raise TypeError(
        f"{name}: unrecognized type {type(impl).__name__} for impl; pass "
        f'"{_IMPL_NAME}" or leave it as None.'
    )


def _seed_array(name: str, seed: Any) -> Array:
    if isinstance(seed, KeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if isinstance(seed, (bool, np.bool_)):
        seed = int(seed)
    if isinstance(seed, int):
        try:
            wide = np.asarray(np.int64(seed))
        except OverflowError:
            raise OverflowError(
                f"{name}: seed {seed} does not fit in 64 bits; reduce it, e.g. seed % 2**63."
            ) from None
        dt = canonical_dtype(np.int64, warn=False)
        return wide.astype(dt)
    if not hasattr(seed, "dtype"):
        raise TypeError(
            f"{name}: PRNG key seed must be an integer; got {seed!r} of type "
            f"{type(seed).__name__}. Pass an int, e.g. {name}(0)."
        )
    xp = namespace_of(seed)
    if len(getattr(seed, "shape", ())) != 0:
        raise TypeError(
            f"{name} accepts a scalar seed, but was given an array of shape "
            f"{tuple(seed.shape)} != (). Create one key per seed."
        )
    if xp.isdtype(seed.dtype, "bool"):
        return xp.astype(seed, xp.uint32)
    if not xp.isdtype(seed.dtype, "integral"):
        raise TypeError(
            f"{name}: PRNG key seed must be an integer; got {seed!r} with dtype {seed.dtype}. "
            f"Convert it first, e.g. {name}(int(seed))."
        )
    if xp is numpy_xp:
        seed_np: npt.NDArray[np.generic] = np.asarray(seed)
        return seed_np.astype(canonical_dtype(seed_np.dtype, warn=False))
    if not config.enable_x64 and seed.dtype in (xp.int64, xp.uint64):
        return xp.astype(seed, xp.int32 if seed.dtype == xp.int64 else xp.uint32)
    return cast(Array, seed)


def key(seed: int | SupportsArray, /, *, impl: str | None = None) -> KeyArray:
    """Create a typed PRNG key from an integer seed.

    Args:
        seed: a Python, NumPy or array-API integer scalar. Without x64, seeds are
            taken modulo ``2**32`` (as ``int32``); with x64 the high 32 bits give
            the first key word.
        impl: ``None`` or ``"threefry2x32"``.

    Returns:
        A key array of shape ``()``.

    Example:
        >>> from tessela_prng import key
        >>> key(0)
        Array((), dtype=key<fry>) overlaying:
        [0 0]
    """
    _check_impl("key", impl)
    return KeyArray(seed_data(_seed_array("key", seed)))


def PRNGKey(seed: int | SupportsArray, /, *, impl: str | None = None) -> Array:
    """Create a legacy raw key: a ``uint32`` array of shape ``(2,)``.

    Args:
        seed: an integer scalar, as for :func:`key`.
        impl: ``None`` or ``"threefry2x32"``.

    Returns:
        The raw key data.

    Example:
        >>> from tessela_prng import PRNGKey
        >>> PRNGKey(42)
        array([ 0, 42], dtype=uint32)
    """
    _check_impl("PRNGKey", impl)
    return seed_data(_seed_array("PRNGKey", seed))


def key_data(keys: KeyLike, /) -> Array:
    """Return the ``uint32`` data underlying typed or raw keys.

    Args:
        keys: a key array of any shape, or raw key data.

    Returns:
        An array of shape ``(*keys.shape, 2)`` and dtype ``uint32``.

    Example:
        >>> from tessela_prng import key, key_data
        >>> key_data(key(7))
        array([0, 7], dtype=uint32)
    """
    data, _ = check_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array: SupportsArray, /, *, impl: str | None = None) -> KeyArray:
    """Wrap ``uint32`` key data of shape ``(..., 2)`` into a typed key array.

    Args:
        key_bits_array: raw key data in any array namespace.
        impl: ``None`` or ``"threefry2x32"``.

    Returns:
        A key array whose shape is ``key_bits_array.shape[:-1]``.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import wrap_key_data
        >>> wrap_key_data(np.array([0, 7], dtype=np.uint32)).shape
        ()
    """
    _check_impl("wrap_key_data", impl)
    if isinstance(key_bits_array, KeyArray):
        raise TypeError("wrap_key_data: argument is already a key array; pass key_data(keys).")
    data, _ = check_key("wrap_key_data", key_bits_array, allow_batched=True)
    return KeyArray(data)


def key_impl(keys: KeyLike, /) -> str:
    """Return the name of the PRNG implementation of ``keys``.

    Args:
        keys: typed or raw keys.

    Returns:
        ``"threefry2x32"``.

    Example:
        >>> from tessela_prng import key, key_impl
        >>> key_impl(key(0))
        'threefry2x32'
    """
    check_key("key_impl", keys, allow_batched=True)
    return _IMPL_NAME


def clone(key: KeyLike, /) -> KeyArray | Array:
    """Return a copy of ``key`` (keys are immutable; this marks intended reuse).

    Args:
        key: typed or raw keys.

    Returns:
        Keys equal to ``key``, of the same kind.

    Example:
        >>> from tessela_prng import key, clone
        >>> bool(clone(key(1)) == key(1))
        True
    """
    data, typed = check_key("clone", key, allow_batched=True)
    xp = namespace_of(data)
    return _wrap(xp.asarray(data, copy=True), typed)


def split(key: KeyLike, /, num: int | Sequence[int] = 2) -> KeyArray | Array:
    """Split a key into ``num`` new keys (or an array of keys of shape ``num``).

    Args:
        key: a single typed or raw key.
        num: a count or a shape; default 2.

    Returns:
        Keys of shape ``(num,)`` or ``num``, of the same kind as ``key``.

    Example:
        >>> from tessela_prng import key, split
        >>> split(key(0))
        Array((2,), dtype=key<fry>) overlaying:
        [[1797259609 2579123966]
         [ 928981903 3453687069]]
    """
    data, typed = check_key("split", key)
    if isinstance(num, Sequence):
        shape = tuple(operator.index(n) for n in num)
    else:
        shape = (operator.index(num),)
    if any(n < 0 for n in shape):
        raise ValueError(f"split: num must be non-negative, got {num!r}; pass a count >= 0.")
    return _wrap(split_data(data, shape), typed)


def fold_in(key: KeyLike, data: int | SupportsArray, /) -> KeyArray | Array:
    """Fold a 32-bit integer into a key, giving a new key.

    Args:
        key: a single typed or raw key.
        data: an integer scalar; it is taken modulo ``2**32``.

    Returns:
        A new key of the same kind.

    Example:
        >>> from tessela_prng import key, fold_in
        >>> fold_in(key(0), 3)
        Array((), dtype=key<fry>) overlaying:
        [2467461003 3840466878]
    """
    kdata, typed = check_key("fold_in", key)
    xp = namespace_of(kdata)
    if np.ndim(data) if not hasattr(data, "shape") else len(data.shape):
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape {np.shape(data)} != (). "
            "Fold in one value at a time."
        )
    if isinstance(data, (int, np.integer)):
        value = xp.asarray(int(data) & 0xFFFFFFFF, dtype=xp.uint32)
    else:
        value = xp.astype(xp.asarray(data), xp.uint32)
    return _wrap(fold_in_data(kdata, value), typed)


def bits(key: KeyLike, /, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Sample uniform random bits as unsigned integers.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: ``uint8``, ``uint16``, ``uint32`` or (with x64) ``uint64``;
            default ``uint32`` (``uint64`` with x64).

    Returns:
        An array of ``shape`` and ``dtype`` in the key's array namespace.

    Example:
        >>> from tessela_prng import key, bits
        >>> bits(key(0), (2,)).dtype
        dtype('uint32')
    """
    data, _ = check_key("bits", key)
    dt = canonical_dtype(
        np.uint32 if dtype is None and not config.enable_x64 else dtype or np.uint64
    )
    if dt.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt}")
    shp = canonical_shape("bits", shape)
    return random_bits_data(data, dt.itemsize * 8, shp)
