"""Matrix-shaped helpers: diagonals, triangles, traces, rotations, ``kron``, ``cross``.

Masks are built from ``iota`` (row and column indices compared), so the
functions trace to a handful of element-wise primitives and a ``select_n``;
diagonals are read with one ``gather``. Run eagerly (outside any trace),
``tril``, ``triu``, ``kron`` and ``cross`` are each one compiled program per
signature, as JAX's ``jit`` makes them (:func:`._eager.run_compiled`).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, dtype_or, promote_dtypes, shape_of
from ._creation import place_result
from ._eager import run_compiled
from ._indexing import getitem
from ._reductions import sum as _sum
from ._shape_ops import flip, moveaxis, ravel, reshape, stack, transpose
from ._shapes import canonicalize_axis, documented
from ._ufuncs import multiply, subtract

__all__ = [
    "cross", "diag", "diagflat", "diagonal", "eye", "fliplr", "flipud", "identity", "kron", "rot90",
    "trace", "tri", "tril", "triu",
]  # fmt: skip

_I32 = np.dtype(np.int32)


def _tri_mask(n: int, m: int, k: int) -> Any:
    """Boolean ``(n, m)`` mask of ``col <= row + k``."""
    rows = lax.broadcasted_iota(_I32, (n, m), 0)
    cols = lax.broadcasted_iota(_I32, (n, m), 1)
    return lax.ge(lax.add(rows, np.int32(k)), cols)


def tri(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike | None = None) -> Array:
    """A matrix with ones at and below the ``k``-th diagonal, zeros elsewhere.

    Args:
      N: the number of rows.
      M: the number of columns (default ``N``).
      k: the diagonal: 0 the main one, positive above it, negative below.
      dtype: the result dtype (default the default float dtype).

    Returns:
      An ``(N, M)`` array.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: tri(3, k=-1, dtype=int)).shape
    (3, 3)
    """
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    out_dt = dtype_or(dtype, _dt.canonicalize_dtype(np.float64))
    return unchanged(convert(_tri_mask(n, m, operator.index(k)), out_dt))


def _triangle(name: str, m: Any, k: int, lower: bool) -> Any:
    check_arraylike(name, m)
    shape = shape_of(m)
    if len(shape) < 2:
        raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    k = operator.index(k)
    n, cols = shape[-2:]
    mask = _tri_mask(n, cols, k) if lower else lax.not_(_tri_mask(n, cols, k - 1))
    mask = lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))
    dt = aval_of(m).dtype
    return lax.select_n(mask, lax.broadcast_in_dim(np.zeros((), dt), shape, ()), m)


_TRIANGLE_DOC = """The {part} triangle of the last two axes: entries {side} diagonal ``k`` are zeroed.

    Args:
      m: an array of at least two dimensions.
      k: the diagonal {side} which to zero.

    Returns:
      An array of ``m``'s shape and dtype.

    Raises:
      ValueError: ``m`` has fewer than two dimensions.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: {name}(np.arange(1, 10).reshape(3, 3){k})).shape
    (3, 3)
    """


@documented(_TRIANGLE_DOC, part="lower", side="above", k="")
def tril(m: ArrayLike, k: int = 0) -> Array:
    out = run_compiled("tril", tril, (m,), k)  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    return unchanged(_triangle("tril", m, k, lower=True))


@documented(_TRIANGLE_DOC, part="upper", side="below", k=", k=1")
def triu(m: ArrayLike, k: int = 0) -> Array:
    out = run_compiled("triu", triu, (m,), k)  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    return unchanged(_triangle("triu", m, k, lower=False))


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The ``offset``-th diagonal of the 2-D slices given by ``axis1`` and ``axis2``.

    Args:
      a: an array of at least two dimensions.
      offset: the diagonal: positive above the main one, negative below.
      axis1: the axis of the rows.
      axis2: the axis of the columns.

    Returns:
      The remaining axes followed by one axis holding the diagonal.

    Raises:
      ValueError: ``a`` has fewer than two dimensions or the axes are equal.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: diagonal(np.arange(9).reshape(3, 3), 1)).shape
    (2,)
    """
    check_arraylike("diagonal", a)
    shape = shape_of(a)
    nd = len(shape)
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions")
    ax1, ax2 = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 must not be equal")
    offset = operator.index(offset)
    moved = moveaxis(a, (ax1, ax2), (-2, -1))
    n, m = shape[ax1], shape[ax2]
    length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    rows = np.arange(length, dtype=np.int32) - np.int32(min(offset, 0))
    cols = np.arange(length, dtype=np.int32) + np.int32(max(offset, 0))
    if length == 0:
        rest = tuple(d for i, d in enumerate(shape) if i not in (ax1, ax2))
        return lax.broadcast_in_dim(np.zeros((), aval_of(a).dtype), (*rest, 0), ())
    return getitem(moved, (Ellipsis, rows, cols))


def trace(
    a: ArrayLike,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: DTypeLike | None = None,
    out: None = None,
) -> Array:
    """The sum along a diagonal.

    Args:
      a: an array of at least two dimensions.
      offset: the diagonal (see :func:`diagonal`).
      axis1: the axis of the rows.
      axis2: the axis of the columns.
      dtype: the accumulation and result dtype (small integers and booleans
        accumulate in the default integer dtype, as :func:`sum` does).
      out: unsupported; must be ``None``.

    Returns:
      The sums, over the remaining axes.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: trace(np.arange(9).reshape(3, 3))).shape
    ()
    """
    if out is not None:
        raise NotImplementedError("trace: the out argument is not supported; arrays are immutable")
    result = run_compiled("trace", trace, (a,), offset, axis1, axis2, dtype)  # as JAX's jit
    if result is not None:
        return unchanged(result)
    check_arraylike("trace", a)
    return unchanged(_sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype))


def diag(v: ArrayLike, k: int = 0) -> Array:
    """Extract a diagonal of a 2-D array, or build a 2-D array with ``v`` on a diagonal.

    Args:
      v: a 1-D array (placed on diagonal ``k``) or a 2-D array (read from it).
      k: the diagonal: positive above the main one, negative below.

    Returns:
      A 2-D array for 1-D input, a 1-D array for 2-D input.

    Raises:
      ValueError: ``v`` is neither 1-D nor 2-D.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: diag(np.array([1, 2]), 1)).shape
    (3, 3)
    """
    out = run_compiled("diag", diag, (v,), k)  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    check_arraylike("diag", v)
    shape = shape_of(v)
    k = operator.index(k)
    if len(shape) == 2:
        return diagonal(v, k)
    if len(shape) != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = shape[0] + abs(k)
    dt = aval_of(v).dtype
    padded = lax.pad(v, np.zeros((), dt), [(0, abs(k), 0)])
    values = lax.broadcast_in_dim(padded, (n, n), (0,) if k >= 0 else (1,))
    rows = lax.broadcasted_iota(_I32, (n, n), 0)
    cols = lax.broadcasted_iota(_I32, (n, n), 1)
    mask = lax.eq(lax.sub(cols, rows), np.int32(k))
    return lax.select_n(mask, lax.broadcast_in_dim(np.zeros((), dt), (n, n), ()), values)


def diagflat(v: ArrayLike, k: int = 0) -> Array:
    """A 2-D array with the flattened ``v`` on diagonal ``k``.

    Args:
      v: an array-like of any shape.
      k: the diagonal.

    Returns:
      A square 2-D array.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: diagflat(np.ones((2, 2)), -1)).shape
    (5, 5)
    """
    check_arraylike("diagflat", v)
    return diag(ravel(v), k)


_FLIP_DOC = """Reverse the order of the {what}.

    Args:
      m: an array of at least {dims}.

    Returns:
      The flipped array.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: {name}(np.array({example}))).shape
    {shape}
    """


def _flip_axis(name: str, m: ArrayLike, axis: int) -> Array:
    check_arraylike(name, m)
    ndim = len(shape_of(m))
    if ndim <= axis:
        dims = ("one dimension", "two dimensions")[axis]
        raise ValueError(
            f"axis {axis} is out of bounds for array of dimension {ndim}; {name} needs at least {dims}"
        )
    return flip(m, axis)


@documented(
    _FLIP_DOC, what="columns (axis 1)", dims="two dimensions", example="[[1, 2, 3]]", shape="(1, 3)"
)
def fliplr(m: ArrayLike) -> Array:
    return _flip_axis("fliplr", m, 1)


@documented(
    _FLIP_DOC, what="rows (axis 0)", dims="one dimension", example="[1, 2, 3]", shape="(3,)"
)
def flipud(m: ArrayLike) -> Array:
    return _flip_axis("flipud", m, 0)


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (first towards second).

    Args:
      m: an array of at least two dimensions.
      k: the number of quarter turns (negative turns the other way).
      axes: the two axes of the plane.

    Returns:
      The rotated array.

    Raises:
      ValueError: ``axes`` are not two different axes.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: rot90(np.array([[1, 2], [3, 4]]))).shape
    (2, 2)
    """
    check_arraylike("rot90", m)
    nd = len(shape_of(m))
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    ax0, ax1 = (canonicalize_axis(a, nd) for a in axes)
    if ax0 == ax1:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return unchanged(m)
    if k == 2:
        return flip(m, (ax0, ax1))
    perm = list(range(nd))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return transpose(flip(m, ax1), perm)
    return flip(transpose(m, perm), ax1)


def kron(a: ArrayLike, b: ArrayLike) -> Array:
    """The Kronecker product: blocks ``a[i, j] * b``.

    Args:
      a: an array-like.
      b: an array-like.

    Returns:
      An array whose shape is the elementwise product of the (rank-padded) shapes.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: kron(np.array([1, 10]), np.array([1, 2, 3]))).shape
    (6,)
    """
    out = run_compiled("kron", kron, (a, b))  # eagerly: one program, as JAX's jit
    if out is not None:
        return unchanged(out)
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(a, b)
    sa, sb = shape_of(a), shape_of(b)
    nd = max(len(sa), len(sb))
    sa = (1,) * (nd - len(sa)) + sa
    sb = (1,) * (nd - len(sb)) + sb
    a = reshape(a, tuple(d for s in sa for d in (s, 1)))
    b = reshape(b, tuple(d for s in sb for d in (1, s)))
    return unchanged(reshape(multiply(a, b), tuple(x * y for x, y in zip(sa, sb, strict=True))))


def cross(
    a: ArrayLike,
    b: ArrayLike,
    axisa: int = -1,
    axisb: int = -1,
    axisc: int = -1,
    axis: int | None = None,
) -> Array:
    """The cross product of 2- or 3-vectors along the given axes.

    Args:
      a: vectors along ``axisa`` (length 2 or 3).
      b: vectors along ``axisb`` (length 2 or 3).
      axisa: the vector axis of ``a``.
      axisb: the vector axis of ``b``.
      axisc: where the vector axis of the result goes.
      axis: when given, overrides the three axes above.

    Returns:
      The cross products (the z components only when both inputs are 2-vectors).

    Raises:
      ValueError: a vector axis has a length other than 2 or 3.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: cross(np.array([1, 0, 0]), np.array([0, 1, 0]))).shape
    (3,)
    """
    out = run_compiled("cross", cross, (a, b), axisa, axisb, axisc, axis)  # as JAX's jit
    if out is not None:
        return unchanged(out)
    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtypes(a, b)
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    na, nb = shape_of(a)[-1], shape_of(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    a0, a1 = getitem(a, (Ellipsis, 0)), getitem(a, (Ellipsis, 1))
    b0, b1 = getitem(b, (Ellipsis, 0)), getitem(b, (Ellipsis, 1))
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if na == 2 and nb == 2:
        return unchanged(z)
    a2 = getitem(a, (Ellipsis, 2)) if na == 3 else None
    b2 = getitem(b, (Ellipsis, 2)) if nb == 3 else None
    if a2 is None:
        assert b2 is not None  # na == 2, so nb == 3
        x, y = multiply(a1, b2), subtract(0, multiply(a0, b2))
    elif b2 is None:
        x, y = subtract(0, multiply(a2, b1)), multiply(a2, b0)
    else:
        x = subtract(multiply(a1, b2), multiply(a2, b1))
        y = subtract(multiply(a2, b0), multiply(a0, b2))
    c = stack([x, y, z], axis=-1)
    return unchanged(moveaxis(c, -1, axisc))


def eye(
    N: int,
    M: int | None = None,
    k: int = 0,
    dtype: DTypeLike | None = None,
    *,
    device: object = None,
) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal.

    Args:
      N: the number of rows.
      M: the number of columns (default ``N``).
      k: the diagonal offset.
      dtype: the dtype (default float32).
      device: the device to place the result on.

    Returns:
      The array.

    Raises:
      ValueError: ``N`` or ``M`` is negative.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda: eye(2, 4, k=1, dtype="int32")).shape
    (2, 4)
    """
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    if n < 0 or m < 0:
        raise ValueError(
            f"negative dimensions are not allowed, got N={n} and M={M}; eye needs N >= 0 and M >= 0"
        )
    out_dt = dtype_or(dtype, _dt.canonicalize_dtype(np.float64))
    i32 = np.dtype(np.int32)
    rows = lax.broadcasted_iota(i32, (n, m), 0)
    cols = lax.broadcasted_iota(i32, (n, m), 1)
    out = convert(lax.eq(lax.add(rows, convert(operator.index(k), i32)), cols), out_dt)
    return unchanged(out if device is None else place_result(out, device))


def identity(n: int, dtype: DTypeLike | None = None) -> Array:
    """The ``n`` by ``n`` identity matrix.

    Args:
      n: the size.
      dtype: the dtype (default float32).

    Returns:
      The array.

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: identity(4)).shape
    (4, 4)
    """
    return eye(n, dtype=dtype)
