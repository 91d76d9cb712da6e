"""``jax.typeof`` and JAX's flag context managers (``jax.enable_x64``, ...).

In JAX a flag such as ``jax_enable_x64`` is also a top-level object:
``with jax.enable_x64(True): ...`` sets it for the block, ``jax.enable_x64.value``
reads it. :class:`FlagContext` is that object over :data:`tessela.config`,
for the flags Tessela's packages define.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import tessela_lowering
from tessela_tracer import get_aval

from ._config import config

__all__ = [
    "FlagContext", "debug_infs", "debug_nans", "enable_x64", "explain_cache_misses",
    "log_compiles", "process_indices", "threefry_partitionable", "typeof",
]  # fmt: skip


def typeof(x: Any) -> Any:
    """The abstract value (shape, dtype, weak type) of ``x``, as ``jax.typeof``.

    Args:
        x: an array, tracer or scalar.

    Returns:
        Its ``ShapedArray``.

    Example:
        >>> import tessela as tx
        >>> print(repr(tx.typeof(1.0)), tx.typeof(tx.numpy.ones((2, 3))))
        ShapedArray(float32[], weak_type=True) float32[2,3]
    """
    return get_aval(x)


class FlagContext:
    """A configuration flag as JAX exposes it at top level: a context manager factory.

    Example:
        >>> import tessela as tx
        >>> with tx.enable_x64(True):
        ...     print(tx.numpy.ones(2).dtype, tx.enable_x64.value)
        float64 True
        >>> print(tx.numpy.ones(2).dtype)
        float32
    """

    __slots__ = ("_default", "_name")

    def __init__(self, name: str, default: Any = True) -> None:
        self._name = name
        self._default = default

    @property
    def value(self) -> Any:
        """The flag's current value."""
        return config.read(self._name)

    @contextlib.contextmanager
    def __call__(self, new_val: Any = None) -> Iterator[None]:
        """Set the flag to ``new_val`` (its enabling value when None) inside a ``with`` block.

        Args:
            new_val: the value inside the block.

        Returns:
            A context manager that restores the previous value on exit.
        """
        before = config.read(self._name)
        config.update(self._name, self._default if new_val is None else new_val)
        try:
            yield
        finally:
            config.update(self._name, before)

    def __repr__(self) -> str:
        return f"FlagContext({self._name!r}, value={self.value!r})"


enable_x64 = FlagContext("jax_enable_x64")
debug_nans = FlagContext("jax_debug_nans")
debug_infs = FlagContext("jax_debug_infs")
log_compiles = FlagContext("jax_log_compiles")
explain_cache_misses = FlagContext("jax_explain_cache_misses")
threefry_partitionable = FlagContext("jax_threefry_partitionable")


def process_indices() -> list[int]:
    """The indices of every process (one process: ``[0]``).

    Returns:
        ``list(range(process_count()))``.

    Example:
        >>> process_indices()
        [0]
    """
    return list(range(tessela_lowering.process_count()))
