"""``tessela.numpy.__array_namespace_info__``: the array API's inspection object.

As JAX's: the capabilities within transformations (no boolean indexing, no
data-dependent shapes), ``None`` (uncommitted) as the default device, the
array-API dtypes (the 64-bit ones only in 64-bit mode) and the default dtypes
of the current mode.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import tessela_lowering
from tessela_tracer.dtypes import canonicalize_dtype

from ._config import config

__all__ = [
    "ArrayNamespaceInfo", "__array_api_version__", "__array_namespace_info__", "array_namespace",
]  # fmt: skip

__array_api_version__ = "2024.12"


def array_namespace(self: Any, /, *, api_version: str | None = None) -> ModuleType:
    """``x.__array_namespace__()`` of Tessela's arrays and tracers: ``tessela.numpy``.

    Args:
      self: an array or tracer.
      api_version: None or ``"2024.12"``, the standard's version.

    Returns:
      The ``tessela.numpy`` module.

    Raises:
      ValueError: another ``api_version``.

    Example:
        >>> import tessela.numpy as tnp
        >>> tnp.ones(2).__array_namespace__() is tnp
        True
    """
    if api_version not in (None, __array_api_version__):
        raise ValueError(
            f"api_version={api_version!r} is not available: pass None or {__array_api_version__!r}"
        )
    return sys.modules["tessela.numpy"]


_KINDS: dict[str, tuple[str, ...]] = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]
_WIDE = {"int64", "uint64", "float64", "complex128"}


class ArrayNamespaceInfo:
    """Metadata of the ``tessela.numpy`` array namespace (the array API's inspection object).

    Example:
        >>> import tessela.numpy as tnp
        >>> info = tnp.__array_namespace_info__()
        >>> info.default_dtypes()["real floating"], sorted(info.dtypes(kind="bool"))
        (dtype('float32'), ['bool'])
    """

    _capabilities: ClassVar[dict[str, Any]] = {
        "boolean indexing": False,  # within transformations
        "data-dependent shapes": False,  # within transformations
        "max dimensions": 64,  # XLA's limit
    }

    def capabilities(self) -> dict[str, Any]:
        """The namespace's capabilities.

        Returns:
            ``{"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}``.
        """
        return dict(self._capabilities)

    def default_device(self) -> None:
        """The default device: None, arrays are uncommitted by default.

        Returns:
            None.
        """
        return None

    def devices(self) -> list[Any]:
        """``None`` (uncommitted) and every device.

        Returns:
            A list starting with None.
        """
        return [None, *tessela_lowering.devices()]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype[Any]]:
        """The default dtypes of the current mode (32- or 64-bit).

        Args:
            device: ignored (the dtypes are the same on every device).

        Returns:
            The default real, complex, integral and indexing dtypes.
        """
        del device
        integral = np.dtype(canonicalize_dtype(np.int64))
        return {
            "real floating": np.dtype(canonicalize_dtype(np.float64)),
            "complex floating": np.dtype(canonicalize_dtype(np.complex128)),
            "integral": integral,
            "indexing": integral,
        }

    def dtypes(
        self, *, device: Any = None, kind: str | tuple[str, ...] | None = None
    ) -> dict[str, np.dtype[Any]]:
        """The array-API dtypes of a kind (or kinds) that the current mode supports.

        Args:
            device: ignored.
            kind: ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
                ``"integral"``, ``"real floating"``, ``"complex floating"``,
                ``"numeric"``, a tuple of them, or None for every dtype.

        Returns:
            Dtypes by name.

        Raises:
            KeyError: an unknown kind.
        """
        del device
        if kind is None:
            names = _KINDS["numeric"] + _KINDS["bool"]
        elif isinstance(kind, tuple):
            names = tuple(n for k in kind for n in _KINDS[k])
        else:
            names = _KINDS[kind]
        x64 = bool(config.read("jax_enable_x64"))
        return {n: np.dtype(n) for n in names if x64 or n not in _WIDE}


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """The array API's inspection object for ``tessela.numpy``.

    Returns:
        An :class:`ArrayNamespaceInfo`.

    Example:
        >>> import tessela.numpy as tnp
        >>> tnp.__array_namespace_info__().capabilities()["max dimensions"]
        64
    """
    return ArrayNamespaceInfo()
