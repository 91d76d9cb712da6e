"""Configuration flags and the dtype policy that depends on them.

Two flags matter to the PRNG:

* ``threefry_partitionable`` selects how Threefry counters are laid out
  (``True``: one 64-bit counter per output element, JAX's default; ``False``:
  the legacy scheme that splits a flat counter into two halves).
* ``enable_x64`` allows 64-bit dtypes. Without it, samplers produce 32-bit
  dtypes and an explicit 64-bit request warns and is truncated, as in JAX.

Both read their initial value from the environment
(``JAX_THREEFRY_PARTITIONABLE``/``TESSELA_THREEFRY_PARTITIONABLE`` and
``JAX_ENABLE_X64``/``TESSELA_ENABLE_X64``) and can be changed at run time with
``config.update``.
"""

from __future__ import annotations

import operator
import os
import warnings
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["Config", "FlagSource", "canonical_dtype", "canonical_shape", "config"]


class FlagSource(Protocol):
    """Where :meth:`Config.follow` keeps the flags: ``read`` and ``update`` by name."""

    def read(self, name: str, /) -> Any: ...

    def update(self, name: str, value: Any, /) -> None: ...


_TRUE = frozenset({"1", "true", "yes", "on", "t", "y"})
_FALSE = frozenset({"0", "false", "no", "off", "f", "n", ""})

_DEFAULTS: dict[str, bool] = {
    "threefry_partitionable": True,
    "enable_x64": False,
}


def _env_flag(name: str, default: bool) -> bool:
    for prefix in ("TESSELA_", "JAX_"):
        raw = os.environ.get(prefix + name.upper())
        if raw is None:
            continue
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ValueError(
            f"environment variable {prefix + name.upper()}={raw!r} is not a boolean; "
            "set it to 1/0 or true/false."
        )
    return default


class Config:
    """The flags that change what the PRNG computes.

    Use the module-level instance :data:`tessela_prng.config`; names are accepted
    with a ``jax_`` or ``tessela_`` prefix so that code written for JAX ports
    unchanged.

    Example:
        >>> from tessela_prng import config
        >>> config.threefry_partitionable
        True
    """

    __slots__ = ("_source", "_values")

    def __init__(self) -> None:
        self._values = {name: _env_flag(name, d) for name, d in _DEFAULTS.items()}
        self._source: FlagSource | None = None

    def follow(self, source: FlagSource | None, /) -> None:
        """Keep the flags in ``source`` instead of in this object.

        A larger stack that has one configuration for every package (the
        ``tessela`` umbrella: ``tessela_tracer.config``) makes the PRNG read
        and write its flags there, under their ``jax_`` names, so that there is
        one place where a flag is set. ``None`` goes back to this object's own
        values.

        Args:
            source: an object with ``read(name)`` and ``update(name, value)``
                that defines ``jax_threefry_partitionable`` and
                ``jax_enable_x64``, or None.

        Returns:
            None.

        Example:
            >>> from tessela_prng._config import Config
            >>> shared, own = Config(), Config()
            >>> own.follow(shared)
            >>> shared.update("jax_enable_x64", True)
            >>> own.enable_x64
            True
        """
        if source is not None:
            for name in _DEFAULTS:
                source.read(f"jax_{name}")  # fails now, not at the first sample
        self._source = source

    def _get(self, key: str) -> bool:
        if self._source is not None:
            return bool(self._source.read(f"jax_{key}"))
        return self._values[key]

    @staticmethod
    def _canonical(name: str) -> str:
        for prefix in ("jax_", "tessela_"):
            if name.startswith(prefix):
                name = name[len(prefix) :]
                break
        if name not in _DEFAULTS:
            known = ", ".join(f"'jax_{n}'" for n in _DEFAULTS)
            raise AttributeError(f"Unrecognized config option: {name!r}; known options: {known}.")
        return name

    def update(self, name: str, value: Any, /) -> None:
        """Set a flag.

        Args:
            name: ``"jax_threefry_partitionable"`` or ``"jax_enable_x64"`` (the
                ``tessela_`` prefix or no prefix are accepted too).
            value: the new boolean value.

        Returns:
            None.

        Example:
            >>> from tessela_prng import config
            >>> config.update("jax_threefry_partitionable", False)
            >>> config.threefry_partitionable
            False
            >>> config.update("jax_threefry_partitionable", True)
        """
        key = self._canonical(name)
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(
                f"config.update({name!r}, value): value must be a bool, got {value!r}; "
                "pass True or False."
            )
        if self._source is not None:
            self._source.update(f"jax_{key}", bool(value))
        else:
            self._values[key] = bool(value)

    def read(self, name: str, /) -> bool:
        """Return the current value of a flag.

        Args:
            name: a flag name, with or without the ``jax_``/``tessela_`` prefix.

        Returns:
            The flag's value.

        Example:
            >>> from tessela_prng import config
            >>> config.read("jax_enable_x64")
            False
        """
        return self._get(self._canonical(name))

    @property
    def threefry_partitionable(self) -> bool:
        """Whether the partitionable Threefry counter layout is in use."""
        return self._get("threefry_partitionable")

    @property
    def enable_x64(self) -> bool:
        """Whether 64-bit dtypes are enabled."""
        return self._get("enable_x64")

    def __getattr__(self, name: str) -> bool:
        if name.startswith(("jax_", "tessela_")):
            return self._get(self._canonical(name))
        raise AttributeError(name)

    def __repr__(self) -> str:
        flags = ", ".join(f"jax_{k}={self._get(k)}" for k in _DEFAULTS)
        return f"Config({flags})"


config = Config()


# ----------------------------------------------------------------------------
# dtype policy


_NARROW: dict[np.dtype[Any], np.dtype[Any]] = {
    np.dtype("float64"): np.dtype("float32"),
    np.dtype("int64"): np.dtype("int32"),
    np.dtype("uint64"): np.dtype("uint32"),
    np.dtype("complex128"): np.dtype("complex64"),
}


def default_float() -> np.dtype[Any]:
    return np.dtype("float64" if config.enable_x64 else "float32")


def default_int() -> np.dtype[Any]:
    return np.dtype("int64" if config.enable_x64 else "int32")


def canonical_dtype(dtype: DTypeLike, *, warn: bool = True) -> np.dtype[Any]:
    """Map a user dtype to the dtype the samplers produce under the current flags.

    Python's ``float``/``int`` mean the default float/int width; an explicit
    64-bit dtype without x64 warns and is narrowed to 32 bits, as JAX does.
    """
    if dtype is float:
        return default_float()
    if dtype is int:
        return default_int()
    if dtype is bool:
        return np.dtype(bool)
    dt: np.dtype[Any]
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = np.dtype(str(dtype).rsplit(".", 1)[-1])
    if not config.enable_x64 and dt in _NARROW:
        narrow = _NARROW[dt]
        if warn:
            warnings.warn(
                f"Explicitly requested dtype {dt} is not available, and will be truncated "
                f"to dtype {narrow}. To enable more dtypes, set the jax_enable_x64 "
                "configuration option or the JAX_ENABLE_X64 shell environment variable.",
                UserWarning,
                stacklevel=4,
            )
        return np.dtype(narrow)
    return dt


def canonical_shape(name: str, shape: object) -> tuple[int, ...]:
    """A shape argument as a tuple of non-negative Python ints."""
    if isinstance(shape, Sequence) and not isinstance(shape, str):
        dims = list(shape)
    elif hasattr(shape, "__index__"):
        dims = [shape]
    else:
        raise TypeError(
            f"{name}: shape must be a sequence of integers, got {shape!r}; pass e.g. shape=(3,)."
        )
    try:
        out = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(
            f"{name}: shape must contain only integers, got {shape!r}; pass e.g. shape=(3,)."
        ) from None
    if any(d < 0 for d in out):
        raise ValueError(f"{name}: shape {out} has a negative dimension; every size must be >= 0.")
    return out
