"""Factorisations, solvers and determinants of ``tessela_numpy.linalg``.

Built on ``tessela_tracer.lax.linalg`` as JAX builds ``jax.numpy.linalg``:
``solve`` and ``inv`` through LU with partial pivoting, ``det`` through
closed forms for 2x2 and 3x3 and LU beyond (its JVP through the adjugate,
finite at singular matrices), ``slogdet`` through LU with a custom JVP (``d log|det a| = trace(a^-1 da)``). Each public function is staged
in one ``jit`` named after it.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np
from tessela_tracer import custom_jvp, jit, lax
from tessela_tracer import dtypes as _dt
from tessela_tracer.lax import linalg as lax_linalg
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, promote_dtypes_inexact, shape_of
from ._products import matmul
from ._reductions import any as _any
from ._reductions import prod as _prod
from ._reductions import sum as _sum
from ._shapes import broadcast_shapes
from ._take import take_along_axis
from ._ufuncs import abs as _abs
from ._ufuncs import conj, exp, isinf, isnan, log, real
from ._where import where

__all__ = [
    "QRResult", "SlogdetResult", "cholesky", "det", "diagonal", "inv", "matrix_power", "qr",
    "slogdet", "solve",
]  # fmt: skip


# ------------------------------------------------------------- factorisations


class QRResult(NamedTuple):
    """``(Q, R)`` of :func:`qr`."""

    Q: Any
    R: Any


class SlogdetResult(NamedTuple):
    """``(sign, logabsdet)`` of :func:`slogdet`."""

    sign: Any
    logabsdet: Any


def _square(fun_name: str, a: Any) -> tuple[int, ...]:
    shape = shape_of(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(
            f"Argument to {fun_name} must have shape [..., n, n], got {shape}; pass a (batch "
            "of) square matrices."
        )
    return shape


def _mT(x: Any) -> Any:
    nd = len(shape_of(x))
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _eye_like(shape: tuple[int, ...], dtype: Any) -> Any:
    n = shape[-1]
    return lax.broadcast_in_dim(np.eye(n, dtype=dtype), shape, (len(shape) - 2, len(shape) - 1))


def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> Array:
    """The Cholesky factor of Hermitian positive-definite matrices.

    Args:
      a: matrices of shape ``(..., n, n)``.
      upper: return the upper factor ``U = L^H`` (``a = U^H U``) instead of ``L``.
      symmetrize_input: factor ``(a + a^H) / 2``; with ``False`` only the lower
        triangle of ``a`` is read.

    Returns:
      ``L`` (``a = L L^H``), or ``U`` with ``upper``; NaNs for a matrix that is
      not positive definite.

    Raises:
      ValueError: ``a`` is not a (batch of) square matrices.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(cholesky, ShapeDtypeStruct((2, 3, 3), "float32")).shape
    (2, 3, 3)
    """
    check_arraylike("jnp.linalg.cholesky", a)
    _square("cholesky", a)
    return unchanged(_cholesky_jit(a, bool(upper), bool(symmetrize_input)))


def _cholesky(a: Any, upper: bool, symmetrize_input: bool) -> Any:
    (a,) = promote_dtypes_inexact(a)
    factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return conj(_mT(factor)) if upper else factor


_cholesky.__name__ = _cholesky.__qualname__ = "cholesky"
_cholesky_jit = jit(_cholesky, static_argnums=(1, 2))


def qr(a: ArrayLike, mode: str = "reduced") -> QRResult | Array:
    """The QR decomposition ``a = Q R`` (Householder, LAPACK's signs).

    Args:
      a: matrices of shape ``(..., m, n)``.
      mode: ``"reduced"`` (``Q`` is ``(..., m, k)``, ``R`` ``(..., k, n)``,
        ``k = min(m, n)``), ``"complete"`` (``Q`` is ``(..., m, m)``, ``R``
        ``(..., m, n)``) or ``"r"`` (only the reduced ``R``).

    Returns:
      A :class:`QRResult` ``(Q, R)``, or ``R`` alone for ``mode="r"``.

    Raises:
      ValueError: an unknown ``mode`` (``"raw"`` is not supported).
      TypeError: ``a`` has fewer than two dimensions.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> x = ShapeDtypeStruct((5, 3), "float32")
    >>> [o.shape for o in eval_shape(lambda x: qr(x, mode="complete"), x)]
    [(5, 5), (5, 3)]
    """
    check_arraylike("jnp.linalg.qr", a)
    if mode not in ("reduced", "complete", "r", "full"):
        raise ValueError(
            f"Unsupported QR decomposition mode {mode!r}; use 'reduced', 'complete' or 'r'."
        )
    result: QRResult | Array = _qr_jit(a, mode)
    return result


def _qr(a: Any, mode: str) -> Any:
    (a,) = promote_dtypes_inexact(a)
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


_qr.__name__ = _qr.__qualname__ = "qr"
_qr_jit = jit(_qr, static_argnums=(1,))


def _lu_solve(lu: Any, perm: Any, b: Any) -> Any:
    """Solve ``a x = b`` from ``lu(a)`` (batch axes of all three equal)."""
    x = take_along_axis(b, lax.expand_dims(perm, (len(shape_of(perm)),)), axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)


def solve(a: ArrayLike, b: ArrayLike) -> Array:
    """Solve ``a @ x = b`` by LU decomposition with partial pivoting.

    Args:
      a: matrices ``(..., n, n)``.
      b: a vector ``(n,)`` or matrices ``(..., n, k)``; batch axes broadcast
        against ``a``'s.

    Returns:
      ``x``: ``(..., n)`` for a vector ``b``, else ``(..., n, k)``; ``inf``
      or NaN where ``a`` is singular.

    Raises:
      ValueError: ``a`` is not square, or ``b``'s rows do not match ``a``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> a = ShapeDtypeStruct((4, 3, 3), "float32")
    >>> eval_shape(solve, a, ShapeDtypeStruct((3,), "float32")).shape
    (4, 3)
    """
    check_arraylike("jnp.linalg.solve", a, b)
    sa, sb = shape_of(a), shape_of(b)
    if len(sa) < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={sa}")
    if len(sb) > 1 and len(sa) == len(sb) + 1 and sa[-1] == sb[-1] and sa[-1] != sb[-2]:
        raise ValueError(
            f"Invalid shapes for solve: {sa}, {sb}. A batch of vectors is solved as "
            "solve(a, b[..., None])[..., 0]."
        )
    if not sb:
        raise ValueError("solve: b must have at least one dimension; got a scalar.")
    rows = sb[0] if len(sb) == 1 else sb[-2]
    if sa[-1] != sa[-2] or rows != sa[-1]:
        raise ValueError(
            f"solve requires a of shape (..., n, n) and b of shape (n,) or (..., n, k); got "
            f"a.shape={sa} and b.shape={sb}."
        )
    return unchanged(_solve_jit(a, b))


def _solve(a: Any, b: Any) -> Any:
    a, b = promote_dtypes_inexact(a, b)
    vector = len(shape_of(b)) == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    sa, sb = shape_of(a), shape_of(b)
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    a = lax.broadcast_in_dim(
        a, (*batch, *sa[-2:]), tuple(range(len(batch) - len(sa) + 2, len(batch) + 2))
    )
    b = lax.broadcast_in_dim(
        b, (*batch, *sb[-2:]), tuple(range(len(batch) - len(sb) + 2, len(batch) + 2))
    )
    lu, _, perm = lax_linalg.lu(a)
    x = _lu_solve(lu, perm, b)
    return lax.squeeze(x, (len(batch) + 1,)) if vector else x


_solve.__name__ = _solve.__qualname__ = "solve"
_solve_jit = jit(_solve)


def inv(a: ArrayLike) -> Array:
    """The inverse of square matrices, ``solve(a, I)``.

    Args:
      a: matrices ``(..., n, n)``.

    Returns:
      The inverses; ``inf`` or NaN where ``a`` is singular.

    Raises:
      ValueError: ``a`` is not a (batch of) square matrices.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(inv, ShapeDtypeStruct((3, 3), "int32")).dtype
    dtype('float32')
    """
    check_arraylike("jnp.linalg.inv", a)
    _square("inv", a)
    return unchanged(_inv_jit(a))


def _inv(a: Any) -> Any:
    (a,) = promote_dtypes_inexact(a)
    shape = shape_of(a)
    return _solve(a, _eye_like(shape, aval_of(a).dtype))


_inv.__name__ = _inv.__qualname__ = "inv"
_inv_jit = jit(_inv)


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Array:
    """The diagonal of the last two axes (the array API's ``linalg.diagonal``).

    Args:
      x: an array with at least two dimensions.
      offset: the diagonal above (positive) or below (negative) the main one.

    Returns:
      ``x[..., i, i + offset]`` over the valid ``i``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: diagonal(x, offset=1), ShapeDtypeStruct((2, 3), "float32")).shape
    (2,)
    """
    check_arraylike("jnp.linalg.diagonal", x)
    shape = shape_of(x)
    if len(shape) < 2:
        raise ValueError(f"diagonal requires an array of at least two dimensions, got {shape}.")
    m, n = shape[-2:]
    offset = operator.index(offset)
    first, last = max(0, -offset), max(max(0, -offset), min(m, n - offset))
    nb = len(shape) - 2
    rows = lax.slice(x, (0,) * nb + (first, 0), (*shape[:-2], last, n))
    if last == first:
        return lax.reshape(rows, (*shape[:-2], 0))
    cols = np.arange(first + offset, last + offset, dtype=np.int32).reshape(last - first, 1)
    picked = take_along_axis(rows, np.broadcast_to(cols, (*shape[:-2], last - first, 1)), axis=-1)
    return lax.squeeze(picked, (nb + 1,))


def _det_2x2(a: Any) -> Any:
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a: Any) -> Any:
    return (
        a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
        + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
        + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
        - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
        - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
        - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2]
    )


def _trace(x: Any) -> Any:
    return _sum(diagonal(x), axis=-1)


# ------------------------------------------------------------ determinants


def _slogdet_from_lu(a: Any) -> tuple[Any, Any]:
    dtype = aval_of(a).dtype
    n = shape_of(a)[-1]
    lu, pivots, _ = lax_linalg.lu(a)
    d = diagonal(lu)
    is_zero = _any(d == 0, axis=-1)
    swaps = _sum(pivots != np.arange(n, dtype=np.int32), axis=-1)
    if _dt.issubdtype(dtype, np.complexfloating):
        unit: Any = _prod(d / _abs(d).astype(dtype), axis=-1)
    else:
        unit = np.asarray(1, dtype)
        swaps = swaps + _sum(d < 0, axis=-1)
    sgn = where(is_zero, np.asarray(0, dtype), unit * (1 - 2 * (swaps % 2)).astype(dtype))
    logabs = where(is_zero, -np.inf, _sum(log(_abs(d)), axis=-1))
    return sgn, real(logabs)


def _slogdet_small(a: Any) -> tuple[Any, Any]:
    d = a[..., 0, 0] if shape_of(a)[-1] == 1 else _det_2x2(a)
    return _sign(d), real(log(_abs(d)))


def _sign(x: Any) -> Any:
    if _dt.issubdtype(aval_of(x).dtype, np.complexfloating):
        mag = _abs(x)
        return where(mag == 0, np.asarray(0, aval_of(x).dtype), x / mag.astype(aval_of(x).dtype))
    return lax.sign(x)


def _logdet_tangent(x: Any, g: Any, sgn: Any) -> tuple[Any, Any]:
    """``d log det = trace(x^-1 g)``; the sign moves only for complex ``x``."""
    ans_dot = _trace(_solve(x, g))
    if _dt.issubdtype(aval_of(x).dtype, np.complexfloating):
        sign_dot = (ans_dot - real(ans_dot).astype(aval_of(ans_dot).dtype)) * sgn
        return sign_dot, real(ans_dot)
    return sgn * 0, ans_dot


_slogdet_lu = custom_jvp(_slogdet_from_lu)
_slogdet_analytic = custom_jvp(_slogdet_small)


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (g,) = primals, tangents
    sgn, logabs = _slogdet_lu(x)
    sign_dot, ans_dot = _logdet_tangent(x, g, sgn)
    return (sgn, logabs), (sign_dot, ans_dot)


@_slogdet_analytic.defjvp
def _slogdet_analytic_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (g,) = primals, tangents
    sgn, logabs = _slogdet_analytic(x)
    if shape_of(x)[-1] == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:
        ans_dot = (
            g[..., 0, 0] * x[..., 1, 1] - g[..., 0, 1] * x[..., 1, 0]
            - g[..., 1, 0] * x[..., 0, 1] + g[..., 1, 1] * x[..., 0, 0]
        ) / _det_2x2(x)  # fmt: skip
    if _dt.issubdtype(aval_of(x).dtype, np.complexfloating):
        sign_dot = (ans_dot - real(ans_dot).astype(aval_of(ans_dot).dtype)) * sgn
        return (sgn, logabs), (sign_dot, real(ans_dot))
    return (sgn, logabs), (sgn * 0, ans_dot)


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """The sign and natural logarithm of the absolute determinant.

    Args:
      a: matrices ``(..., n, n)``.
      method: ``None`` or ``"lu"`` (the LU decomposition; closed forms for
        ``n`` of 1 and 2). ``"qr"`` is not supported.

    Returns:
      :class:`SlogdetResult` ``(sign, logabsdet)``, each of shape ``a.shape[:-2]``;
      ``(0, -inf)`` for a singular matrix.

    Raises:
      ValueError: ``a`` is not a (batch of) square matrices, or an unknown method.
      NotImplementedError: ``method="qr"``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> [o.shape for o in eval_shape(slogdet, ShapeDtypeStruct((2, 4, 4), "float32"))]
    [(2,), (2,)]
    """
    check_arraylike("jnp.linalg.slogdet", a)
    _square("slogdet()", a)
    if method == "qr":
        raise NotImplementedError(
            "slogdet(method='qr') is not implemented in tessela_numpy; use method='lu' (the "
            "default)."
        )
    if method not in (None, "lu"):
        raise ValueError(
            f"Unknown slogdet method {method!r}. Supported methods are 'lu' (None) and 'qr'."
        )
    sign, logabsdet = _slogdet_jit(a)
    return SlogdetResult(sign, logabsdet)


def _slogdet(a: Any) -> Any:
    (a,) = promote_dtypes_inexact(a)
    n = shape_of(a)[-1]
    if n in (1, 2):
        return SlogdetResult(*_slogdet_analytic(a))
    return SlogdetResult(*_slogdet_lu(a))


_slogdet.__name__ = _slogdet.__qualname__ = "slogdet"
_slogdet_jit = jit(_slogdet)


def _det_from_slogdet(a: Any) -> Any:
    sgn, logabs = _slogdet_lu(a)
    return sgn * exp(logabs).astype(aval_of(sgn).dtype)


_det_lu = custom_jvp(_det_from_slogdet)


def _cofactor_solve(a: Any, b: Any) -> tuple[Any, Any]:
    """``(det(a), adj(a) @ b)``, finite for singular ``a`` (JAX's construction).

    With ``p a = l u``, ``det(a) solve(a, b)`` is ``u^-1 l^-1 p b`` scaled by
    ``det(a)``. Replacing ``u``'s last diagonal entry by ``1 / prod(u_ii, i < n)``
    keeps the last row finite when ``a`` has rank ``n - 1`` (the others are
    scaled by ``det(a) = 0``); a matrix of lower rank has a zero adjugate.
    """
    shape = shape_of(a)
    n = shape[-1]
    dtype = aval_of(a).dtype
    lu, pivots, perm = lax_linalg.lu(a)
    d = diagonal(lu)
    swaps = _sum(pivots != np.arange(n, dtype=np.int32), axis=-1)
    sgn = (1 - 2 * (swaps % 2)).astype(dtype)
    partial_det = lax.cumprod(d, axis=len(shape) - 2) * lax.expand_dims(sgn, (len(shape) - 2,))
    lu = lu.at[..., -1, -1].set(1 / partial_det[..., -2])
    ones = lax.broadcast_in_dim(np.ones((), dtype), shape[:-1], ())
    probe = lax_linalg.triangular_solve(lu, ones, left_side=True, lower=False)
    rank_deficient = _any(isnan(probe) | isinf(probe), axis=-1)[..., None, None]
    x = where(rank_deficient, np.zeros((), dtype), b)
    x = take_along_axis(x, lax.expand_dims(perm, (len(shape) - 1,)), axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    scaled = x[..., :-1, :] * partial_det[..., -1, None, None]
    x = lax.concatenate([scaled, x[..., -1:, :]], len(shape) - 2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    return partial_det[..., -1], where(rank_deficient, np.zeros((), dtype), x)


@_det_lu.defjvp
def _det_lu_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, _trace(z)


def det(a: ArrayLike) -> Array:
    """The determinant of square matrices.

    ``2 x 2`` and ``3 x 3`` matrices use the closed forms (as JAX does); larger
    ones the LU decomposition, differentiated as ``trace(adj(a) da)`` (finite where
    ``a`` is singular).

    Args:
      a: matrices ``(..., n, n)``.

    Returns:
      The determinants, of shape ``a.shape[:-2]``.

    Raises:
      ValueError: ``a`` is not a (batch of) square matrices.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(det, ShapeDtypeStruct((2, 4, 4), "float32")).shape
    (2,)
    """
    check_arraylike("jnp.linalg.det", a)
    _square("det", a)
    return unchanged(_det_jit(a))


def _det(a: Any) -> Any:
    (a,) = promote_dtypes_inexact(a)
    n = shape_of(a)[-1]
    if n == 2:
        return _det_2x2(a)
    if n == 3:
        return _det_3x3(a)
    return _det_lu(a)


_det.__name__ = _det.__qualname__ = "det"
_det_jit = jit(_det)


def matrix_power(a: ArrayLike, n: int) -> Array:
    """``a`` multiplied by itself ``n`` times (the inverse's power for negative ``n``).

    Args:
      a: matrices ``(..., m, m)``.
      n: an integer exponent; ``0`` gives identity matrices.

    Returns:
      ``a ** n`` as a matrix power, by repeated squaring.

    Raises:
      TypeError: ``a`` is not square, or ``n`` is not an integer.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda a: matrix_power(a, -2), ShapeDtypeStruct((3, 3), "float32")).shape
    (3, 3)
    """
    check_arraylike("jnp.linalg.matrix_power", a)
    shape = shape_of(a)
    if len(shape) < 2:
        raise TypeError(
            f"{len(shape)}-dimensional array given. Array must be at least two-dimensional."
        )
    if shape[-1] != shape[-2]:
        raise TypeError(f"Last 2 dimensions of the array must be square, got shape {shape}.")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n!r}") from err
    return unchanged(_matrix_power_jit(a, n))


def _matrix_power(a: Any, n: int) -> Any:
    if n == 0:
        return _eye_like(shape_of(a), aval_of(a).dtype)
    if n < 0:
        a = _inv(a)
        n = -n
    if n == 1:
        return a
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    square: Any = None
    result: Any = None
    while n > 0:
        square = a if square is None else matmul(square, square)
        n, bit = divmod(n, 2)
        if bit:
            result = square if result is None else matmul(result, square)
    return result


_matrix_power.__name__ = _matrix_power.__qualname__ = "matrix_power"
_matrix_power_jit = jit(_matrix_power, static_argnums=(1,))
