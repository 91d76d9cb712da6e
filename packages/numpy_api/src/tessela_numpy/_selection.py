"""Multi-key sorting, partial sorting and functional puts.

``partition`` and ``argpartition`` use ``top_k`` twice, as JAX does: the
``kth + 1`` smallest entries in ascending order, then the remaining entries
in descending order. ``put`` and ``put_along_axis`` return a new array
(``inplace=False`` is required, arrays are immutable).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, shape_of
from ._creation import asarray
from ._eager import run_compiled
from ._reductions import any as _any
from ._shape_ops import ravel, reshape, swapaxes
from ._shapes import broadcast_shapes, canonicalize_axis
from ._ufuncs import logical_not, remainder
from ._where import broadcast_to, clip

__all__ = ["argpartition", "lexsort", "partition", "put", "put_along_axis"]


def lexsort(keys: ArrayLike | Sequence[ArrayLike], axis: int = -1) -> Array:
    """Indices that sort by several keys; the last key is the primary one.

    Args:
      keys: a sequence of arrays of one shape (or an array, its first axis
        indexing the keys).
      axis: the axis to sort along.

    Returns:
      Integer indices of the keys' shape.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: lexsort((a, b)), S((4,), "f4"), S((4,), "int32")).dtype
    dtype('int32')
    """
    if isinstance(keys, tuple | list):
        key_list = list(keys)
    else:  # an array: its first axis indexes the keys
        stacked = cast(Array, keys)
        key_list = [stacked[i] for i in range(len(stacked))]
    if not key_list:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    check_arraylike("lexsort", *key_list)
    shapes = {shape_of(k) for k in key_list}
    if len(shapes) != 1:
        raise ValueError("all keys need to be the same shape")
    (shape,) = shapes
    if not shape:
        return lax.full((), 0, np.dtype(_dt.canonicalize_dtype(np.int64)))
    dim = canonicalize_axis(operator.index(axis), len(shape))
    iota = lax.broadcasted_iota(np.dtype(_dt.canonicalize_dtype(np.int64)), shape, dim)
    ops = (*key_list[::-1], iota)
    return unchanged(lax.sort(ops, dimension=dim, is_stable=True, num_keys=len(key_list))[-1])


def _negate(a: Any) -> Any:
    dt = aval_of(a).dtype
    if _dt.issubdtype(dt, np.unsignedinteger) or dt == np.dtype(bool):
        return lax.bitwise_not(a)
    return lax.neg(a)


def _partition(name: str, a: Any, kth: int, axis: int, want_indices: bool) -> Any:
    check_arraylike(name, a)
    shape = shape_of(a)
    if not shape:
        raise ValueError(f"{name}: a must have at least one dimension")
    if _dt.issubdtype(aval_of(a).dtype, np.complexfloating):
        raise NotImplementedError(f"{name} for complex dtype is not implemented.")
    axis = canonicalize_axis(operator.index(axis), len(shape))
    n = shape[axis]
    kth = canonicalize_axis(operator.index(kth), n)
    last = len(shape) - 1
    arr = swapaxes(a, axis, -1)
    low_val, low_idx = lax.top_k(_negate(arr), kth + 1)
    if want_indices:
        # The remaining positions, in their original order: top_k of a 0/1 proxy.
        pos = lax.broadcasted_iota(aval_of(low_idx).dtype, (*shape_of(arr), 1), last)
        hit = _any(lax.eq(pos, lax.expand_dims(low_idx, (last,))), axis=-1)
        proxy = lax.convert_element_type(logical_not(hit), np.dtype(np.float32))
        _, high_idx = lax.top_k(proxy, n - kth - 1)
        out = lax.concatenate([low_idx, high_idx], last)
    else:
        high_val, _ = lax.top_k(arr, n - kth - 1)
        out = lax.concatenate([_negate(low_val), high_val], last)
    return swapaxes(out, -1, axis)


def partition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """A partial sort: the ``kth`` entry in place, smaller ones before, larger after.

    The entries up to ``kth`` come out ascending and the rest descending.

    Args:
      a: the array.
      kth: the static position to place (negative counts from the end).
      axis: the axis to partition along.

    Returns:
      ``a``'s shape and dtype.

    >>> from tessela_tracer import make_jaxpr
    >>> import numpy as np
    >>> [e.primitive.name for e in make_jaxpr(lambda a: partition(a, 1))(np.ones(4)).eqns][:2]
    ['neg', 'top_k']
    """
    out = run_compiled("partition", partition, (a,), kth, axis)  # eagerly: as JAX's jit
    if out is not None:
        return unchanged(out)
    return unchanged(_partition("partition", a, kth, axis, False))


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """Indices that partition ``a`` as :func:`partition` does.

    Args:
      a: the array.
      kth: the static position to place.
      axis: the axis to partition along.

    Returns:
      Integer indices of ``a``'s shape.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: argpartition(a, 2), S((3, 5), "f4")).dtype
    dtype('int32')
    """
    out = run_compiled("argpartition", argpartition, (a,), kth, axis)  # as JAX's jit
    if out is not None:
        return unchanged(out)
    return unchanged(_partition("argpartition", a, kth, axis, True))


def _no_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise ValueError(
            f"{name} cannot modify arrays in-place, because arrays are immutable. "
            "Pass inplace=False to instead return an updated array."
        )


def put(
    a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True
) -> Array:
    """A copy of ``a`` with the flat positions ``ind`` set to ``v``.

    Args:
      a: the array.
      ind: flat integer indices.
      v: the values, broadcast to ``ind``'s flattened length.
      mode: None (negative indices count from the end, the rest are clipped),
        ``"clip"`` (NumPy's clipping) or ``"wrap"``.
      inplace: must be False.

    Returns:
      The updated array of ``a``'s shape.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, i: put(a, i, 1.0, inplace=False), S((2, 3), "f4"), S((2,), "int32"))
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """
    _no_inplace("put", inplace)
    check_arraylike("put", a, ind, v)
    a = asarray(a)
    flat = ravel(a)
    size = shape_of(flat)[0]
    ind = ravel(ind)
    n = shape_of(ind)[0]
    vals = ravel(v)
    if shape_of(vals)[0] == 0 or n == 0:
        return a
    vals = broadcast_to(vals, (n,))
    if mode is None:
        out = flat.at[ind].set(vals, mode="clip")
    elif mode == "clip":
        out = flat.at[clip(ind, 0, size - 1)].set(vals, mode="clip")
    elif mode == "wrap":
        out = flat.at[remainder(ind, size)].set(vals)
    else:
        raise ValueError(f"put: mode must be None, 'clip' or 'wrap'; got mode={mode!r}")
    return unchanged(reshape(out, shape_of(a)))


def put_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    values: ArrayLike,
    axis: int | None,
    inplace: bool = True,
    *,
    mode: str | None = None,
) -> Array:
    """A copy of ``arr`` with ``values`` put at ``indices`` along ``axis``.

    The counterpart of ``take_along_axis``.

    Args:
      arr: the array.
      indices: integer indices of ``arr``'s rank, broadcasting on the other axes.
      values: the values, broadcast to the indices' shape.
      axis: the axis; None flattens ``arr``.
      inplace: must be False.
      mode: the out-of-bounds mode of ``.at[].set`` (default drops).

    Returns:
      The updated array of ``arr``'s shape.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> f = lambda a, i: put_along_axis(a, i, 0.0, axis=1, inplace=False)
    >>> eval_shape(f, S((2, 3), "f4"), S((2, 1), "int32")).shape
    (2, 3)
    """
    _no_inplace("put_along_axis", inplace)
    check_arraylike("put_along_axis", arr, indices, values)
    arr = asarray(arr)
    if axis is None:
        flat = put_along_axis(ravel(arr), ravel(indices), values, 0, False, mode=mode)
        return unchanged(reshape(flat, shape_of(arr)))
    shape = shape_of(arr)
    ishape = shape_of(indices)
    if len(ishape) != len(shape):
        raise ValueError(
            "indices and arr must have the same number of dimensions; "
            f"got {len(ishape)} and {len(shape)}"
        )
    axis = canonicalize_axis(operator.index(axis), len(shape))
    out_shape = list(
        broadcast_shapes(ishape, tuple(1 if i == axis else d for i, d in enumerate(shape)))
    )
    out_shape[axis] = ishape[axis]
    full_shape = tuple(out_shape)
    idt = aval_of(indices).dtype
    index = tuple(
        broadcast_to(indices, full_shape) if i == axis else lax.broadcasted_iota(idt, full_shape, i)
        for i in range(len(shape))
    )
    return unchanged(arr.at[index].set(broadcast_to(values, full_shape), mode=mode))
