"""Set operations on 1-D arrays and edits of an array's entries, with JAX's semantics.

``intersect1d``, ``setdiff1d``, ``setxor1d`` and ``union1d`` size their result
from the data when called eagerly; under ``jit`` pass ``size=`` (and
``fill_value=``), as JAX requires. ``delete``, ``insert``, ``extract``,
``place``, ``trim_zeros`` and ``mask_indices`` follow ``jax.numpy``.

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(lambda a, b: union1d(a, b, size=4), S((3,), "int32"), S((2,), "int32")).shape
(4,)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, SupportsIndex, cast

import numpy as np
from tessela_tracer import ArrayOps
from tessela_tracer import dtypes as _dt
from tessela_tracer.errors import ConcretizationTypeError, JAXTypeError
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import check_arraylike, promote_dtypes
from ._choose import compress
from ._creation import array, asarray, full, ones, zeros_like
from ._eager import run_whole
from ._ranges import arange
from ._reductions import any as _any
from ._reductions import argmax
from ._reductions import sum as _sum
from ._selection import lexsort
from ._setops import nonzero, unique
from ._shape_ops import concatenate, moveaxis, ravel, reshape
from ._shapes import broadcast_shapes, canonicalize_axis
from ._sorting import argsort, sort
from ._where import clip, where

__all__ = [
    "delete", "extract", "insert", "intersect1d", "mask_indices", "place", "setdiff1d",
    "setxor1d", "trim_zeros", "union1d",
]  # fmt: skip


def _flat_pair(name: str, ar1: Any, ar2: Any) -> tuple[Any, Any]:
    check_arraylike(name, ar1, ar2)
    a1, a2 = promote_dtypes(asarray(ar1), asarray(ar2))
    return ravel(a1), ravel(a2)


def _static_size(size: Any) -> int:
    return operator.index(size)


def _unique_padded(x: Any, assume_unique: bool) -> tuple[Any, Any]:
    """The sorted unique values of 1-D ``x`` padded to ``x.size``, and which are real."""
    n = x.shape[0]
    if assume_unique or n == 0:  # (an empty array has no first value to pad with)
        return x, ones(n, dtype=bool)
    u = unique(x, size=n)
    # unique pads with its smallest value, so the padding repeats u[0].
    n_unique = n + 1 - _sum(u == u[0])
    return u, arange(n) < n_unique


def _host_mask(keep: Any, name: str) -> np.ndarray[Any, Any]:
    """The concrete value of a mask that sizes a result."""
    try:
        return np.asarray(keep)
    except JAXTypeError:
        raise ConcretizationTypeError(
            keep,
            f"It arose in tessela_numpy.{name}: the size of the result depends on the values. "
            "Pass size= (and fill_value=) to get a result of static size under jit.",
        ) from None


def _compact(
    values: Any, keep: Any, size: int | None, fill_value: Any, name: str = "setops"
) -> Any:
    """``values[keep]``: eagerly from the data, or padded to ``size`` with ``fill_value``."""
    if size is None:
        return values[_host_mask(keep, name)]
    idx = nonzero(keep, size=size, fill_value=0)[0]
    picked = values[idx] if values.shape[0] else zeros_like(values, shape=(size,))
    fill = picked[0] if fill_value is None else asarray(fill_value, dtype=values.dtype)
    return where(arange(size) < _sum(keep), picked, fill)


def _intersect_masks(a1: Any, a2: Any, assume_unique: bool) -> tuple[Any, Any, Any, Any]:
    """The sorted unique values of ``a1`` (padded), their first indices, which
    are in ``a2``, and where in ``a2`` each is first found."""
    n1, n2 = a1.shape[0], a2.shape[0]
    if assume_unique or n1 == 0:
        u1, first1, valid = a1, arange(n1), ones(n1, dtype=bool)
    else:
        u1, first1 = unique(a1, return_index=True, size=n1)
        valid = arange(n1) < n1 + 1 - _sum(u1 == u1[0])
    if n1 == 0 or n2 == 0:
        eq = zeros_like(u1, dtype=bool, shape=(n1, n2))
    else:
        eq = (u1[:, None] == a2[None, :]) & valid[:, None]
    keep = _any(eq, axis=1) if n2 else zeros_like(u1, dtype=bool)
    in2 = argmax(eq, axis=1) if n2 else zeros_like(u1, dtype=np.int32)
    return u1, first1, keep, in2


def intersect1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array | tuple[Array, Array, Array]:
    """The sorted values present in both arrays (flattened).

    Args:
      ar1: an array.
      ar2: an array.
      assume_unique: the inputs hold no repeated values.
      return_indices: also return the first index of each value in each input.
      size: the static length of the result (needed under ``jit``).
      fill_value: pads the result past the intersection (default: its first
        value; indices pad with the input's size).

    Returns:
      The intersection, or ``(values, indices1, indices2)``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: intersect1d(a, b, size=2), S((3,), "f4"), S((5,), "f4")).shape
    (2,)
    """
    a1, a2 = _flat_pair("intersect1d", ar1, ar2)
    size = None if size is None else _static_size(size)
    n1, n2 = a1.shape[0], a2.shape[0]
    u1, first1, keep, in2 = run_whole(
        "intersect1d", _intersect_masks, (a1, a2), bool(assume_unique)
    )
    values = _compact(u1, keep, size, fill_value, "intersect1d")
    if not return_indices:
        return unchanged(values)
    if size is None:
        host = _host_mask(keep, "intersect1d")
        return values, first1[host], in2[host]
    i1 = _compact(first1, keep, size, n1)
    i2 = _compact(in2, keep, size, n2)
    return values, i1, i2


def setdiff1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array:
    """The sorted unique values of ``ar1`` that are not in ``ar2``.

    Args:
      ar1: an array.
      ar2: an array.
      assume_unique: ``ar1`` holds no repeated values (its order is then kept).
      size: the static length of the result (needed under ``jit``).
      fill_value: pads the result (default 0).

    Returns:
      The difference.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: setdiff1d(a, b, size=3), S((4,), "i4"), S((2,), "i4")).dtype
    dtype('int32')
    """
    check_arraylike("setdiff1d", ar1, ar2)
    a1, a2 = ravel(asarray(ar1)), ravel(asarray(ar2))
    size = None if size is None else _static_size(size)
    fill = 0 if fill_value is None else fill_value
    if a1.shape[0] == 0:
        return full((size or 0,), fill, a1.dtype)
    u1, keep = run_whole("setdiff1d", _setdiff_masks, (a1, a2), bool(assume_unique))
    return unchanged(_compact(u1, keep, size, fill, "setdiff1d"))


def _setdiff_masks(a1: Any, a2: Any, assume_unique: bool) -> tuple[Any, Any]:
    u1, valid = _unique_padded(a1, assume_unique)
    keep = valid & ~_any(u1[:, None] == a2[None, :], axis=1) if a2.shape[0] else valid
    return u1, keep


def setxor1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array:
    """The sorted values in exactly one of the two arrays.

    Args:
      ar1: an array.
      ar2: an array.
      assume_unique: the inputs hold no repeated values.
      size: the static length of the result (needed under ``jit``).
      fill_value: pads the result (default: its first value).

    Returns:
      The symmetric difference.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: setxor1d(a, b, size=5), S((4,), "i4"), S((2,), "f4")).dtype
    dtype('float32')
    """
    a1, a2 = _flat_pair("setxor1d", ar1, ar2)
    size = None if size is None else _static_size(size)
    if a1.shape[0] + a2.shape[0] == 0:
        return unchanged(_compact(a1, zeros_like(a1, dtype=bool), size, fill_value))
    cand, keep = run_whole("setxor1d", _setxor_masks, (a1, a2), bool(assume_unique))
    if size is None:
        return unchanged(sort(cand[_host_mask(keep, "setxor1d")]))
    order = lexsort((cand, ~keep))
    return unchanged(_compact(cand[order], keep[order], size, fill_value, "setxor1d"))


def union1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array:
    """The sorted unique values of both arrays together.

    Args:
      ar1: an array.
      ar2: an array.
      size: the static length of the result (needed under ``jit``).
      fill_value: pads the result (default: its smallest value).

    Returns:
      The union.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: union1d(a, b, size=9), S((4,), "i4"), S((2,), "i4")).shape
    (9,)
    """
    check_arraylike("union1d", ar1, ar2)
    size = None if size is None else _static_size(size)
    both = concatenate([ravel(asarray(ar1)), ravel(asarray(ar2))])
    return unchanged(unique(both, size=size, fill_value=fill_value))


def _setxor_masks(a1: Any, a2: Any, assume_unique: bool) -> tuple[Any, Any]:
    u1, v1 = _unique_padded(a1, assume_unique)
    u2, v2 = _unique_padded(a2, assume_unique)
    in2 = _any((u1[:, None] == u2[None, :]) & v2[None, :], axis=1)
    in1 = _any((u2[:, None] == u1[None, :]) & v1[None, :], axis=1)
    return concatenate([u1, u2]), concatenate([v1 & ~in2, v2 & ~in1])


def delete(
    arr: ArrayLike,
    obj: ArrayLike | slice | Sequence[int],
    axis: int | None = None,
    *,
    assume_unique_indices: bool = False,
) -> Array:
    """``arr`` without the entries ``obj`` selects along ``axis``.

    Args:
      arr: an array (flattened when ``axis`` is None).
      obj: an integer, a slice, an integer array or a boolean mask.
      axis: the axis to delete along.
      assume_unique_indices: ``obj`` holds distinct integers; then it may be
        traced (the deletion compiles under ``jit``).

    Returns:
      The shortened array.

    Raises:
      ValueError: a boolean ``obj`` has the wrong shape, or ``obj`` has another dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: delete(x, 1, axis=1), S((2, 4), "f4")).shape
    (2, 3)
    """
    check_arraylike("delete", arr)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    lead = (slice(None),) * axis
    if not isinstance(obj, ArrayOps | np.ndarray | slice | list | tuple):
        try:
            i = operator.index(cast(SupportsIndex, obj))  # a float raises TypeError
        except TypeError:
            pass
        else:
            i = canonicalize_axis(i, n)
            return unchanged(
                concatenate([a[(*lead, slice(0, i))], a[(*lead, slice(i + 1, None))]], axis)
            )
    if isinstance(obj, slice):
        obj, assume_unique_indices = np.arange(n)[obj], True
    idx = obj if isinstance(obj, ArrayOps) else np.asarray(obj)
    if _dt.issubdtype(idx.dtype, np.integer) and assume_unique_indices:
        o = ravel(asarray(idx))
        o = sort(clip(where(o < 0, o + n, o), 0, n))
        o = o - arange(o.shape[0], dtype=o.dtype)
        kept = arange(n - o.shape[0], dtype=o.dtype)
        kept = kept + _sum(kept[None, :] >= o[:, None], axis=0, dtype=kept.dtype)
        return unchanged(a[(*lead, kept)])
    host = np.asarray(idx)
    if _dt.issubdtype(host.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[host] = False
    elif host.dtype == bool:
        if host.shape != (n,):
            raise ValueError(
                "np.delete(arr, obj): for boolean indices, obj must be one-dimensional "
                "with length matching specified axis."
            )
        mask = ~host
    else:
        raise ValueError(
            f"np.delete(arr, obj): got obj.dtype={host.dtype}; must be integer or bool."
        )
    return unchanged(a[(*lead, mask)])


def insert(
    arr: ArrayLike,
    obj: int | slice | Sequence[int] | ArrayLike,
    values: ArrayLike,
    axis: int | None = None,
) -> Array:
    """``arr`` with ``values`` inserted before the positions ``obj`` along ``axis``.

    Args:
      arr: an array (flattened when ``axis`` is None).
      obj: an integer, a slice or a 1-D integer array of positions.
      values: the values, broadcast to the inserted shape and cast to ``arr``'s dtype.
      axis: the axis to insert along.

    Returns:
      The longer array.

    Raises:
      ValueError: ``obj`` has more than one axis or is not integer-typed.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: insert(x, 1, 0.0, axis=0), S((2, 4), "f4")).shape
    (3, 4)
    """
    check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(operator.index(axis), a.ndim)
    n_input = a.shape[axis]
    indices: Any
    if isinstance(obj, slice):
        indices = np.arange(*obj.indices(n_input))
    else:
        indices = obj if isinstance(obj, ArrayOps) else np.asarray(obj)
    if indices.ndim > 1:
        raise ValueError(
            f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}"
        )
    if not _dt.issubdtype(indices.dtype, np.integer):
        if indices.size == 0 and not isinstance(obj, ArrayOps):
            indices = indices.astype(np.int32)
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    vals = array(values, ndmin=a.ndim, dtype=a.dtype)
    if indices.size == 1:
        index = ravel(indices)[0]
        if indices.ndim == 0:
            vals = moveaxis(vals, 0, axis)
        indices = full((vals.shape[axis],), index)
    n_insert = broadcast_shapes(indices.shape, (vals.shape[axis],))[0]
    out_shape = list(a.shape)
    out_shape[axis] += n_insert
    out = zeros_like(a, shape=tuple(out_shape))
    indices = clip(where(indices < 0, indices + n_input, indices), 0, n_input)
    # Each insertion moves right by the number of insertions sorted before it.
    rank = argsort(argsort(indices, stable=True), stable=True).astype(indices.dtype)
    values_ind = indices + rank
    arr_mask = ones(n_input + n_insert, dtype=bool).at[values_ind].set(False)
    arr_ind = nonzero(arr_mask, size=n_input)[0]
    lead = (slice(None),) * axis
    out = out.at[(*lead, values_ind)].set(vals)
    return unchanged(out.at[(*lead, arr_ind)].set(a))


def extract(
    condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: ArrayLike = 0
) -> Array:
    """The entries of ``arr`` (flattened) where ``condition`` (flattened) is true.

    Args:
      condition: a mask, flattened.
      arr: an array, flattened.
      size: the static length of the result (needed under ``jit``).
      fill_value: pads the result past the selected entries.

    Returns:
      The selected entries.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda c, x: extract(c, x, size=3), S((2, 2), "bool"), S((2, 2), "f4")).shape
    (3,)
    """
    check_arraylike("extract", condition, arr, fill_value)
    return unchanged(
        compress(ravel(asarray(condition)), ravel(asarray(arr)), size=size, fill_value=fill_value)
    )


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Array:
    """``arr`` with the entries where ``mask`` is true replaced by ``vals`` (cycled).

    Args:
      arr: an array.
      mask: a mask of ``arr``'s size.
      vals: the values, used in order and repeated as needed.
      inplace: must be False (arrays are immutable), as in JAX.

    Returns:
      The updated array.

    Raises:
      ValueError: ``inplace`` is true, the sizes differ or ``vals`` is empty.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> f = lambda x, m: place(x, m, 0.0, inplace=False)
    >>> eval_shape(f, S((2, 2), "f4"), S((2, 2), "bool")).shape
    (2, 2)
    """
    check_arraylike("place", arr, mask, vals)
    data, mask_arr, vals_arr = asarray(arr), asarray(mask), ravel(asarray(vals))
    if inplace:
        raise ValueError(
            "jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. "
            "Pass inplace=False to instead return an updated array."
        )
    if data.size != mask_arr.size:
        raise ValueError("place: arr and mask must be the same size")
    if not vals_arr.size:
        raise ValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    n = mask_arr.size
    indices = nonzero(ravel(mask_arr), size=n, fill_value=n)[0]
    reps = -(-n // vals_arr.size)
    tiled = concatenate([vals_arr] * reps)[:n] if reps > 1 else vals_arr[:n]
    return unchanged(reshape(ravel(data).at[indices].set(tiled, mode="drop"), data.shape))


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Array:
    """``filt`` without its leading (``"f"``) and trailing (``"b"``) zeros.

    Args:
      filt: a concrete array.
      trim: ``"f"``, ``"b"`` or ``"fb"``.
      axis: the axes to trim (default all).

    Returns:
      The trimmed array.

    >>> import numpy as np
    >>> trim_zeros(np.array([0, 0, 1, 2, 0])).shape
    (2,)
    """
    check_arraylike("trim_zeros", filt)
    x = np.asarray(filt)
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    axis_set = {canonicalize_axis(operator.index(ax), x.ndim) for ax in axes}
    low = trim.lower()
    if not axis_set or ("f" not in low and "b" not in low):
        return asarray(filt)
    index = []
    for ax in range(x.ndim):
        if ax not in axis_set:
            index.append(slice(None))
            continue
        nz = np.asarray(x.any(axis=tuple(i for i in range(x.ndim) if i != ax)))
        if not nz.any():
            index.append(slice(0, 0))
            continue
        start = int(nz.argmax()) if "f" in low else None
        stop = x.shape[ax] - int(nz[::-1].argmax()) if "b" in low else None
        index.append(slice(start, stop))
    return unchanged(asarray(filt)[tuple(index)])


def mask_indices(
    n: int, mask_func: Callable[[Array, int], ArrayLike], k: int = 0, *, size: int | None = None
) -> tuple[Array, Array]:
    """The indices of the nonzero entries of ``mask_func(ones((n, n)), k)``.

    Args:
      n: the matrix size.
      mask_func: a function such as ``triu`` or ``tril``.
      k: its offset argument.
      size: the static number of indices (needed under ``jit``).

    Returns:
      Row and column indices.

    >>> from tessela_tracer import eval_shape
    >>> from tessela_numpy import triu
    >>> [i.shape for i in eval_shape(lambda: mask_indices(3, triu, 1, size=3))]
    [(3,), (3,)]
    """
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j
