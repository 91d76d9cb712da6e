"""Sorting and searching: ``sort``, ``argsort``, ``searchsorted``, ``nanargmin``/``nanargmax``.

``sort`` and ``argsort`` bind one ``sort`` primitive (``argsort`` sorts an
``iota`` along as a value operand) inside a staged ``jit`` named as JAX names
it. ``searchsorted`` compares with the total order of the ``sort`` primitive:
``-0.0`` equals ``0.0`` and NaN sorts after ``inf``.
"""

from __future__ import annotations

import math
import operator
from typing import Any, cast

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, DTypeLike, unchanged

from ._arrays import aval_of, check_arraylike, dtype_arg, promote_dtypes, shape_of
from ._reductions import all as _all
from ._reductions import argmax as _argmax
from ._reductions import argmin as _argmin
from ._search import searchsorted_impl
from ._shapes import canonicalize_axis
from ._ufuncs import isnan
from ._where import where

__all__ = ["argsort", "nanargmax", "nanargmin", "searchsorted", "sort"]


def _check_kind_order(name: str, kind: Any, order: Any) -> None:
    if kind is not None:
        raise TypeError(
            f"'kind' argument to {name} is not supported. Use stable=True or stable=False "
            "to specify sort stability."
        )
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")


def _flat_axis(a: Any, axis: int | None) -> tuple[Any, int]:
    if axis is None:
        shape = shape_of(a)
        if len(shape) != 1:
            a = lax.reshape(a, (math.prod(shape),))
        return a, 0
    return a, canonicalize_axis(operator.index(axis), len(shape_of(a)))


def sort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    kind: None = None,
    order: None = None,
    stable: bool = True,
    descending: bool = False,
) -> Array:
    """A sorted copy of an array.

    Args:
      a: the array to sort.
      axis: the axis to sort along; ``None`` sorts the flattened array.
      kind: not supported (use ``stable``).
      order: not supported.
      stable: whether equal elements keep their order.
      descending: sort from largest to smallest.

    Returns:
      The sorted array; NaNs sort last (first when ``descending``).

    Raises:
      TypeError: ``kind`` or ``order`` is given.

    >>> import numpy as np
    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: sort(x, axis=None), ShapeDtypeStruct((3, 4), "float32")).shape
    (12,)
    """
    check_arraylike("sort", a)
    _check_kind_order("sort", kind, order)
    return unchanged(_sort_jit(a, axis, bool(stable), bool(descending)))


def _sort(a: Any, axis: int | None, stable: bool, descending: bool) -> Any:
    a, dim = _flat_axis(a, axis)
    out = lax.sort(a, dimension=dim, is_stable=stable)
    return lax.rev(out, (dim,)) if descending else out


_sort.__name__ = _sort.__qualname__ = "sort"
_sort_jit = jit(_sort, static_argnums=(1, 2, 3))


def argsort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    kind: None = None,
    order: None = None,
    stable: bool = True,
    descending: bool = False,
    dtype: DTypeLike | None = None,
) -> Array:
    """The indices that sort an array.

    Args:
      a: the array to sort.
      axis: the axis to sort along; ``None`` sorts the flattened array.
      kind: not supported (use ``stable``).
      order: not supported.
      stable: whether equal elements keep their order (also when ``descending``).
      descending: sort from largest to smallest.
      dtype: the index dtype; by default the default integer dtype.

    Returns:
      An integer array of ``a``'s shape (flattened when ``axis`` is ``None``).

    Raises:
      TypeError: ``kind`` or ``order`` is given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(argsort, ShapeDtypeStruct((3, 4), "float32")).dtype
    dtype('int32')
    """
    check_arraylike("argsort", a)
    _check_kind_order("argsort", kind, order)
    return unchanged(_argsort_jit(a, axis, bool(stable), bool(descending), dtype_arg(dtype)))


def _argsort(
    a: Any, axis: int | None, stable: bool, descending: bool, dtype: np.dtype[Any] | None
) -> Any:
    a, dim = _flat_axis(a, axis)
    shape = shape_of(a)
    if dtype is None:
        dtype = _dt.canonicalize_dtype(np.int64)
    iota = lax.broadcasted_iota(dtype, shape, dim)
    if descending and stable:
        a = lax.rev(a, (dim,))
        iota = lax.rev(iota, (dim,))
    _, indices = lax.sort((a, iota), dimension=dim, is_stable=stable, num_keys=1)
    return lax.rev(indices, (dim,)) if descending else indices


_argsort.__name__ = _argsort.__qualname__ = "argsort"
_argsort_jit = jit(_argsort, static_argnums=(1, 2, 3, 4))


def _nanarg(name: str, a: Any, axis: Any, out: Any, keepdims: bool | None) -> Any:
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    check_arraylike(name, a)
    ax = None if axis is None else operator.index(axis)
    fn = _nanargmin_jit if name == "nanargmin" else _nanargmax_jit
    return fn(a, ax, bool(keepdims))


def nanargmin(
    a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
) -> Array:
    """The index of the minimum, ignoring NaNs.

    Args:
      a: the array.
      axis: the axis to reduce; ``None`` reduces the flattened array.
      out: not supported.
      keepdims: keep the reduced axis with size one.

    Returns:
      The indices; ``-1`` where every entry along ``axis`` is NaN.

    Raises:
      NotImplementedError: ``out`` is given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: nanargmin(x, axis=1), ShapeDtypeStruct((3, 4), "float32")).shape
    (3,)
    """
    return unchanged(_nanarg("nanargmin", a, axis, out, keepdims))


def nanargmax(
    a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
) -> Array:
    """The index of the maximum, ignoring NaNs.

    Args:
      a: the array.
      axis: the axis to reduce; ``None`` reduces the flattened array.
      out: not supported.
      keepdims: keep the reduced axis with size one.

    Returns:
      The indices; ``-1`` where every entry along ``axis`` is NaN.

    Raises:
      NotImplementedError: ``out`` is given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(nanargmax, ShapeDtypeStruct((3, 4), "float32")).dtype
    dtype('int32')
    """
    return unchanged(_nanarg("nanargmax", a, axis, out, keepdims))


def _nanargmin(a: Any, axis: int | None, keepdims: bool) -> Any:
    if not _dt.issubdtype(aval_of(a).dtype, np.inexact):
        return _argmin(a, axis=axis, keepdims=keepdims)
    nan_mask = isnan(a)
    a = where(nan_mask, np.inf, a)
    res = _argmin(a, axis=axis, keepdims=keepdims)
    return where(_all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


def _nanargmax(a: Any, axis: int | None, keepdims: bool) -> Any:
    if not _dt.issubdtype(aval_of(a).dtype, np.inexact):
        return _argmax(a, axis=axis, keepdims=keepdims)
    nan_mask = isnan(a)
    a = where(nan_mask, -np.inf, a)
    res = _argmax(a, axis=axis, keepdims=keepdims)
    return where(_all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


_nanargmin_jit = jit(_nanargmin, static_argnums=(1, 2))
_nanargmax_jit = jit(_nanargmax, static_argnums=(1, 2))

_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def searchsorted(
    a: ArrayLike,
    v: ArrayLike,
    side: str = "left",
    sorter: ArrayLike | None = None,
    *,
    method: str = "scan",
) -> Array:
    """Where to insert ``v`` into the sorted 1-D array ``a`` to keep it sorted.

    Args:
      a: a 1-D array, sorted unless ``sorter`` is given.
      v: the query values, any shape.
      side: ``"left"`` (first suitable index) or ``"right"`` (last).
      sorter: indices that sort ``a`` (``a[sorter]`` is sorted).
      method: ``"scan"`` (binary search in a loop), ``"scan_unrolled"``,
        ``"sort"`` or ``"compare_all"``; all give the same indices.

    Returns:
      Integer insertion indices of ``v``'s shape.

    Raises:
      ValueError: ``a`` is not 1-D, or ``side`` or ``method`` is unknown.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(searchsorted, s((5,), "float32"), s((2, 3), "float32")).shape
    (2, 3)
    """
    if sorter is None:
        check_arraylike("searchsorted", a, v)
    else:
        check_arraylike("searchsorted", a, v, sorter)
    if len(shape_of(a)) != 1:
        raise ValueError("a should be 1-dimensional")
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'; use 'left' or 'right'")
    if method not in _METHODS:
        raise ValueError(f"invalid argument {method=!r}, expected one of {', '.join(_METHODS)}")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        a = cast(Array, a)[sorter]  # a 1-D array (checked above): Array or np.ndarray
    n = shape_of(a)[0]
    dtype = _dt.canonicalize_dtype(np.int64 if n > np.iinfo(np.int32).max else np.int32)
    return searchsorted_impl(a, v, side, method, dtype, argsort)
