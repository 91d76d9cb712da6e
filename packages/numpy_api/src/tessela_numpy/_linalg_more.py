"""The array-API and NumPy names of ``jax.numpy.linalg`` built on other functions.

``matrix_transpose``, ``outer``, ``cross``, ``trace``,
``vecdot``, ``matmul``, ``tensordot``, ``multi_dot``, ``tensorinv``,
``tensorsolve`` and ``lstsq`` check their arguments as JAX 0.10.2 does and
call the ``tessela_numpy`` functions (``lstsq`` through the SVD, as JAX).

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(lambda a, b: lstsq(a, b)[0], S((5, 3), "float32"), S((5,), "float32")).shape
(3,)
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.lax import PrecisionLike
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, promote_dtypes_inexact, shape_of
from ._creation import asarray
from ._eager import run_compiled
from ._linalg import inv, solve
from ._linalg_spectral import svd
from ._matrix_ops import cross as _cross
from ._matrix_ops import trace as _trace
from ._numpy_more import vecdot as _vecdot
from ._products import einsum
from ._products import matmul as _matmul
from ._products import tensordot as _tensordot
from ._reductions import sum as _sum
from ._shape_ops import moveaxis, ravel, reshape
from ._ufuncs import conj, real
from ._where import where

__all__ = [
    "cross", "lstsq", "matmul", "matrix_transpose", "multi_dot", "outer",
    "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
]  # fmt: skip


def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes of ``x``.

    Args:
      x: an array of rank two or more.

    Returns:
      The transposed stack of matrices.

    Raises:
      ValueError: ``x`` has fewer than two axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(matrix_transpose, S((4, 2, 3), "float32")).shape
    (4, 3, 2)
    """
    check_arraylike("jnp.linalg.matrix_transpose", x)
    ndim = len(shape_of(x))
    if ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={ndim}")
    return lax.transpose(asarray(x), (*range(ndim - 2), ndim - 1, ndim - 2))


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """The outer product of two vectors.

    Args:
      x1: a 1-D array.
      x2: a 1-D array.

    Returns:
      ``x1[:, None] * x2[None, :]``.

    Raises:
      ValueError: an input is not one-dimensional.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(outer, S((2,), "float32"), S((3,), "int32")).shape
    (2, 3)
    """
    check_arraylike("jnp.linalg.outer", x1, x2)
    n1, n2 = len(shape_of(x1)), len(shape_of(x2))
    if n1 != 1 or n2 != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are {n1=} {n2=}")
    return unchanged(asarray(x1)[:, None] * asarray(x2)[None, :])


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """The cross product of 3-vectors along ``axis``.

    Args:
      x1: an array whose ``axis`` has size 3.
      x2: an array whose ``axis`` has size 3.
      axis: the axis holding the vectors.

    Returns:
      The cross products.

    Raises:
      ValueError: an input's ``axis`` does not have size 3.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(cross, S((2, 3), "float32"), S((3,), "float32")).shape
    (2, 3)
    """
    check_arraylike("jnp.linalg.cross", x1, x2)
    s1, s2 = shape_of(x1)[axis], shape_of(x2)[axis]
    if s1 != 3 or s2 != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they have x1.shape[axis]={s1} and x2.shape[axis]={s2}"
        )
    return unchanged(_cross(x1, x2, axis=axis))


def trace(x: ArrayLike, /, *, offset: int = 0, dtype: npt.DTypeLike | None = None) -> Array:
    """The sums of the diagonals of the matrices in the last two axes.

    Args:
      x: an array of rank two or more.
      offset: the diagonal (positive: above the main one).
      dtype: the accumulation and result dtype.

    Returns:
      One sum per matrix.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(trace, S((5, 2, 2), "int32")).shape
    (5,)
    """
    check_arraylike("jnp.linalg.trace", x)
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def vecdot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axis: int = -1,
    precision: PrecisionLike = None,
    preferred_element_type: npt.DTypeLike | None = None,
) -> Array:
    """The dot products of vectors along ``axis`` (the first one conjugated).

    Args:
      x1: an array.
      x2: an array broadcast-compatible with ``x1``.
      axis: the axis holding the vectors.
      precision: accepted as JAX does (CPU computes at full precision).
      preferred_element_type: the result dtype.

    Returns:
      The dot products.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(vecdot, S((4, 3), "float32"), S((3,), "float32")).shape
    (4,)
    """
    del precision
    check_arraylike("jnp.linalg.vecdot", x1, x2)
    out = _vecdot(x1, x2, axis=axis)
    if preferred_element_type is not None:
        out = convert(out, np.dtype(_dt.canonicalize_dtype(preferred_element_type)))
    return unchanged(out)


def matmul(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: npt.DTypeLike | None = None,
) -> Array:
    """The matrix product, as ``tessela_numpy.matmul``.

    Args:
      x1: an array of rank one or more.
      x2: an array of rank one or more.
      precision: accepted as JAX does.
      preferred_element_type: the result dtype.

    Returns:
      The product.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(matmul, S((2, 3), "float32"), S((3, 5), "float32")).shape
    (2, 5)
    """
    check_arraylike("jnp.linalg.matmul", x1, x2)
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axes: int | tuple[Sequence[int], Sequence[int]] = 2,
    precision: PrecisionLike = None,
    preferred_element_type: npt.DTypeLike | None = None,
) -> Array:
    """The tensor contraction of ``x1`` and ``x2`` over ``axes``.

    Args:
      x1: an array.
      x2: an array.
      axes: the number of trailing/leading axes to contract, or two sequences.
      precision: accepted as JAX does.
      preferred_element_type: the result dtype.

    Returns:
      The contraction.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a, b: tensordot(a, b, axes=1), S((2, 3), "f4"), S((3, 4), "f4")).shape
    (2, 4)
    """
    check_arraylike("jnp.linalg.tensordot", x1, x2)
    return _tensordot(
        x1, x2, axes=axes, precision=precision, preferred_element_type=preferred_element_type
    )


def multi_dot(arrays: Sequence[ArrayLike], *, precision: PrecisionLike = None) -> Array:
    """The product of a chain of matrices (the ends may be vectors).

    Args:
      arrays: two or more arrays: 2-D, except the first and last, which may be 1-D.
      precision: accepted as JAX does.

    Returns:
      The chained product.

    Raises:
      ValueError: fewer than two arrays, wrong ranks or mismatched sizes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda *a: multi_dot(a), S((3,), "f4"), S((3, 4), "f4"), S((4,), "f4")).shape
    ()
    """
    check_arraylike("jnp.linalg.multi_dot", *arrays)
    arrs = [asarray(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    shapes = [a.shape for a in arrs]
    if not (
        len(shapes[0]) in (1, 2)
        and len(shapes[-1]) in (1, 2)
        and all(len(s) == 2 for s in shapes[1:-1])
    ):
        raise ValueError(
            "multi_dot: input arrays must all be two-dimensional, except for the first and "
            f"last array which may be 1 or 2 dimensional. Got array shapes {shapes}"
        )
    if any(a[-1] != b[0] for a, b in itertools.pairwise(shapes)):
        raise ValueError(
            "multi_dot: last dimension of each array must match first dimension of "
            f"following array. Got array shapes {shapes}"
        )
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if len(arrs) + 1 > len(letters):
        out = arrs[0]
        for a in arrs[1:]:
            out = _matmul(out, a, precision=precision)
        return out
    terms = [letters[i : i + 2] for i in range(len(arrs))]
    if len(shapes[0]) == 1:
        terms[0] = terms[0][1:]
    if len(shapes[-1]) == 1:
        terms[-1] = terms[-1][:1]
    out_term = (terms[0][0] if len(shapes[0]) == 2 else "") + (
        terms[-1][-1] if len(shapes[-1]) == 2 else ""
    )
    spec = ",".join(terms) + "->" + out_term
    return einsum(spec, *arrs, precision=precision)


def tensorinv(a: ArrayLike, ind: int = 2) -> Array:
    """The inverse of a tensor seen as a matrix of its first ``ind`` and other axes.

    Args:
      a: an array with ``prod(a.shape[:ind]) == prod(a.shape[ind:])``.
      ind: the number of leading axes that form the rows.

    Returns:
      The inverse, of shape ``a.shape[ind:] + a.shape[:ind]``.

    Raises:
      ValueError: ``ind`` is not positive or the shape is not square.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: tensorinv(a, ind=1), S((6, 2, 3), "float32")).shape
    (2, 3, 6)
    """
    check_arraylike("tensorinv", a)
    shape = shape_of(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got {ind=}")
    contracting, batch = shape[:ind], shape[ind:]
    if math.prod(contracting) != math.prod(batch):
        raise ValueError(f"a.shape[:ind]={contracting} must match a.shape[ind:]={batch}")
    rows = reshape(a, (math.prod(contracting), -1))
    return unchanged(reshape(inv(rows), (*batch, *contracting)))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: tuple[int, ...] | None = None) -> Array:
    """Solve the tensor equation ``tensordot(a, x, x.ndim) == b`` for ``x``.

    Args:
      a: the coefficient tensor.
      b: the right-hand side; its shape is ``a``'s leading axes.
      axes: axes of ``a`` moved to the end before solving.

    Returns:
      ``x``, of shape ``a.shape[b.ndim:]``.

    Raises:
      ValueError: the shapes do not fit.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(tensorsolve, S((2, 3, 6), "float32"), S((2, 3), "float32")).shape
    (6,)
    """
    check_arraylike("tensorsolve", a, b)
    a, b = promote_dtypes_inexact(asarray(a), asarray(b))
    a_ndim = len(a.shape)
    if axes is not None:
        a = moveaxis(a, axes, len(axes) * (a_ndim - 1,))
    b_shape = shape_of(b)
    out_shape = a.shape[len(b_shape) :]
    if a.shape[: len(b_shape)] != b_shape:
        raise ValueError(
            "b must match the leading dimensions of a; got "
            f"b.shape={b_shape}, a.shape[:b.ndim]={a.shape[: len(b_shape)]}"
        )
    if math.prod(out_shape) != math.prod(b_shape):
        raise ValueError(
            f"a.shape[b.ndim:] must have the same number of elements as b.shape; got "
            f"{out_shape} and {b_shape}"
        )
    size = math.prod(b_shape)
    return unchanged(reshape(solve(reshape(a, (size, -1)), ravel(b)), out_shape))


def lstsq(
    a: ArrayLike, b: ArrayLike, rcond: float | None = None, *, numpy_resid: bool = False
) -> tuple[Array, Array, Array, Array]:
    """The least-squares solution of ``a @ x = b``, through the SVD of ``a`` (as JAX).

    Args:
      a: an ``(M, N)`` matrix.
      b: an ``(M,)`` or ``(M, K)`` right-hand side.
      rcond: singular values below ``rcond * s[0]`` count as zero (default
        ``eps * max(M, N)``; a negative value means ``eps``).
      numpy_resid: return empty residuals where NumPy does (not traceable);
        by default the residuals are always computed.

    Returns:
      ``(x, residuals, rank, s)``: the solution, the squared residual norms
      per column, the effective rank (int32) and the singular values.

    Raises:
      ValueError: the leading dimensions differ.
      TypeError: ``a`` is not 2-D or ``b`` not 1-D or 2-D.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> [o.shape for o in eval_shape(lstsq, S((5, 3), "f4"), S((5, 2), "f4"))]
    [(3, 2), (2,), (), (3,)]
    """
    if not numpy_resid:  # eagerly: one program, as JAX's jit
        if rcond is None:
            out = run_compiled("lstsq", lstsq, (a, b), None)
        else:
            out = run_compiled("lstsq", lstsq, (a, b, rcond))
        if out is not None:
            return cast(tuple[Array, Array, Array, Array], tuple(out))
    check_arraylike("jnp.linalg.lstsq", a, b)
    a, b = promote_dtypes_inexact(asarray(a), asarray(b))
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = len(b.shape)
    if b_orig_ndim == 1:
        b = b[:, None]
    if len(a.shape) != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if len(b.shape) != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    dtype = aval_of(a).dtype
    eps = float(_dt.finfo(dtype).eps)
    u, s, vt = svd(a, full_matrices=False)
    s_dtype = aval_of(s).dtype
    if rcond is None:
        cut = convert(eps * max(n, m), s_dtype)
    else:
        cut = where(asarray(rcond) < 0, eps, rcond).astype(s_dtype)
    mask = s >= cut * s[0]
    rank = _sum(mask, dtype=np.int32)
    safe_s = where(mask, s, 1).astype(dtype)
    s_inv = where(mask, 1 / safe_s, 0)[:, None]
    u_tb = _matmul(conj(u).T, b, precision=lax.Precision.HIGHEST)
    x = _matmul(conj(vt).T, s_inv * u_tb, precision=lax.Precision.HIGHEST)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = asarray([])
    else:
        diff = b - _matmul(a, x, precision=lax.Precision.HIGHEST)
        resid = _sum(real(diff * conj(diff)), axis=0)
    if b_orig_ndim == 1:
        x = ravel(x)
    return x, resid, rank, s
