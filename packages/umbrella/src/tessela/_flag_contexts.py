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
from tessela_tracer import ShapedArray, get_aval
from tessela_tracer.typing import ArrayLike

from ._config import config

__all__ = [
    "FlagContext", "check_tracer_leaks", "checking_leaks", "debug_infs", "debug_nans",
    "default_matmul_precision", "default_prng_impl", "enable_x64", "explain_cache_misses",
    "log_compiles", "numpy_dtype_promotion", "numpy_rank_promotion", "process_indices",
    "threefry_partitionable", "typeof",
]  # fmt: skip

_REQUIRED: Any = object()  # a flag whose context manager needs the new value


def typeof(x: ArrayLike) -> ShapedArray:
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
        """Wrap the flag ``name``.

        Args:
            name: the flag's name.
            default: the value a ``with flag():`` block sets; ``_REQUIRED`` for flags
                whose context manager needs a value (enums, as in JAX).
        """
        self._name = name
        self._default = default

    @property
    def value(self) -> Any:
        """The flag's current value."""
        return config.read(self._name)

    def __call__(self, new_val: Any = _REQUIRED) -> contextlib.AbstractContextManager[None]:
        """Set the flag to ``new_val`` inside a ``with`` block.

        Args:
            new_val: the value inside the block; a boolean flag takes its enabling
                value when it is omitted (or None), other flags need it, as in JAX.

        Returns:
            A context manager that restores the previous value on exit.

        Raises:
            TypeError: ``new_val`` is omitted for a flag that needs it.
        """
        if new_val is _REQUIRED or (new_val is None and self._default is not _REQUIRED):
            if self._default is _REQUIRED:
                short = self._name.removeprefix("jax_")
                raise TypeError(
                    f"Context manager for {short} config option requires an argument "
                    "representing the new value for the config option."
                )
            new_val = self._default
        return self._scope(new_val)

    @contextlib.contextmanager
    def _scope(self, new_val: Any) -> Iterator[None]:
        before = config.read(self._name)
        config.update(self._name, new_val)
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
numpy_rank_promotion = FlagContext("jax_numpy_rank_promotion", _REQUIRED)
numpy_dtype_promotion = FlagContext("jax_numpy_dtype_promotion", _REQUIRED)
default_matmul_precision = FlagContext("jax_default_matmul_precision", _REQUIRED)
default_prng_impl = FlagContext("jax_default_prng_impl", _REQUIRED)
check_tracer_leaks = FlagContext("jax_check_tracer_leaks")


def checking_leaks() -> contextlib.AbstractContextManager[None]:
    """``with checking_leaks():`` checks for leaked tracers inside the block, as ``jax.checking_leaks``.

    Each transformation that finishes inside the block raises ``Exception("Leaked
    trace ...")`` when one of its tracers is still referenced (stored in a global,
    a list, an attribute or a closure) instead of being returned.

    Returns:
        ``check_tracer_leaks(True)``.

    Example:
        >>> import tessela as tx
        >>> kept = []
        >>> with tx.checking_leaks():
        ...     try:
        ...         tx.jit(lambda x: kept.append(x) or x)(1.0)
        ...     except Exception as e:
        ...         print(str(e).split(".")[0])
        Leaked trace JaxprTrace(tag=...)
    """
    return check_tracer_leaks(True)


def process_indices() -> list[int]:
    """The indices of every process (one process: ``[0]``).

    Returns:
        ``list(range(process_count()))``.

    Example:
        >>> process_indices()
        [0]
    """
    return list(range(tessela_lowering.process_count()))
