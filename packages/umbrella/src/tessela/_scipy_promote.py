"""dtype promotion shared by ``tessela.scipy``'s modules.

``promote_inexact`` promotes the arguments of a special function as JAX does
(Python scalars stay weak when all are); ``_inexact`` promotes arrays to their
common inexact dtype (integers and booleans to ``float32``, or to ``float64``
where an argument already is); ``_arr`` makes an array of anything with a
dtype; ``_c`` makes a NumPy scalar of an array's dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes as _dtypes
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

from .typing import DTypeLike

__all__ = ["promote_inexact"]

_SCALARS = (bool, int, float, complex, np.generic)


def promote_inexact(name: str, *args: ArrayLike) -> list[Array | float | complex]:
    """Promote ``args`` to their common inexact dtype (integers to the default float).

    Python scalars stay weakly typed when every argument is one, as in JAX.

    Args:
        name: the public function's name, for error messages.
        *args: array-likes.

    Returns:
        The promoted arguments (arrays, or Python floats when all are weak).

    Raises:
        TypeError: for arguments that are not arrays or scalars (lists, strings).
    """
    for i, a in enumerate(args):
        if not (isinstance(a, _SCALARS) or hasattr(a, "dtype") or hasattr(a, "aval")):
            raise TypeError(
                f"{name}: argument {i} of type {type(a).__name__} is not an array; "
                "pass a tessela or NumPy array (e.g. tessela.numpy.asarray(value))."
            )
    dtype, weak = _dtypes.result_type(*args, return_weak_type_flag=True)
    if not _dtypes.issubdtype(dtype, np.inexact):
        dtype = _dtypes.default_float_dtype()
    out: list[Array | float | complex] = []
    for a in args:
        if weak and isinstance(a, (bool, int, float)):
            out.append(float(a))
        elif weak and isinstance(a, complex):
            out.append(a)
        else:
            out.append(_arr(a, dtype=dtype))
    return out


def _arr(x: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    """``tnp.asarray``, but always an object with a dtype (scalars fold to NumPy)."""
    out = tnp.asarray(x, dtype=dtype)
    if not hasattr(out, "dtype"):
        out = lax.convert_element_type(out, dtype if dtype is not None else _dtypes.dtype(out))
    return out


def _inexact(*xs: ArrayLike) -> list[Array]:
    """The arrays of ``xs``, converted to their common inexact dtype."""
    arrays = [tnp.asarray(x) for x in xs]
    dtype = tnp.result_type(*arrays)
    if not _dtypes.issubdtype(dtype, np.inexact):
        dtype = tnp.result_type(dtype, np.float32)
    return [a.astype(dtype) for a in arrays]


def _c(x: Any, value: Any) -> Any:
    """``value`` as a NumPy scalar of ``x``'s dtype."""
    return np.array(value, x.dtype)[()]
