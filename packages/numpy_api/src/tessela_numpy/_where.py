"""Selection: ``where`` and ``clip``, and broadcasting of several arrays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import ArrayOps, jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, promote_dtypes, shape_of
from ._eager import CONCRETE_TYPES, is_concrete, run_compiled
from ._shapes import broadcast_shapes

__all__ = ["broadcast_arrays", "broadcast_to", "clip", "where"]


def broadcast_to(array: ArrayLike, shape: int | Sequence[int]) -> Array:
    """Broadcast an array to a shape, NumPy-style.

    Args:
      array: an array-like (not a list).
      shape: the target shape; it must be reachable by NumPy broadcasting.

    Returns:
      The broadcast array (``array`` itself when the shape already matches).

    Raises:
      ValueError: ``shape`` is not a broadcast of the array's shape.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: broadcast_to(x, (4, 2, 3)), ShapeDtypeStruct((2, 1), "float32")).shape
    (4, 2, 3)
    """
    check_arraylike("broadcast_to", array)
    from_shape = shape_of(array)
    to_shape = tuple(shape) if isinstance(shape, Sequence) else (int(shape),)
    if from_shape == to_shape:
        return unchanged(array)
    nd = len(to_shape)
    if len(from_shape) > nd or any(
        f not in (1, t) for f, t in zip(from_shape, to_shape[nd - len(from_shape) :], strict=True)
    ):
        raise ValueError(
            f"Incompatible shapes for broadcasting: {from_shape} and requested shape {to_shape}"
        )
    lead = nd - len(from_shape)
    return unchanged(lax.broadcast_in_dim(array, to_shape, tuple(range(lead, nd))))


def broadcast_arrays(*args: ArrayLike) -> list[Array]:
    """Broadcast several arrays against each other.

    Args:
      *args: array-likes (not lists).

    Returns:
      A list of arrays of the common shape.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> [a.shape for a in eval_shape(broadcast_arrays, s((2, 1), "float32"), s((3,), "int32"))]
    [(2, 3), (2, 3)]
    """
    check_arraylike("broadcast_arrays", *args)
    shape = broadcast_shapes(*(shape_of(a) for a in args))
    return [
        a if shape_of(a) == shape and isinstance(a, ArrayOps) else broadcast_to(a, shape)
        for a in args
    ]


def where(condition: ArrayLike, x: ArrayLike | None = None, y: ArrayLike | None = None, /) -> Array:
    """Choose elements from ``x`` where ``condition`` holds, else from ``y``.

    Args:
      condition: a boolean array-like (others are compared with zero).
      x: values where ``condition`` is true.
      y: values where ``condition`` is false.

    Returns:
      An array of the broadcast shape and the promoted dtype of ``x`` and ``y``.

    Raises:
      ValueError: only one of ``x`` and ``y`` is given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(where, s((3, 1), "bool"), s((3,), "float32"), 0).shape
    (3, 3)
    """
    if (
        type(condition) in CONCRETE_TYPES
        and (type(x) in CONCRETE_TYPES or type(x) in _SCALARS)
        and (type(y) in CONCRETE_TYPES or type(y) in _SCALARS)
    ):
        # Arrays and Python scalars: nothing to refuse.
        result: Array = _where_jit(condition, x, y)
        return result
    if x is None and y is None:
        raise NotImplementedError(
            "where(condition) with one argument returns data-dependent shapes; use "
            "nonzero on a concrete array, or pass x and y"
        )
    if x is None or y is None:
        raise ValueError(
            "Either both or neither of the x and y arguments should be provided to where."
        )
    check_arraylike("where", condition, x, y)
    is_concrete(condition)  # its type joins the fast path's
    return unchanged(_where_jit(condition, x, y))


def _where(condition: Any, x: Any, y: Any) -> Any:
    if aval_of(condition).dtype != np.bool_:
        condition = lax.ne(condition, convert(0, aval_of(condition).dtype))
    x, y = promote_dtypes(x, y)
    shape = broadcast_shapes(shape_of(condition), shape_of(x), shape_of(y))
    # A scalar predicate selects whole arrays; select_n takes it as it is.
    if shape_of(condition) and shape_of(condition) != shape:
        condition = broadcast_to(condition, shape)
    x, y = (broadcast_to(v, shape) if shape_of(v) != shape else v for v in (x, y))
    return lax.select_n(condition, y, x)


_where_jit = jit(_where)
_SCALARS = frozenset({int, float, bool, complex})
_BOUNDS = _SCALARS | {type(None)}


def clip(arr: ArrayLike, /, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Array:
    """Clip values to ``[min, max]`` (either bound may be ``None``).

    Args:
      arr: an array-like.
      min: the lower bound, or ``None``.
      max: the upper bound, or ``None``.

    Returns:
      ``minimum(max, maximum(min, arr))`` with the bounds that are given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: clip(x, 0, 1), ShapeDtypeStruct((2,), "float32")).dtype
    dtype('float32')
    """
    if (
        type(arr) in CONCRETE_TYPES
        and (type(min) in _BOUNDS or type(min) in CONCRETE_TYPES)
        and (type(max) in _BOUNDS or type(max) in CONCRETE_TYPES)
    ):
        # An array, and bounds that are arrays, Python scalars or None.
        if max is None and min is not None:  # eagerly without a None argument
            out = run_compiled("clip", _clip_min, (arr, min))
            if out is not None:
                return unchanged(out)
        elif min is None and max is not None:
            out = run_compiled("clip", _clip_max, (arr, max))
            if out is not None:
                return unchanged(out)
        result: Array = _clip_jit(arr, min, max)
        return result
    check_arraylike("clip", arr)
    if min is not None:
        check_arraylike("clip", min)
    if max is not None:
        check_arraylike("clip", max)
    is_concrete(arr)  # its type joins the fast path's
    return unchanged(_clip_jit(arr, min, max))


def _clip(arr: Any, lo: Any, hi: Any) -> Any:
    if lo is not None:
        lo, arr = promote_dtypes(lo, arr)
        arr = lax.max(*_ranked(lo, arr))
    if hi is not None:
        hi, arr = promote_dtypes(hi, arr)
        arr = lax.min(*_ranked(hi, arr))
    return arr


def _clip_min(arr: Any, lo: Any) -> Any:
    return _clip(arr, lo, None)


def _clip_max(arr: Any, hi: Any) -> Any:
    return _clip(arr, None, hi)


_clip.__name__ = _clip.__qualname__ = "clip"
_clip_jit = jit(_clip)


def _ranked(a: Any, b: Any) -> tuple[Any, Any]:
    sa, sb = shape_of(a), shape_of(b)
    shape = broadcast_shapes(sa, sb)
    if sa and sa != shape:
        a = broadcast_to(a, shape)
    if sb and sb != shape:
        b = broadcast_to(b, shape)
    return a, b
