"""Array methods with JAX's signatures that forward to this package's functions.

``x.argsort()``, ``x.sort()``, ``x.take(i)``, ``x.diagonal()``,
``x.searchsorted(v)``, ``x.nonzero()``, ``x.ptp()``, ``x.trace()``,
``x.compress(c)``, ``x.choose(cs)`` and ``x.argpartition(k)`` call the
functions of the same name (keyword-only and positional parameters as on
``jax.Array``); ``x.view(dtype)`` reinterprets the bits, as JAX's does;
``x.byteswap()`` reverses each element's bytes and ``x.to_device(d)`` binds
``device_put`` (both also on tracers, as in JAX). The
table of :mod:`tessela_numpy._methods` maps each method name to these.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
from tessela_tracer import ArrayCopySemantics, lax
from tessela_tracer import dtypes as _dt
from tessela_tracer.primitives import device_put_p
from tessela_tracer.typing import Array, ArrayLike, DTypeLike, unchanged

from ._arrays import aval_of, convert, dtype_arg, shape_of
from ._choose import choose, compress
from ._indexing import getitem
from ._matrix_ops import diagonal, trace
from ._reductions import ptp
from ._selection import argpartition
from ._setops import nonzero
from ._shape_ops import reshape
from ._sorting import argsort, searchsorted, sort
from ._take import take

__all__ = ["METHODS", "view"]


def _argpartition(self: Any, kth: int, axis: int = -1) -> Any:
    """Indices that partially sort the array; see :func:`tessela_numpy.argpartition`."""
    return argpartition(self, kth=kth, axis=axis)


def _argsort(
    self: Any,
    axis: int | None = -1,
    *,
    kind: None = None,
    order: None = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """Indices that sort the array; see :func:`tessela_numpy.argsort`."""
    return argsort(self, axis, kind=kind, order=order, stable=stable, descending=descending)


def _choose(self: Any, choices: Sequence[Any], out: None = None, mode: str = "raise") -> Any:
    """Pick from ``choices`` by this index array; see :func:`tessela_numpy.choose`."""
    return choose(self, choices, out=out, mode=mode)


def _compress(
    self: Any,
    condition: Any,
    axis: int | None = None,
    *,
    out: None = None,
    size: int | None = None,
    fill_value: Any = 0,
) -> Any:
    """Slices where ``condition`` is true; see :func:`tessela_numpy.compress`."""
    return compress(condition, self, axis, out=out, size=size, fill_value=fill_value)


def _diagonal(self: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """A diagonal of the array; see :func:`tessela_numpy.diagonal`."""
    return diagonal(self, offset, axis1, axis2)


def _nonzero(self: Any, *, fill_value: Any = None, size: int | None = None) -> tuple[Any, ...]:
    """Indices of the nonzero elements; see :func:`tessela_numpy.nonzero`."""
    return nonzero(self, size=size, fill_value=fill_value)


def _ptp(self: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    """Maximum minus minimum; see :func:`tessela_numpy.ptp`."""
    return ptp(self, axis, out, keepdims)


def _searchsorted(
    self: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan"
) -> Any:
    """Insertion points into this sorted array; see :func:`tessela_numpy.searchsorted`."""
    return searchsorted(self, v, side, sorter, method=method)


def _sort(
    self: Any,
    axis: int | None = -1,
    *,
    kind: None = None,
    order: None = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """A sorted copy; see :func:`tessela_numpy.sort`."""
    return sort(self, axis, kind=kind, order=order, stable=stable, descending=descending)


def _take(
    self: Any,
    indices: Any,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Any:
    """Elements at ``indices``; see :func:`tessela_numpy.take`."""
    return take(
        self,
        indices,
        axis,
        out,
        mode,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        fill_value=fill_value,
    )


def _trace(
    self: Any,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: Any = None,
    out: None = None,
) -> Any:
    """The sum along a diagonal; see :func:`tessela_numpy.trace`."""
    return trace(self, offset, axis1, axis2, dtype, out)


def _bits(dtype: np.dtype[Any]) -> int:
    if dtype == np.dtype(bool):
        bits = 8
    elif _dt.issubdtype(dtype, np.integer):
        bits = int(_dt.iinfo(dtype).bits)
    elif _dt.issubdtype(dtype, np.floating):
        bits = int(_dt.finfo(dtype).bits)
    else:
        bits = dtype.itemsize * 8
    if bits % 8:
        raise NotImplementedError(f"view() of the sub-byte dtype {dtype.name} is not supported")
    return bits


def view(x: ArrayLike, dtype: DTypeLike | None = None, type: None = None) -> Array:
    """The array's bits read as ``dtype`` (``x.view(dtype)``).

    The last axis grows or shrinks by the ratio of the item sizes; a 0-d
    array keeps its item size. Booleans count as one byte; viewing bytes
    other than 0 and 1 as ``bool`` gives ``x != 0``, as JAX does.

    Args:
      x: the array.
      dtype: the new dtype; ``None`` keeps the array's own, as NumPy does.
      type: unsupported; must be ``None``.

    Returns:
      An array of ``dtype``.

    Raises:
      ValueError: the item sizes do not divide the last axis, or a 0-d
        array would change its item size.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: view(x, "int8"), ShapeDtypeStruct((1, 2, 3), "int16")).shape
    (1, 2, 6)
    """
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    in_dt = aval_of(x).dtype
    picked = dtype_arg(dtype)
    out_dt = in_dt if picked is None else picked
    n_in, n_out = _bits(in_dt), _bits(out_dt)
    shape = shape_of(x)
    if not shape:
        if n_in != n_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
        return unchanged(reshape(view(reshape(x, (1,)), out_dt), ()))
    if (shape[-1] * n_in) % n_out:
        raise ValueError(
            "When changing to a larger dtype, its size must be a divisor of the total size "
            "in bytes of the last axis of the array."
        )
    if in_dt == out_dt:
        return unchanged(x)
    if in_dt == np.dtype(bool):
        return view(convert(x, np.dtype(np.uint8)), out_dt)
    if _dt.issubdtype(in_dt, np.complexfloating):
        parts = [lax.expand_dims(p, (len(shape),)) for p in (lax.real(x), lax.imag(x))]
        pairs = lax.concatenate(parts, len(shape))
        return view(reshape(pairs, (*shape[:-1], 2 * shape[-1])), out_dt)
    if out_dt == np.dtype(bool):
        return unchanged(convert(view(x, np.dtype(np.uint8)), out_dt))
    if _dt.issubdtype(out_dt, np.complexfloating):
        part_dt = np.dtype(_dt.finfo(out_dt).dtype)
        flat = view(x, part_dt)
        return lax.complex(
            getitem(flat, (Ellipsis, slice(0, None, 2))),
            getitem(flat, (Ellipsis, slice(1, None, 2))),
        )
    if n_in < n_out:
        factor = n_out // n_in
        grouped = reshape(x, (*shape[:-1], shape[-1] // factor, factor))
        return lax.bitcast_convert_type(grouped, out_dt)
    out = lax.bitcast_convert_type(x, out_dt)
    if n_in > n_out:
        out_shape = shape_of(out)
        out = reshape(out, (*out_shape[:-2], out_shape[-2] * out_shape[-1]))
    return out


def _view(self: Any, dtype: Any = None, type: None = None) -> Any:
    """The bits read as another dtype; see :func:`view`."""
    return view(self, dtype, type)


def _byteswap(self: Any) -> Any:
    """The array with the bytes of each element reversed (little- to big-endian and back).

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(_byteswap, ShapeDtypeStruct((2,), "int32")).dtype
    dtype('int32')
    """
    dtype = aval_of(self).dtype
    if _dt.issubdtype(dtype, np.complexfloating):
        return lax.complex(_byteswap(lax.real(self)), _byteswap(lax.imag(self)))
    if dtype.itemsize == 1:
        return self
    as_bytes = lax.bitcast_convert_type(self, np.dtype(np.uint8))
    return lax.bitcast_convert_type(lax.rev(as_bytes, (len(shape_of(self)),)), dtype)


def _to_device(self: Any, device: Any, *, stream: Any = None) -> Any:
    """The array placed on ``device`` (under a trace, a ``device_put`` equation)."""
    if stream is not None:
        raise NotImplementedError("stream argument of array.to_device()")
    (out,) = device_put_p.bind(
        self, devices=(device,), srcs=(None,), copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
    )
    return out


API_VERSION = "2024.12"
"""The array API standard version the namespace follows."""


def _array_namespace(self: Any, /, *, api_version: str | None = None) -> ModuleType:
    """The array API namespace of arrays and tracers: ``tessela_numpy``.

    >>> _array_namespace(None).__name__
    'tessela_numpy'
    >>> _array_namespace(None, api_version="2021.12")
    Traceback (most recent call last):
    ...
    ValueError: api_version='2021.12' is not available: pass None or '2024.12'
    """
    if api_version not in (None, API_VERSION):
        raise ValueError(
            f"api_version={api_version!r} is not available: pass None or {API_VERSION!r}"
        )
    return sys.modules[__package__]


METHODS: dict[str, Callable[..., Any]] = {
    "__array_namespace__": _array_namespace,
    "byteswap": _byteswap, "to_device": _to_device,
    "argpartition": _argpartition, "argsort": _argsort, "choose": _choose,
    "compress": _compress, "diagonal": _diagonal, "nonzero": _nonzero, "ptp": _ptp,
    "searchsorted": _searchsorted, "sort": _sort, "take": _take, "trace": _trace,
    "view": _view,
}  # fmt: skip
