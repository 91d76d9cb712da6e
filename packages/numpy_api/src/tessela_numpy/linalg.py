"""``tessela_numpy.linalg``: the linear-algebra names of ``jax.numpy.linalg`` built so far.

``norm`` computes every vector norm and every matrix norm of NumPy
(Frobenius, ``1``, ``-1``, ``inf``, ``-inf``, and through the singular values
``2``, ``-2`` and ``"nuc"``), staged in one ``jit`` named ``norm`` as JAX
stages it; ``cond`` is built on it and on ``svdvals``.

The factorisations and solvers (``cholesky``, ``qr``, ``solve``, ``inv``,
``det``, ``slogdet``, ``matrix_power``, ``diagonal``) and the spectral
functions (``eig``, ``eigvals``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, ``pinv``, ``matrix_rank``) are built on
``tessela_tracer.lax.linalg`` (``cholesky``, ``lu``, ``qr``,
``triangular_solve``, ``eig``, ``eigh``, ``svd``) as JAX builds them, and map
over leading batch axes. Compiled for CPU, ``eig``, ``eigh`` and ``svd`` call
LAPACK (``eig`` runs on CPU only, as in JAX).

>>> import numpy as np
>>> from tessela_tracer import ShapeDtypeStruct, eval_shape
>>> eval_shape(norm, ShapeDtypeStruct((3, 4), "float32")).shape
()
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arith import power
from ._arrays import aval_of, check_arraylike, convert, promote_dtypes_inexact, shape_of
from ._linalg import (
    QRResult,
    SlogdetResult,
    cholesky,
    det,
    diagonal,
    inv,
    matrix_power,
    qr,
    slogdet,
    solve,
)
from ._linalg_more import (
    cross,
    lstsq,
    matmul,
    matrix_transpose,
    multi_dot,
    outer,
    tensordot,
    tensorinv,
    tensorsolve,
    trace,
    vecdot,
)
from ._linalg_spectral import (
    EighResult,
    EigResult,
    SVDResult,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    matrix_rank,
    pinv,
    svd,
    svdvals,
)
from ._reductions import any as _any
from ._reductions import max as _amax
from ._reductions import min as _amin
from ._reductions import sum as _sum
from ._shape_ops import expand_dims, moveaxis
from ._shapes import canonicalize_axis
from ._ufuncs import abs as _abs
from ._ufuncs import conj, isnan, real, sqrt
from ._where import where

__all__ = [
    "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond",
    "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot",
    "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
    "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm",
]  # fmt: skip


def _hashable_ord(ord: Any) -> Any:
    if ord is None or isinstance(ord, str):
        return ord
    return float(ord) if isinstance(ord, float | np.floating) else operator.index(ord)


def norm(
    x: ArrayLike,
    ord: int | float | str | None = None,
    axis: tuple[int, ...] | int | None = None,
    keepdims: bool = False,
) -> Array:
    """A vector or matrix norm, as ``numpy.linalg.norm`` computes it.

    Args:
      x: the array (integers are promoted to the default float dtype).
      ord: the order. With one axis (or a 1-D ``x``): ``None``/``2``, ``inf``,
        ``-inf``, ``0``, ``1`` or any other number ``p`` (``sum(|x|**p)**(1/p)``).
        With two axes: ``None``/``"fro"``/``"f"``, ``1``, ``-1``, ``inf``,
        ``-inf``, ``2`` (largest singular value), ``-2`` (smallest) or
        ``"nuc"`` (their sum).
      axis: ``None`` (all axes; with ``ord=None`` any rank), one axis (a
        vector norm) or two axes (a matrix norm).
      keepdims: keep the reduced axes with size one.

    Returns:
      The norm, of a real floating dtype.

    Raises:
      ValueError: an unknown ``ord``, or not one or two axes.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: norm(x, 1, axis=0), ShapeDtypeStruct((3, 4), "float32")).shape
    (4,)
    """
    check_arraylike("jnp.linalg.norm", x)
    if isinstance(axis, list):
        axis = tuple(axis)
    if axis is not None and not isinstance(axis, tuple):
        axis = operator.index(axis)
    elif isinstance(axis, tuple):
        axis = tuple(operator.index(a) for a in axis)
    return unchanged(_norm_jit(x, _hashable_ord(ord), axis, bool(keepdims)))


def _frobenius(x: Any, axis: Any, keepdims: bool) -> Any:
    return sqrt(_sum(real(x * conj(x)), axis=axis, keepdims=keepdims))


def _norm(x: Any, ord: Any, axis: Any, keepdims: bool) -> Any:
    (x,) = promote_dtypes_inexact(x)
    ndim = len(shape_of(x))
    if axis is None:
        if ord is None:
            return _frobenius(x, None, keepdims)
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(canonicalize_axis(a, ndim) for a in axis)
    else:
        axis = (canonicalize_axis(axis, ndim),)
    if len(axis) == 1:
        return _vector_norm(x, 2 if ord is None else ord, axis, keepdims)
    if len(axis) != 2:
        raise ValueError(
            f"Improper number of axes for norm: {axis=}. Pass one axis to compute a "
            "vector-norm, or two axes to compute a matrix-norm."
        )
    row_axis, col_axis = axis
    if ord is None or ord in ("f", "fro"):
        return _frobenius(x, axis, keepdims)
    if ord in (1, -1):
        if not keepdims and col_axis > row_axis:
            col_axis -= 1
        sums = _sum(_abs(x), axis=row_axis, keepdims=keepdims)
        if ord == 1:
            return _amax(sums, axis=col_axis, keepdims=keepdims, initial=0)
        return _amin(sums, axis=col_axis, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        if not keepdims and row_axis > col_axis:
            row_axis -= 1
        sums = _sum(_abs(x), axis=col_axis, keepdims=keepdims)
        if ord == np.inf:
            return _amax(sums, axis=row_axis, keepdims=keepdims, initial=0)
        return _amin(sums, axis=row_axis, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        x = moveaxis(x, axis, (-2, -1))
        s = unchanged(svd(x, compute_uv=False))
        if ord == 2:
            y = _amax(s, axis=-1, initial=0)
        elif ord == -2:
            y = _amin(s, axis=-1)
        else:
            y = _sum(s, axis=-1)
        return expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


_norm.__name__ = _norm.__qualname__ = "norm"
_norm_jit = jit(_norm, static_argnums=(1, 2, 3))


def cond(x: ArrayLike, p: int | float | str | None = None) -> Array:
    """The condition number ``norm(x, p) * norm(inv(x), p)`` of matrices.

    Args:
      x: matrices ``(..., m, n)``; square unless ``p`` is ``None``, ``2`` or ``-2``.
      p: ``None``/``2`` (largest over smallest singular value), ``-2``, ``1``,
        ``-1``, ``inf``, ``-inf`` or ``"fro"``.

    Returns:
      The condition numbers, of shape ``x.shape[:-2]``; ``inf`` for a singular
      matrix without NaNs (except with ``p=None`` or ``2``, as in JAX).

    Raises:
      ValueError: ``x`` has fewer than two dimensions, is empty, or is not
        square for a ``p`` that needs the inverse.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: cond(x, "fro"), ShapeDtypeStruct((2, 3, 3), "float32")).shape
    (2,)
    """
    check_arraylike("jnp.linalg.cond", x)
    shape = shape_of(x)
    if len(shape) < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got shape {shape}.")
    if shape[-1] == 0 or shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got shape {shape}.")
    if p not in (None, 2, -2) and shape[-2] != shape[-1]:
        raise ValueError(
            f"jnp.linalg.cond: for p={p!r}, the array must be square; got shape {shape} "
            "(p=None, 2 and -2 accept non-square matrices)."
        )
    return unchanged(_cond_jit(x, _hashable_ord(p)))


def _cond(x: Any, p: Any) -> Any:
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # NaNs from a singular matrix become inf, unless x itself has NaNs.
    return where(isnan(r) & ~_any(isnan(x), axis=(-2, -1)), np.inf, r)


_cond.__name__ = _cond.__qualname__ = "cond"
_cond_jit = jit(_cond, static_argnums=(1,))


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: str | int = "fro") -> Array:
    """The norm of the matrices in the last two axes of ``x``.

    Args:
      x: an array of rank two or more.
      keepdims: keep the reduced axes with size one.
      ord: ``"fro"``, ``"nuc"``, ``1``, ``-1``, ``2``, ``-2``, ``inf`` or ``-inf``.

    Returns:
      The norms, one per matrix.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(matrix_norm, S((4, 2, 3), "float32")).shape
    (4,)
    """
    check_arraylike("jnp.linalg.matrix_norm", x)
    return unchanged(norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1)))


def vector_norm(
    x: ArrayLike,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:
    """The vector norm of ``x`` over ``axis`` (all axes by default).

    Args:
      x: the array.
      axis: the axes to reduce; ``None`` reduces the flattened array.
      keepdims: keep the reduced axes with size one.
      ord: ``2``, ``inf``, ``-inf``, ``0``, ``1`` or any other number ``p``.

    Returns:
      The norm.

    Raises:
      ValueError: ``ord`` is a string.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: vector_norm(x, ord=1), ShapeDtypeStruct((3, 4), "float32")).shape
    ()
    """
    check_arraylike("jnp.linalg.vector_norm", x)
    return unchanged(_vector_norm(x, ord, axis, keepdims))


def _vector_norm(x: Any, ord: Any, axis: Any, keepdims: bool) -> Any:
    if ord is None or ord == 2:
        return _frobenius(x, axis, keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f" Use '{ord[:-3]}tessela_numpy.inf' instead."
        raise ValueError(msg)
    if ord == np.inf:
        return _amax(_abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return _amin(_abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        dt = _dt.finfo(aval_of(x).dtype).dtype
        return _sum(x != 0, dtype=dt, axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(_abs(x), axis=axis, keepdims=keepdims)
    abs_x = _abs(x)
    dt = aval_of(abs_x).dtype
    ord_arr: Any = convert(np.asarray(ord), dt)  # a NumPy scalar of dt
    ord_inv = convert(np.asarray(1.0 / ord_arr), dt)
    out = _sum(abs_x**ord_arr, axis=axis, keepdims=keepdims)
    return power(out, ord_inv)
