"""``tessela.typing``: the ``jax.typing`` annotations ``ArrayLike`` and ``DTypeLike``, and ``Array``.

``ArrayLike`` is what functions accept as an array: a Tessela array or
tracer, a NumPy array or scalar, or a Python scalar. ``DTypeLike`` is what
names a dtype: a string, a NumPy dtype or scalar type, or an object with a
``dtype`` attribute.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.typing import ArrayLike
    >>> def double(x: ArrayLike) -> tnp.ndarray:
    ...     return tnp.asarray(x) * 2
    >>> print(double(2.0))
    4.0
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias

import numpy as np
from tessela_tracer import Tracer
from tessela_tracer.typing import Array

__all__ = ["Array", "ArrayLike", "DTypeLike"]


class _HasDType(Protocol):
    @property
    def dtype(self) -> Any: ...


ArrayLike: TypeAlias = (
    Array | Tracer | np.ndarray | np.bool_ | np.number | bool | int | float | complex
)
DTypeLike: TypeAlias = str | type[Any] | np.dtype | _HasDType
