"""``tessela.dlpack``: arrays from DLPack tensors, as ``jax.dlpack``.

``from_dlpack`` takes any object with ``__dlpack__`` and ``__dlpack_device__``
(NumPy arrays, PyTorch tensors, Tessela arrays, ...), reads it on the host
through NumPy's DLPack import and places it on a device as ``device_put``
does (so 64-bit values become 32-bit unless x64 is on, as in JAX). The result
is always a copy; JAX may share memory with the source instead, which is
only observable by mutating the source, undefined behaviour in JAX.

Example:
    >>> import numpy as np
    >>> from tessela import dlpack
    >>> print(dlpack.from_dlpack(np.arange(3.0)))
    [0. 1. 2.]
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import tessela_lowering
from tessela_tracer.dtypes import bfloat16
from tessela_tracer.typing import Array

from .typing import DTypeLike

__all__ = ["from_dlpack", "is_supported_dtype"]

_SUPPORTED = frozenset(
    np.dtype(t)
    for t in (
        np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
        np.float16, bfloat16, np.float32, np.float64, np.complex64, np.complex128, np.bool_,
    )
)  # fmt: skip


def is_supported_dtype(dtype: DTypeLike) -> bool:
    """Whether arrays of ``dtype`` can cross DLPack (JAX's list).

    Args:
      dtype: a dtype or its name.

    Returns:
      True for the integer, unsigned, float16/bfloat16/float32/float64,
      complex and bool dtypes.

    Raises:
      TypeError: for ``None`` (NumPy would read it as float64).

    Example:
      >>> from tessela.dlpack import is_supported_dtype
      >>> is_supported_dtype("float32"), is_supported_dtype("float8_e4m3fn")
      (True, False)
    """
    if dtype is None:
        raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
    return np.dtype(dtype) in _SUPPORTED


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None) -> Array:
    """A Tessela array with the contents of a DLPack tensor.

    Args:
      external_array: an object with ``__dlpack__`` and ``__dlpack_device__``.
      device: the device (or sharding) to place the result on, committed; by
        default the default device.
      copy: accepted for JAX compatibility; the result is always a copy.

    Returns:
      The array.

    Raises:
      TypeError: if ``external_array`` does not speak DLPack.

    Example:
      >>> import numpy as np
      >>> from tessela.dlpack import from_dlpack
      >>> from_dlpack(np.arange(3)).dtype
      dtype('int32')
    """
    del copy
    if not (hasattr(external_array, "__dlpack__") and hasattr(external_array, "__dlpack_device__")):
        raise TypeError(
            "The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods."
        )
    host = np.from_dlpack(external_array)
    return cast(Array, tessela_lowering.device_put(host, device))
