"""``jax.numpy`` names composed from the existing ones.

``append``, ``block``, ``copy``, ``broadcast_shapes``, ``isposinf`` /
``isneginf``, ``bitwise_count``, the triangle and diagonal index helpers,
the array-API spellings (``acos``, ``concat``, ``permute_dims``,
``matrix_transpose``, ``bitwise_invert``, ...) and ``cumulative_sum`` /
``cumulative_prod``, with JAX's semantics. Run eagerly, ``append`` is one
compiled program per signature, as JAX's ``jit`` makes it.

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(append, S((2,), "int32"), S((1, 1), "int32")).shape
(3,)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import lax
from tessela_tracer.dtypes import canonicalize_dtype, issubdtype
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import promote_dtypes_numeric
from ._creation import array, asarray, full, zeros
from ._eager import run_compiled
from ._reductions import cumprod, cumsum
from ._reductions import max as _max
from ._reductions import min as _min
from ._shape_ops import concatenate, ravel, transpose
from ._ufuncs import (
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    bitwise_not,
    left_shift,
    right_shift,
)

__all__ = [
    "ComplexWarning", "acos", "acosh", "amax", "amin", "append", "asin", "asinh", "atan", "atan2",
    "atanh", "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift",
    "block", "broadcast_shapes", "concat", "copy", "cumulative_prod", "cumulative_sum",
    "diag_indices", "diag_indices_from", "index_exp", "indices", "isneginf", "isposinf",
    "matrix_transpose", "permute_dims", "s_", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from", "unstack",
]  # fmt: skip

# NumPy's own objects, as jax.numpy exposes them.
ComplexWarning = np.exceptions.ComplexWarning
index_exp = np.index_exp
s_ = np.s_

acos, acosh, asin, asinh = arccos, arccosh, arcsin, arcsinh
atan, atan2, atanh = arctan, arctan2, arctanh
amax, amin = _max, _min
bitwise_invert = bitwise_not
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Array:
    """``values`` appended to ``arr``.

    Args:
        arr: an array.
        values: the values to append.
        axis: the axis to append along; ``None`` flattens both first.

    Returns:
        The concatenation.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: append(a, b, axis=0), S((1, 2), "int32"), S((3, 2), "int32")).shape
    (4, 2)
    """
    out = run_compiled("append", append, (arr, values), axis)  # eagerly: as JAX's jit
    if out is not None:
        return unchanged(out)
    if axis is None:
        return unchanged(concatenate([ravel(arr), ravel(values)], 0))
    return unchanged(concatenate([arr, values], axis=axis))


def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Array:
    """The array API's ``concatenate``.

    Args:
        arrays: the arrays to join.
        axis: the axis to join along; ``None`` flattens them first.

    Returns:
        The concatenation.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: concat([a, b]), S((1,), "int32"), S((2,), "int32")).shape
    (3,)
    """
    return unchanged(concatenate(arrays, axis=axis))


def copy(a: ArrayLike, order: str | None = None) -> Array:
    """A copy of ``a`` as an array.

    Args:
        a: an array or array-like.
        order: only ``None``, ``"K"`` or ``"C"`` (memory order is not a JAX notion).

    Returns:
        A new array equal to ``a``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(copy, S((2,), "float32")).shape
    (2,)
    """
    if order not in (None, "K", "C"):
        raise NotImplementedError(f"copy: only order=None, 'K' or 'C' is supported, got {order!r}")
    return array(a, copy=True)


def _block(xs: Any) -> tuple[Any, int]:
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if isinstance(xs, list):
        if not xs:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        parts, depths = zip(*(_block(x) for x in xs), strict=True)
        if any(d != depths[0] for d in depths[1:]):
            raise ValueError("Mismatched list depths in jax.numpy.block")
        rank = max(depths[0], max(np.ndim(x) for x in parts))
        parts = tuple(x.reshape((1,) * (rank - x.ndim) + tuple(x.shape)) for x in parts)
        return concatenate(parts, axis=-depths[0]), depths[0] + 1
    return asarray(xs), 1


def block(arrays: ArrayLike | Sequence[Any]) -> Array:
    """An array assembled from nested lists of blocks, as ``np.block``.

    Args:
        arrays: nested lists of arrays; the innermost lists join along the last axis.

    Returns:
        The assembled array.

    Raises:
        ValueError: a tuple, an empty list, or lists of mismatched depth.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: block([[a, b], [b, a]]), S((1, 1), "f4"), S((1, 1), "f4")).shape
    (2, 2)
    """
    out, _ = _block(arrays)
    return unchanged(out)


def broadcast_shapes(*shapes: int | Sequence[int]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to.

    Args:
        *shapes: shapes (tuples of ints, or ints for 1-D shapes).

    Returns:
        The broadcast shape; ``()`` for no shapes.

    Raises:
        ValueError: shapes that do not broadcast.

    >>> broadcast_shapes((2, 1), (3,), 1)
    (2, 3)
    """
    if not shapes:
        return ()
    entries: tuple[Any, ...] = shapes  # ints, or sequences of ints (as np.ndim tells)
    tuples = [(int(s),) if np.ndim(s) == 0 else tuple(int(d) for d in s) for s in entries]
    ndim = max(len(s) for s in tuples)
    padded = [(1,) * (ndim - len(s)) + s for s in tuples]
    result = []
    for dims in zip(*padded, strict=True):
        non_1s = {d for d in dims if d != 1}
        if len(non_1s) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={tuples}")
        result.append(non_1s.pop() if non_1s else 1)
    return tuple(result)


def _isposneginf(infinity: float, x: Any, name: str, out: None) -> Any:
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {name} is not supported.")
    x = asarray(x)
    if np.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    if issubdtype(x.dtype, np.floating):  # bfloat16 too (NumPy's says no)
        return lax.eq(x, lax.full_like(x, infinity))
    return lax.full_like(x, False, dtype=np.bool_)


def isposinf(x: ArrayLike, /, out: None = None) -> Array:
    """Elementwise ``x == +inf``.

    Args:
        x: a real array (integers and booleans are never infinite).
        out: unsupported (``None``).

    Returns:
        A boolean array.

    Raises:
        ValueError: a complex array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(isposinf, S((3,), "float32")).dtype
    dtype('bool')
    """
    return unchanged(_isposneginf(np.inf, x, "isposinf", out))


def isneginf(x: ArrayLike, /, out: None = None) -> Array:
    """Elementwise ``x == -inf``.

    Args:
        x: a real array (integers and booleans are never infinite).
        out: unsupported (``None``).

    Returns:
        A boolean array.

    Raises:
        ValueError: a complex array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(isneginf, S((3,), "int32")).dtype
    dtype('bool')
    """
    return unchanged(_isposneginf(-np.inf, x, "isneginf", out))


def bitwise_count(x: ArrayLike, /) -> Array:
    """The number of 1 bits in ``abs(x)``, as ``uint8``.

    Args:
        x: an integer or boolean array.

    Returns:
        A ``uint8`` array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(bitwise_count, S((3,), "int32")).dtype
    dtype('uint8')
    """
    x = asarray(x)
    if not (np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_):
        raise TypeError(f"bitwise_count requires integer or boolean input, got {x.dtype}")
    (x,) = promote_dtypes_numeric(x)  # booleans count as 0 and 1 (int32), as in JAX
    magnitude = x if np.issubdtype(x.dtype, np.unsignedinteger) else abs(x)
    return unchanged(lax.population_count(magnitude).astype(np.uint8))


def _concrete_int(value: Any, what: str) -> int:
    try:
        return operator.index(value)
    except TypeError as err:
        raise TypeError(f"{what} must be a concrete integer, got {value!r}") from err


def _index_arrays(rows: np.ndarray, cols: np.ndarray) -> tuple[Array, Array]:
    return asarray(rows.astype(np.int32)), asarray(cols.astype(np.int32))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """The indices of the lower triangle of an ``(n, m)`` array.

    Args:
        n: rows.
        k: diagonal offset.
        m: columns (``n`` when None).

    Returns:
        ``(rows, cols)``, int32 arrays.

    >>> from tessela_tracer import eval_shape
    >>> [a.shape for a in eval_shape(lambda: tril_indices(2))]
    [(3,), (3,)]
    """
    n = _concrete_int(n, "n argument of jnp.tril_indices")
    k = _concrete_int(k, "k argument of jnp.tril_indices")
    m = n if m is None else _concrete_int(m, "m argument of jnp.tril_indices")
    return _index_arrays(*np.tril_indices(n, k, m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """The indices of the upper triangle of an ``(n, m)`` array.

    Args:
        n: rows.
        k: diagonal offset.
        m: columns (``n`` when None).

    Returns:
        ``(rows, cols)``, int32 arrays.

    >>> from tessela_tracer import eval_shape
    >>> [a.shape for a in eval_shape(lambda: triu_indices(3, k=1))]
    [(3,), (3,)]
    """
    n = _concrete_int(n, "n argument of jnp.triu_indices")
    k = _concrete_int(k, "k argument of jnp.triu_indices")
    m = n if m is None else _concrete_int(m, "m argument of jnp.triu_indices")
    return _index_arrays(*np.triu_indices(n, k, m))


def _shape_2d(arr: Any, name: str) -> tuple[int, int]:
    shape = tuple(arr.shape) if hasattr(arr, "shape") else np.shape(arr)
    if len(shape) != 2:
        raise ValueError(f"{name}: only 2-D inputs are accepted, got shape {shape}")
    return int(shape[0]), int(shape[1])


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``tril_indices`` for the shape of the 2-D ``arr``.

    Args:
        arr: a 2-D array (or an object with a ``shape``).
        k: diagonal offset.

    Returns:
        ``(rows, cols)``.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> [a.shape for a in eval_shape(lambda: tril_indices_from(np.zeros((2, 3)), k=1))]
    [(5,), (5,)]
    """
    n, m = _shape_2d(arr, "tril_indices_from")
    return tril_indices(n, k=k, m=m)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``triu_indices`` for the shape of the 2-D ``arr``.

    Args:
        arr: a 2-D array (or an object with a ``shape``).
        k: diagonal offset.

    Returns:
        ``(rows, cols)``.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> [a.shape for a in eval_shape(lambda: triu_indices_from(np.zeros((2, 3))))]
    [(5,), (5,)]
    """
    n, m = _shape_2d(arr, "triu_indices_from")
    return triu_indices(n, k=k, m=m)


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """The indices of the main diagonal of an ``ndim``-dimensional ``n x ... x n`` array.

    Args:
        n: the size of each axis.
        ndim: the number of axes.

    Returns:
        ``ndim`` copies of ``arange(n)``.

    Raises:
        ValueError: a negative ``n`` or ``ndim``.

    >>> from tessela_tracer import eval_shape
    >>> [a.shape for a in eval_shape(lambda: diag_indices(3, 2))]
    [(3,), (3,)]
    """
    n = _concrete_int(n, "'n' argument of jnp.diag_indices()")
    ndim = _concrete_int(ndim, "'ndim' argument of jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (asarray(np.arange(n, dtype=np.int32)),) * ndim


def diag_indices_from(arr: ArrayLike) -> tuple[Array, ...]:
    """``diag_indices`` for a square array of at least two dimensions.

    Args:
        arr: an array whose axes all have the same length.

    Returns:
        ``arr.ndim`` index arrays.

    Raises:
        ValueError: fewer than two axes, or axes of different lengths.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> len(eval_shape(lambda: diag_indices_from(np.zeros((2, 2, 2)))))
    3
    """
    shape = tuple(np.shape(arr)) if not hasattr(arr, "shape") else tuple(arr.shape)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], ndim=len(shape))


def indices(
    dimensions: Sequence[int], dtype: DTypeLike | None = None, sparse: bool = False
) -> Array | tuple[Array, ...]:
    """An array (or tuple, when ``sparse``) of index grids for a shape.

    Args:
        dimensions: the grid's shape.
        dtype: the index dtype (the default integer type when None).
        sparse: return broadcastable 1-D grids instead of one stacked array.

    Returns:
        An array of shape ``(len(dimensions), *dimensions)``, or a tuple.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: indices((2, 3))).shape
    (2, 2, 3)
    """
    dims = tuple(_concrete_int(d, "dimensions argument of jnp.indices") for d in dimensions)
    dt = np.dtype(int if dtype is None else dtype)
    if sparse:
        return tuple(asarray(g, dtype=dt) for g in np.indices(dims, dtype=dt, sparse=True))
    return asarray(np.indices(dims, dtype=dt), dtype=dt)


def permute_dims(a: ArrayLike, /, axes: tuple[int, ...]) -> Array:
    """The array API's ``transpose`` with required ``axes``.

    Args:
        a: an array.
        axes: a permutation of the axes.

    Returns:
        The transposed array.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: permute_dims(a, (2, 0, 1)), S((1, 2, 3), "f4")).shape
    (3, 1, 2)
    """
    return transpose(a, axes)


def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes.

    Args:
        x: an array of at least two dimensions.

    Returns:
        The transposed stack of matrices.

    Raises:
        ValueError: fewer than two dimensions.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(matrix_transpose, S((4, 2, 3), "f4")).shape
    (4, 3, 2)
    """
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(
            f"x must be at least two-dimensional for matrix_transpose; got ndim={x.ndim}"
        )
    return transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split ``x`` into the slices along ``axis``.

    Args:
        x: an array of at least one dimension.
        axis: the axis to split.

    Returns:
        A tuple of ``x.shape[axis]`` arrays.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> [t.shape for t in eval_shape(lambda a: unstack(a, axis=1), S((2, 3), "f4"))]
    [(2,), (2,), (2,)]
    """
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError(
            "Unstack requires arrays with rank > 0, however a scalar array was passed."
        )
    return tuple(lax.unstack(x, axis=axis))


def _cumulative(
    name: str, op: Any, x: Any, axis: int | None, dtype: Any, initial: bool, *, widen: bool
) -> Any:
    # ``widen``: narrow integers accumulate in the default integer type, as
    # the array API standard and NumPy have both functions do (JAX 0.10.2's
    # cumulative_prod keeps them; Tessela follows the standard there).
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError(
            f"The input must be non-scalar to take a {name}, however a scalar value or "
            "scalar array was given."
        )
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"The input array has rank {x.ndim}, however axis was not set to an explicit "
                "value. The axis argument is only optional for one-dimensional arrays."
            )
        axis = 0
    axis = axis % x.ndim if -x.ndim <= axis < x.ndim else axis
    if dtype is None and (x.dtype == np.bool_ or (widen and np.issubdtype(x.dtype, np.integer))):
        unsigned = np.issubdtype(x.dtype, np.unsignedinteger)
        default = np.dtype(canonicalize_dtype(np.uint64 if unsigned else np.int64))
        if x.dtype.itemsize < default.itemsize or x.dtype == np.bool_:
            dtype = default
    out = op(x, axis=axis, dtype=dtype)
    if initial:
        shape = list(x.shape)
        shape[axis] = 1
        start = zeros(shape, out.dtype) if op is cumsum else full(shape, 1, out.dtype)
        out = concatenate([start, out], axis=axis)
    return out


def cumulative_sum(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    include_initial: bool = False,
) -> Array:
    """The array API's cumulative sum.

    Args:
        x: a non-scalar array.
        axis: the axis (optional for 1-D input).
        dtype: the accumulation dtype.
        include_initial: start with a 0.

    Returns:
        The running sums.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: cumulative_sum(a, include_initial=True), S((3,), "int32")).shape
    (4,)
    """
    return unchanged(
        _cumulative("cumulative sum", cumsum, x, axis, dtype, include_initial, widen=True)
    )


def cumulative_prod(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    include_initial: bool = False,
) -> Array:
    """The array API's cumulative product.

    Args:
        x: a non-scalar array.
        axis: the axis (optional for 1-D input).
        dtype: the accumulation dtype.
        include_initial: start with a 1.

    Returns:
        The running products.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(cumulative_prod, S((3,), "int32")).shape
    (3,)
    """
    return unchanged(
        _cumulative("cumulative product", cumprod, x, axis, dtype, include_initial, widen=True)
    )
