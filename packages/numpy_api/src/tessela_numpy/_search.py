"""The four ``searchsorted`` algorithms, over the ``sort`` primitive's total order.

The comparisons follow the order XLA's sort uses: ``-0.0`` and ``0.0`` are
equal, every NaN is equal to every other NaN and larger than ``inf``, and
complex numbers compare by real part, then imaginary part.

- ``scan``: a binary search over every query at once, one loop step per
  bit of ``len(a)``, reading ``a`` with a clipping ``gather``.
- ``scan_unrolled``: the same steps unrolled into the program.
- ``compare_all``: count the entries of ``a`` below each query.
- ``sort``: rank queries among ``a`` with one stable ``argsort``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, shape_of

__all__ = ["searchsorted_impl"]


def _canonical(x: Any) -> Any:
    """``x`` with ``-0.0`` as ``0.0`` and every NaN as the positive quiet NaN."""
    dt = aval_of(x).dtype
    shape = shape_of(x)
    zero = lax.broadcast_in_dim(np.zeros((), dt), shape, ())
    nan = lax.broadcast_in_dim(np.full((), np.nan, dt), shape, ())
    x = lax.select(lax.eq(x, np.zeros((), dt)), zero, x)
    return lax.select(lax.ne(x, x), nan, x)


def _keys(x: Any) -> list[Any]:
    dt = aval_of(x).dtype
    if _dt.issubdtype(dt, np.complexfloating):
        return [_canonical(lax.real(x)), _canonical(lax.imag(x))]
    if _dt.issubdtype(dt, np.floating):
        return [_canonical(x)]
    return [x]


def _is_float(x: Any) -> bool:
    return bool(_dt.issubdtype(aval_of(x).dtype, np.floating))


def _lt_to(x: Any, y: Any) -> Any:
    if not _is_float(x):
        return lax.lt(x, y)
    # NaN is the largest key: x < y, or y is NaN and x is not.
    return lax.bitwise_or(lax.lt(x, y), lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))


def _le_to(x: Any, y: Any) -> Any:
    if not _is_float(x):
        return lax.le(x, y)
    return lax.bitwise_or(lax.le(x, y), lax.ne(y, y))


def _eq_to(x: Any, y: Any) -> Any:
    if not _is_float(x):
        return lax.eq(x, y)
    return lax.bitwise_or(lax.eq(x, y), lax.bitwise_and(lax.ne(x, x), lax.ne(y, y)))


def total_order_compare(x: ArrayLike, y: ArrayLike, *, or_equal: bool) -> Array:
    """``x < y`` (or ``x <= y``) in the sort primitive's total order.

    Args:
      x: an array.
      y: an array of the same shape and dtype.
      or_equal: compare with ``<=`` instead of ``<``.

    Returns:
      A boolean array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> x = ShapeDtypeStruct((3,), "float32")
    >>> eval_shape(lambda a, b: total_order_compare(a, b, or_equal=True), x, x).dtype
    dtype('bool')
    """
    xs, ys = _keys(x), _keys(y)
    p = _le_to(xs[-1], ys[-1]) if or_equal else _lt_to(xs[-1], ys[-1])
    for xk, yk in zip(xs[-2::-1], ys[-2::-1], strict=True):
        p = lax.bitwise_or(_lt_to(xk, yk), lax.bitwise_and(_eq_to(xk, yk), p))
    return unchanged(p)


def _read(a: Any, idx: Any) -> Any:
    """``a[idx]`` for an unsigned index array, clipped into bounds."""
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    rank = len(shape_of(idx))
    start = lax.broadcast_in_dim(idx, (*shape_of(idx), 1), tuple(range(rank)))
    return lax.gather(a, start, dnums, (1,), mode="clip")


def _via_scan(a: Any, v: Any, side: str, dtype: np.dtype[Any], unrolled: bool) -> Any:
    n = shape_of(a)[0]
    udt = np.dtype(np.uint64 if dtype == np.int64 else np.uint32)
    shape = shape_of(v)
    low = lax.broadcast_in_dim(np.zeros((), udt), shape, ())
    high = lax.broadcast_in_dim(np.full((), n, udt), shape, ())
    two = np.full((), 2, udt)

    def step(carry: tuple[Array, Array], _: None) -> tuple[tuple[Array, Array], None]:
        lo, hi = carry
        mid = lax.add(lo, lax.div(lax.sub(hi, lo), two))
        # Left: q <= a[mid] moves the upper end; right: q < a[mid] does.
        go_left = total_order_compare(v, _read(a, mid), or_equal=side == "left")
        return (lax.select(go_left, lo, mid), lax.select(go_left, mid, hi)), None

    levels = int(n).bit_length()
    if unrolled:
        carry = (low, high)
        for _ in range(levels):
            carry, _unused = step(carry, None)
        result = carry[1]
    elif levels:
        (_lo, result), _unused = lax.scan(step, (low, high), None, length=levels)
    else:
        result = high
    return lax.convert_element_type(result, dtype)


def _via_compare_all(a: Any, v: Any, side: str, dtype: np.dtype[Any]) -> Any:
    n = shape_of(a)[0]
    shape = shape_of(v)
    full = (n, *shape)
    a_b = lax.broadcast_in_dim(a, full, (0,))
    v_b = lax.broadcast_in_dim(v, full, tuple(range(1, len(full))))
    below = total_order_compare(a_b, v_b, or_equal=side == "right")
    counts = lax.convert_element_type(below, dtype)
    return lax.reduce_sum(counts, (0,))


def _via_sort(a: Any, v: Any, side: str, dtype: np.dtype[Any], argsort: Callable[..., Any]) -> Any:
    n, shape = shape_of(a)[0], shape_of(v)
    size = math.prod(shape)
    big = n + size >= np.iinfo(np.int32).max
    work = _dt.canonicalize_dtype(np.int64 if big else np.int32)
    flat = lax.reshape(v, (size,)) if len(shape) != 1 else v

    def rank(x: Array) -> Array:
        m = shape_of(x)[0]
        idx = lax.iota(work, m)
        return unchanged(lax.broadcast_in_dim(np.zeros((), work), (m,), ()).at[argsort(x)].set(idx))

    if side == "left":
        index = lax.slice(rank(lax.concatenate([flat, a], 0)), (0,), (size,))
    else:
        index = lax.slice(rank(lax.concatenate([a, flat], 0)), (n,), (n + size,))
    out = lax.reshape(lax.sub(index, rank(flat)), shape)
    return lax.convert_element_type(out, dtype)


def searchsorted_impl(
    a: ArrayLike,
    v: ArrayLike,
    side: str,
    method: str,
    dtype: np.dtype[Any],
    argsort: Callable[..., Any],
) -> Array:
    """Insertion indices of ``v`` into the sorted 1-D ``a`` by ``method``.

    Args:
      a: the sorted 1-D array (same dtype as ``v``).
      v: the queries.
      side: ``"left"`` or ``"right"``.
      method: ``"scan"``, ``"scan_unrolled"``, ``"compare_all"`` or ``"sort"``.
      dtype: the index dtype of the result.
      argsort: the stable ``argsort`` that ``method="sort"`` ranks with.

    Returns:
      An array of ``v``'s shape and ``dtype``.

    >>> import numpy as np
    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> f = lambda a, v: searchsorted_impl(a, v, "right", "scan", np.dtype("int32"), None)
    >>> eval_shape(f, ShapeDtypeStruct((4,), "float32"), ShapeDtypeStruct((2, 3), "float32")).shape
    (2, 3)
    """
    if method == "compare_all":
        return unchanged(_via_compare_all(a, v, side, dtype))
    if method == "sort":
        return unchanged(_via_sort(a, v, side, dtype, argsort))
    return unchanged(_via_scan(a, v, side, dtype, unrolled=method == "scan_unrolled"))
