"""``convolve`` and ``correlate``: 1-D discrete convolution and cross-correlation.

Both run one ``conv_general_dilated`` over the operands laid out as
``(batch=1, feature=1, width)``, staged as JAX stages them (a ``jit`` named
after the function around one named ``_conv``), so their jaxprs print as JAX's.
"""

from __future__ import annotations

from typing import Any

from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.lax import PrecisionLike
from tessela_tracer.typing import Array, ArrayLike, DTypeLike, unchanged

from ._arrays import aval_of, check_arraylike, promote_dtypes, promote_dtypes_inexact
from ._indexing import getitem
from ._shape_ops import flip
from ._ufuncs import conj

__all__ = ["convolve", "correlate"]

_MODES = ("full", "same", "valid")


def _padding(mode: str, width: int) -> tuple[int, int]:
    if mode == "valid":
        return (0, 0)
    if mode == "same":
        return (width // 2, width - width // 2 - 1)
    return (width - 1, width - 1)


def _conv_impl(x: Any, y: Any, mode: str, op: str, precision: Any, preferred: Any) -> Any:
    x, y = promote_dtypes_inexact(x, y) if preferred is None else promote_dtypes(x, y)
    reverse_out = False
    if op == "correlate":
        y = conj(y)
        if aval_of(x).shape[0] < aval_of(y).shape[0]:
            x, y, reverse_out = y, x, True
    else:
        if aval_of(x).shape[0] < aval_of(y).shape[0]:
            x, y = y, x
        y = flip(y)
    out = lax.conv_general_dilated(
        getitem(x, (None, None, slice(None))),
        getitem(y, (None, None, slice(None))),
        (1,),
        [_padding(mode, aval_of(y).shape[0])],
        precision=precision,
        preferred_element_type=preferred,
    )
    return getitem(out, (0, 0, slice(None, None, -1) if reverse_out else slice(None)))


_conv_impl.__name__ = _conv_impl.__qualname__ = "_conv"
_conv = jit(_conv_impl, static_argnums=(2, 3, 4, 5))


def _check(op: str, a: Any, v: Any, mode: str) -> None:
    check_arraylike(op, a, v)
    a_shape, v_shape = aval_of(a).shape, aval_of(v).shape
    if len(a_shape) != 1 or len(v_shape) != 1:
        raise ValueError(
            f"{op}() only support 1-dimensional inputs, got shapes {a_shape} and {v_shape}; "
            "use lax.conv_general_dilated for more dimensions."
        )
    if a_shape[0] == 0 or v_shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {a_shape} and {v_shape}.")
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {list(_MODES)}, got mode={mode!r}.")


def _dtype_or_none(dtype: Any) -> Any:
    return None if dtype is None else _dt.canonicalize_dtype(dtype)


def _convolve_impl(a: Any, v: Any, mode: str, precision: Any, preferred: Any) -> Any:
    return _conv(a, v, mode, "convolve", precision, preferred)


def _correlate_impl(a: Any, v: Any, mode: str, precision: Any, preferred: Any) -> Any:
    return _conv(a, v, mode, "correlate", precision, preferred)


_convolve_impl.__name__ = _convolve_impl.__qualname__ = "convolve"
_correlate_impl.__name__ = _correlate_impl.__qualname__ = "correlate"
_convolve_jit = jit(_convolve_impl, static_argnums=(2, 3, 4))
_correlate_jit = jit(_correlate_impl, static_argnums=(2, 3, 4))


def convolve(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "full",
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """The discrete linear convolution of two 1-D arrays, as ``numpy.convolve``.

    Args:
      a: the first 1-D array-like.
      v: the second 1-D array-like (the shorter one is the kernel either way).
      mode: ``"full"`` (every overlap, length ``n + m - 1``), ``"same"``
        (the length of the longer input) or ``"valid"`` (full overlaps only).
      precision: as for ``lax.conv_general_dilated``.
      preferred_element_type: the accumulation and result dtype; by default
        the inputs' promoted inexact dtype.

    Returns:
      The convolution, 1-D.

    Raises:
      ValueError: an input is not 1-D or is empty, or ``mode`` is unknown.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(convolve, S((5,), "float32"), S((3,), "float32")).shape
    (7,)
    """
    _check("convolve", a, v, mode)
    return unchanged(_convolve_jit(a, v, mode, precision, _dtype_or_none(preferred_element_type)))


def correlate(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "valid",
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """The cross-correlation of two 1-D arrays, as ``numpy.correlate``.

    ``v`` is conjugated; when it is the longer input the result is reversed,
    so ``correlate(a, v)`` always equals NumPy's.

    Args:
      a: the first 1-D array-like.
      v: the second 1-D array-like.
      mode: ``"valid"`` (full overlaps only), ``"same"`` or ``"full"``.
      precision: as for ``lax.conv_general_dilated``.
      preferred_element_type: the accumulation and result dtype; by default
        the inputs' promoted inexact dtype.

    Returns:
      The cross-correlation, 1-D.

    Raises:
      ValueError: an input is not 1-D or is empty, or ``mode`` is unknown.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, v: correlate(a, v, "same"), S((2,), "float32"),
    ...            S((3,), "float32")).shape
    (3,)
    """
    _check("correlate", a, v, mode)
    return unchanged(_correlate_jit(a, v, mode, precision, _dtype_or_none(preferred_element_type)))
