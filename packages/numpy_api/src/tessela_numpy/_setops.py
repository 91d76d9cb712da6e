"""Functions with data-dependent output sizes: ``nonzero``, ``unique``, ``bincount``.

Each output length depends on the values of the input. With a concrete
input (NumPy data, an eager array) the length is computed on the host;
under a trace the caller must give it (``size=`` or ``length=``), and a
missing one raises :class:`~tessela_tracer.errors.ConcretizationTypeError`.
With a static length the computation is shape-static: ``nonzero`` sorts the
mask's complement stably so that the nonzero positions come first, and
``unique`` sorts the rows of the input lexicographically (an ``iota`` rides
along as the permutation) and marks the first row of every run of equal rows.
"""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple, SupportsIndex, overload

import numpy as np
from tessela_tracer import Tracer, lax
from tessela_tracer import dtypes as _dt
from tessela_tracer.errors import ConcretizationTypeError
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, shape_of
from ._eager import run_whole
from ._reductions import any as _any
from ._reductions import cumsum
from ._reductions import sum as _sum
from ._shape_ops import concatenate, moveaxis, reshape, stack
from ._shapes import canonicalize_axis
from ._ufuncs import isnan, logical_and, logical_not, not_equal
from ._where import where as _select

__all__ = [
    "argwhere", "bincount", "flatnonzero", "nonzero", "unique", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "where",
]  # fmt: skip


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def _int_dtype() -> np.dtype[Any]:
    return np.dtype(_dt.canonicalize_dtype(np.int64))


def host_value(x: ArrayLike) -> np.ndarray[Any, Any] | None:
    """``x`` as a NumPy array when its value is known, else ``None`` (a traced value)."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else np.asarray(value)
    return np.asarray(x)


def static_size(value: SupportsIndex, name: str) -> int:
    """A static, non-negative output length given by the caller."""
    size = operator.index(value)
    if size < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {name}={size}")
    return size


def _first_true(mask: Any, n: int, size: int) -> tuple[Any, Any]:
    """Positions of the first ``size`` true entries of a 1-D mask (padded with 0)."""
    idt = _int_dtype()
    count = _sum(mask, dtype=idt)
    valid = lax.lt(lax.iota(idt, size), count)
    if n == 0:
        return lax.full((size,), 0, idt), valid
    key = lax.convert_element_type(logical_not(mask), np.dtype(np.int32))
    _, order = lax.sort((key, lax.iota(idt, n)), dimension=0, is_stable=True, num_keys=1)
    if size <= n:
        order = lax.slice(order, (0,), (size,))
    else:
        order = lax.pad(order, convert(0, idt), ((0, size - n, 0),))
    return _select(valid, order, convert(0, idt)), valid


def nonzero(
    a: ArrayLike,
    *,
    size: int | None = None,
    fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None,
) -> tuple[Array, ...]:
    """The indices of the nonzero elements, one integer array per axis.

    Args:
      a: an array of at least one dimension.
      size: the static number of indices to return; required under ``jit``.
        Beyond the number of nonzero elements the indices are padded, past it
        they are truncated.
      fill_value: the padding, a scalar or one value per axis (default 0).

    Returns:
      A tuple of ``a.ndim`` integer arrays of length ``size`` (or of the number
      of nonzero elements).

    Raises:
      ConcretizationTypeError: ``a`` is traced and ``size`` is not given.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> [r.shape for r in eval_shape(lambda x: nonzero(x, size=4), S((2, 3), "f4"))]
    [(4,), (4,)]
    """
    check_arraylike("nonzero", a)
    shape = shape_of(a)
    if not shape:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use atleast_1d(scalar).nonzero() instead."
        )
    if size is None:
        host = host_value(a)
        if host is None:
            raise ConcretizationTypeError(
                a,
                "The size argument of nonzero must be statically specified to use nonzero "
                "under jit and other transformations: pass size=... (and fill_value=...).",
            )
        size = int(np.count_nonzero(host))
    size = static_size(size, "size")
    n = math.prod(shape)
    flat = lax.reshape(a, (n,)) if len(shape) != 1 else a
    mask = not_equal(flat, convert(0, aval_of(flat).dtype))
    flat_idx, valid = _first_true(mask, n, size)
    idt = _int_dtype()
    coords = []
    stride = n
    for d in shape:
        stride = stride // d if d else 0
        c = lax.div(flat_idx, convert(stride, idt)) if stride > 1 else flat_idx
        coords.append(lax.rem(c, convert(d, idt)) if d > 0 else c)
    if fill_value is not None:
        fills = (
            tuple(fill_value)
            if isinstance(fill_value, tuple | list)
            else (fill_value,) * len(shape)
        )
        if len(fills) != len(shape):
            raise ValueError(
                f"fill_value must be a scalar or a tuple of length {len(shape)} (one per axis "
                f"of a); got a tuple of length {len(fills)}"
            )
        coords = [_select(valid, c, f) for c, f in zip(coords, fills, strict=True)]
    return tuple(coords)


@overload
def where(
    condition: ArrayLike,
    /,
    *,
    size: int | None = None,
    fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None,
) -> tuple[Array, ...]: ...


@overload
def where(
    condition: ArrayLike,
    x: ArrayLike,
    y: ArrayLike,
    /,
    *,
    size: None = None,
    fill_value: None = None,
) -> Array: ...


def where(
    condition: ArrayLike,
    x: ArrayLike | None = None,
    y: ArrayLike | None = None,
    /,
    *,
    size: int | None = None,
    fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None,
) -> Array | tuple[Array, ...]:
    """Choose elements from ``x`` where ``condition`` holds, else from ``y``.

    With ``condition`` alone, ``where`` is :func:`nonzero`: the indices of the
    nonzero elements, one array per axis (under ``jit`` ``size`` must be given).

    Args:
      condition: a boolean array-like (others are compared with zero).
      x: values where ``condition`` is true.
      y: values where ``condition`` is false.
      size: with ``condition`` alone, the static number of indices.
      fill_value: with ``condition`` alone, the padding of the indices.

    Returns:
      An array of the broadcast shape and the promoted dtype of ``x`` and
      ``y``; with ``condition`` alone, a tuple of index arrays.

    Raises:
      TypeError: only one of ``x`` and ``y`` is given.
      ValueError: ``size`` or ``fill_value`` is given with ``x`` and ``y``.
      ConcretizationTypeError: ``condition`` alone is traced and ``size`` is not given.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> [i.shape for i in eval_shape(lambda c: where(c, size=3), S((2, 2), "bool"))]
    [(3,), (3,)]
    >>> eval_shape(where, S((3, 1), "bool"), S((3,), "float32"), 0).shape
    (3, 3)
    """
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise ValueError(
            "size and fill_value arguments cannot be used in three-term where function."
        )
    if x is None or y is None:
        position = 1 if x is None else 2
        raise TypeError(
            f"where requires ndarray or scalar arguments, got {type(None)} at position "
            f"{position}: pass both x and y, or neither."
        )
    return _select(condition, x, y)


def flatnonzero(
    a: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> Array:
    """The indices of the nonzero elements of ``ravel(a)``.

    Args:
      a: an array-like.
      size: the static number of indices; required under ``jit``.
      fill_value: the padding when there are fewer nonzero elements (default 0).

    Returns:
      A 1-D integer array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: flatnonzero(x, size=3), S((2, 2), "int32")).shape
    (3,)
    """
    check_arraylike("flatnonzero", a)
    n = math.prod(shape_of(a))
    return unchanged(nonzero(lax.reshape(a, (n,)), size=size, fill_value=fill_value)[0])


def argwhere(
    a: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> Array:
    """The indices of the nonzero elements as rows of a 2-D array.

    Args:
      a: an array-like (a 0-d array gives shape ``(1, 0)`` or ``(0, 0)``).
      size: the static number of rows; required under ``jit``.
      fill_value: the padding rows' value, a scalar or one per axis.

    Returns:
      An integer array of shape ``(size, a.ndim)``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: argwhere(x, size=5), S((2, 3), "bool")).shape
    (5, 2)
    """
    check_arraylike("argwhere", a)
    shape = shape_of(a)
    a1 = lax.reshape(a, (1,)) if not shape else a
    out = stack(nonzero(a1, size=size, fill_value=fill_value), axis=-1)
    return reshape(out, (shape_of(out)[0], len(shape)))


def _host_unique_count(rows: np.ndarray[Any, Any], equal_nan: bool) -> int:
    n = rows.shape[0]
    if n == 0:
        return 0
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(n)
    s = rows[order]
    eq = s[1:] == s[:-1]
    if equal_nan and _dt.issubdtype(s.dtype, np.inexact):
        eq |= np.isnan(s[1:]) & np.isnan(s[:-1])
    return 1 + int(np.count_nonzero(~np.all(eq, axis=1)))


def _unique(
    ar: Any,
    axis: int | None,
    equal_nan: bool,
    size: int | None,
    fill_value: Any,
    name: str,
) -> tuple[Any, Any, Any, Any]:
    """``(values, indices, inverse, counts)``; one compiled program when run eagerly.

    Without ``size`` the count of unique values comes from the concrete
    operand on the host; the rest runs as one program per (shape, size), as
    JAX runs its sort-and-mask step, instead of an eager dispatch per step.
    """
    check_arraylike(name, ar)
    shape = shape_of(ar)
    if axis is not None:
        axis = canonicalize_axis(operator.index(axis), len(shape))
    if size is None:
        host = host_value(ar)
        if host is None:
            raise ConcretizationTypeError(
                ar,
                f"The error arose for the first argument of {name}(). To use {name}() under jit "
                "and other transformations, pass a concrete value for the size argument, "
                "which sets the output size.",
            )
        if axis is None:
            host_rows = host.reshape(host.size, 1)
        else:
            rest = shape[:axis] + shape[axis + 1 :]
            host_rows = np.moveaxis(host, axis, 0).reshape(shape[axis], math.prod(rest))
        size = _host_unique_count(host_rows, equal_nan)
    size = static_size(size, "size")
    if fill_value is None:  # None is a static argument, a fill value an operand
        out = run_whole(name, _unique_sized, (ar,), None, axis, equal_nan, size, name)
    else:
        out = run_whole(name, _unique_sized, (ar, fill_value), axis, equal_nan, size, name)
    return tuple(out)


def _unique_sized(
    ar: Any, fill_value: Any, axis: int | None, equal_nan: bool, size: int, name: str
) -> tuple[Any, Any, Any, Any]:
    shape = shape_of(ar)
    dt = aval_of(ar).dtype
    rest: tuple[int, ...] = ()
    if axis is None:
        n = math.prod(shape)
        rows = lax.reshape(ar, (n, 1))
    else:
        moved = moveaxis(ar, axis, 0)
        n, rest = shape[axis], shape_of(moved)[1:]
        rows = reshape(moved, (n, math.prod(rest)))
    m = shape_of(rows)[1]
    idt = _int_dtype()
    if n == 0:
        if size and fill_value is None:
            raise ValueError(
                f"{name}: for zero-sized input with nonzero size argument, fill_value must be "
                "specified"
            )
        values = lax.full((size, m), 0 if fill_value is None else fill_value, dt)
        inverse = lax.full((0,), 0, idt)
        zeros = lax.full((size,), 0, idt)
        return _shape_values(values, axis, rest), zeros, _shape_inverse(inverse, axis, shape), zeros
    iota = lax.iota(idt, n)
    cols = [lax.squeeze(lax.slice(rows, (0, j), (n, j + 1)), (1,)) for j in range(m)]
    if m:
        *sorted_cols, perm = lax.sort((*cols, iota), dimension=0, is_stable=True, num_keys=m)
        aux = stack(sorted_cols, axis=1)
    else:
        perm, aux = iota, rows
    later = lax.slice(aux, (1, 0), (n, m))
    earlier = lax.slice(aux, (0, 0), (n - 1, m))
    differ = not_equal(later, earlier)
    if equal_nan and _dt.issubdtype(dt, np.inexact):
        differ = logical_and(differ, logical_not(logical_and(isnan(later), isnan(earlier))))
    new_run = _any(differ, axis=1) if m else lax.full((n - 1,), False, np.dtype(bool))
    mask = concatenate([lax.full((1,), True, np.dtype(bool)), new_run])
    firsts, valid = _first_true(mask, n, size)
    values = aux[firsts]
    if fill_value is not None:
        values = _select(valid[:, None], values, convert(fill_value, dt))
    indices = perm[firsts]
    group = lax.sub(cumsum(mask, dtype=idt), convert(1, idt))
    inverse = lax.full((n,), 0, idt).at[perm].set(group, unique_indices=True)
    ones = lax.full((n,), 1, idt)
    counts = lax.full((size,), 0, idt).at[group].add(ones, mode="drop")
    return (
        _shape_values(values, axis, rest),
        indices,
        _shape_inverse(inverse, axis, shape),
        counts,
    )


def _shape_values(values: Any, axis: int | None, rest: tuple[int, ...]) -> Any:
    size = shape_of(values)[0]
    if axis is None:
        return lax.reshape(values, (size,))
    return moveaxis(reshape(values, (size, *rest)), 0, axis)


def _shape_inverse(inverse: Any, axis: int | None, shape: tuple[int, ...]) -> Any:
    return lax.reshape(inverse, shape) if axis is None else inverse


def unique(
    ar: ArrayLike,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
    sorted: bool = True,
) -> Array | tuple[Array, ...]:
    """The sorted unique elements (or sub-arrays along ``axis``) of an array.

    Args:
      ar: an array-like.
      return_index: also return the index of each value's first occurrence.
      return_inverse: also return, for every element, the index of its value
        (of ``ar``'s shape when ``axis`` is None, else 1-D).
      return_counts: also return how often each value occurs.
      axis: the axis along which sub-arrays are compared; None flattens.
      equal_nan: NaNs compare equal (one NaN in the result).
      size: the static number of unique values; required under ``jit``. The
        values are padded with ``fill_value`` (default: the smallest value),
        indices with the first value's index, counts with 0.
      fill_value: the padding value.
      sorted: accepted for compatibility; the result is always sorted.

    Returns:
      The unique values, or a tuple with the requested extra arrays.

    Raises:
      ConcretizationTypeError: ``ar`` is traced and ``size`` is not given.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> v, c = eval_shape(lambda x: unique(x, return_counts=True, size=3), S((5,), "f4"))
    >>> v.shape, c.dtype
    ((3,), dtype('int32'))
    """
    del sorted
    values, indices, inverse, counts = _unique(ar, axis, equal_nan, size, fill_value, "unique")
    if not (return_index or return_inverse or return_counts):
        return unchanged(values)
    out = [values]
    if return_index:
        out.append(indices)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return tuple(out)


def unique_values(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> Array:
    """The sorted unique values of ``x``; NaNs are all distinct (array API).

    Args:
      x: an array-like.
      size: the static number of values; required under ``jit``.
      fill_value: the padding value (default: the smallest value).

    Returns:
      A 1-D array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: unique_values(x, size=2), S((2, 2), "int32")).shape
    (2,)
    """
    return unchanged(_unique(x, None, False, size, fill_value, "unique_values")[0])


def unique_counts(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> _UniqueCountsResult:
    """The unique values of ``x`` and their counts; NaNs are distinct.

    Args:
      x: an array-like.
      size: the static number of values; required under ``jit``.
      fill_value: the padding value.

    Returns:
      ``(values, counts)`` as a named tuple.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: unique_counts(x, size=2), S((4,), "int32")).counts.shape
    (2,)
    """
    values, _, _, counts = _unique(x, None, False, size, fill_value, "unique_counts")
    return _UniqueCountsResult(values, counts)


def unique_inverse(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> _UniqueInverseResult:
    """The unique values of ``x`` and the inverse indices; NaNs are distinct.

    Args:
      x: an array-like.
      size: the static number of values; required under ``jit``.
      fill_value: the padding value.

    Returns:
      ``(values, inverse_indices)`` as a named tuple; the inverse has ``x``'s shape.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: unique_inverse(x, size=2), S((2, 3), "f4")).inverse_indices.shape
    (2, 3)
    """
    values, _, inverse, _ = _unique(x, None, False, size, fill_value, "unique_inverse")
    return _UniqueInverseResult(values, inverse)


def unique_all(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> _UniqueAllResult:
    """The unique values of ``x`` with first indices, inverse indices and counts.

    Args:
      x: an array-like; NaNs are distinct.
      size: the static number of values; required under ``jit``.
      fill_value: the padding value.

    Returns:
      ``(values, indices, inverse_indices, counts)`` as a named tuple.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> r = eval_shape(lambda x: unique_all(x, size=3), S((5,), "f4"))
    >>> r.values.shape, r.indices.shape, r.inverse_indices.shape, r.counts.shape
    ((3,), (3,), (5,), (3,))
    """
    return _UniqueAllResult(*_unique(x, None, False, size, fill_value, "unique_all"))


def bincount(
    x: ArrayLike,
    weights: ArrayLike | None = None,
    minlength: int = 0,
    *,
    length: int | None = None,
) -> Array:
    """Count the occurrences (or sum the weights) of each non-negative integer.

    Args:
      x: a 1-D integer or boolean array; negative values count as 0.
      weights: per-element weights of ``x``'s shape (default 1, int32).
      minlength: the minimum output length.
      length: the static output length; required under ``jit``. Values at or
        beyond it are dropped.

    Returns:
      A 1-D array of the weights' dtype.

    Raises:
      ConcretizationTypeError: ``x`` is traced and ``length`` is not given.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: bincount(x, length=7), S((4,), "int32")).shape
    (7,)
    """
    check_arraylike("bincount", x)
    dt = aval_of(x).dtype
    if not (_dt.issubdtype(dt, np.integer) or dt == np.dtype(bool)):
        raise TypeError(f"x argument to bincount must have an integer type; got {dt}")
    if len(shape_of(x)) != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        host = host_value(x)
        if host is None:
            raise ConcretizationTypeError(
                x,
                "The error occurred because of argument 'x' of bincount. To avoid this error, "
                "pass a static `length` argument.",
            )
        length = max(minlength, int(host.max()) + 1 if host.size else 0)
    length = static_size(length, "length")
    idt = _int_dtype()
    if dt == np.dtype(bool):
        x = lax.convert_element_type(x, idt)
    n = shape_of(x)[0]
    w: ArrayLike
    if weights is None:
        w = lax.full((n,), 1, idt)
    else:
        check_arraylike("bincount", weights)
        w = lax.broadcast_in_dim(weights, (n,), ()) if not shape_of(weights) else weights
        if shape_of(w) != (n,):
            raise ValueError(
                f"bincount: weights must have x's shape {(n,)}; got shape {shape_of(weights)}"
            )
    out_dt = aval_of(w).dtype
    x = lax.max(x, convert(0, aval_of(x).dtype))
    return unchanged(lax.full((length,), 0, out_dt).at[x].add(w, mode="drop"))
