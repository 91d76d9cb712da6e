"""The ``lax.linalg`` wrappers of the structured-matrix primitives.

Hessenberg and tridiagonal reductions, Householder products, tridiagonal
solves, LU pivots as permutations, Cholesky rank-1 updates and symmetric
products, with JAX's signatures; :mod:`tessela_tracer.lax.linalg` names them.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import make_jaxpr
    >>> print(make_jaxpr(lambda p: lu_pivots_to_permutation(p, 3))(np.zeros(2, np.int32)))
    { lambda ; a:i32[2]. let
        b:i32[3] = lu_pivots_to_permutation[permutation_size=3] a
      in (b,) }
"""

from __future__ import annotations

import operator

import numpy as np

from tessela_tracer import _lax, _lax_shape
from tessela_tracer._core import get_aval_of
from tessela_tracer._prims_structured import (
    cholesky_update_p,
    hessenberg_p,
    householder_product_p,
    lu_pivots_to_permutation_p,
    ormqr_p,
    symmetric_product_p,
    tridiagonal_p,
    tridiagonal_solve_p,
)
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "cholesky_update", "hessenberg", "householder_product", "lu_pivots_to_permutation", "ormqr",
    "symmetric_product", "tridiagonal", "tridiagonal_solve",
]  # fmt: skip


def hessenberg(a: ArrayLike) -> tuple[Array, Array]:
    """Reduce square matrices to upper Hessenberg form (LAPACK's ``gehrd``); CPU only.

    Args:
      a: matrices ``[..., n, n]``, floating or complex.

    Returns:
      ``(a, taus)``: the upper triangle and first subdiagonal of ``a`` hold the
      Hessenberg matrix and the entries below hold the Householder reflectors,
      whose scalar factors are ``taus`` ``[..., n - 1]``.

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> [o.shape for o in eval_shape(hessenberg, ShapeDtypeStruct((4, 4), "float32"))]
        [(4, 4), (3,)]
    """
    h, taus = hessenberg_p.bind(a)
    return h, taus


def tridiagonal(a: ArrayLike, *, lower: bool = True) -> tuple[Array, Array, Array, Array]:
    """Reduce Hermitian (real symmetric) matrices to tridiagonal form; CPU only.

    Args:
      a: matrices ``[..., n, n]`` (``n >= 1``), floating or complex.
      lower: read the lower (else the upper) triangle of ``a`` only.

    Returns:
      ``(a, d, e, taus)``: the diagonal and first sub- (``lower``) or
      superdiagonal of ``a`` hold the tridiagonal matrix and the entries beyond
      them the Householder reflectors; ``d`` ``[..., n]`` is the diagonal and
      ``e`` ``[..., n - 1]`` the off-diagonal (both real), and ``taus``
      ``[..., n - 1]`` the reflectors' scalar factors.

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> [o.shape for o in eval_shape(tridiagonal, ShapeDtypeStruct((3, 3), "float32"))]
        [(3, 3), (3,), (2,), (2,)]
    """
    packed, d, e, taus = tridiagonal_p.bind(a, lower=bool(lower))
    return packed, d, e, taus


def householder_product(a: ArrayLike, taus: ArrayLike) -> Array:
    """The product ``Q = H_1 ... H_k`` of elementary Householder reflectors.

    Args:
      a: ``[..., m, n]`` with ``m >= n``; column ``i`` below the diagonal holds
        the reflector ``v_i`` (its diagonal entry is taken as one).
      taus: ``[..., k]`` with ``k <= n``: the scalar factors, ``H_i = I - tau_i
        v_i v_i^H``.

    Returns:
      The first ``n`` columns of ``Q`` ``[..., m, n]``, orthonormal (unitary).

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> a, t = ShapeDtypeStruct((4, 3), "float32"), ShapeDtypeStruct((2,), "float32")
        >>> eval_shape(householder_product, a, t).shape
        (4, 3)
    """
    out: Array = householder_product_p.bind(a, taus)
    return out


def ormqr(
    a: ArrayLike, taus: ArrayLike, c: ArrayLike, *, left: bool = True, transpose: bool = False
) -> Array:
    """Multiply ``c`` by the ``Q`` of Householder reflectors without forming ``Q``.

    Args:
      a: ``[..., m, n]`` Householder reflectors below the diagonal, as LAPACK's
        ``geqrf`` stores them.
      taus: ``[..., k]`` their scalar factors.
      c: ``[..., m, p]`` with ``left``, else ``[..., p, m]``.
      left: compute ``Q @ c``; with ``False``, ``c @ Q``.
      transpose: use ``Q^T`` (``Q^H`` for complex) instead of ``Q``.

    Returns:
      The product, with the shape of ``c``.

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> a, t = ShapeDtypeStruct((3, 2), "float32"), ShapeDtypeStruct((2,), "float32")
        >>> eval_shape(lambda a, t, c: ormqr(a, t, c, left=False), a, t,
        ...            ShapeDtypeStruct((5, 3), "float32")).shape
        (5, 3)
    """
    out: Array = ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))
    return out


def tridiagonal_solve(
    dl: ArrayLike, d: ArrayLike, du: ArrayLike, b: ArrayLike, *, perturb_singular: bool = False
) -> Array:
    """Solve the tridiagonal system ``A X = B`` given ``A``'s three diagonals.

    Args:
      dl: ``[..., m]`` the subdiagonal, ``dl[i] = A[i, i - 1]`` (``dl[0]`` is
        ignored, by convention zero).
      d: ``[..., m]`` the diagonal.
      du: ``[..., m]`` the superdiagonal, ``du[i] = A[i, i + 1]`` (``du[m - 1]``
        ignored).
      b: ``[..., m, n]`` right-hand sides.
      perturb_singular: perturb tiny pivots (by about ``eps * max|U|``) so that
        singular systems give finite results; CPU only.

    Returns:
      ``X``, with the shape of ``b``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> v, b = ShapeDtypeStruct((4,), "float32"), ShapeDtypeStruct((4, 2), "float32")
        >>> eval_shape(tridiagonal_solve, v, v, v, b).shape
        (4, 2)
    """
    out: Array = tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))
    return out


def lu_pivots_to_permutation(pivots: ArrayLike, permutation_size: int) -> Array:
    """Turn LU's row swaps into the permutation they make.

    Args:
      pivots: ``int32`` ``[..., k]``: step ``i`` swapped rows ``i`` and
        ``pivots[i]``.
      permutation_size: the length ``m >= k`` of the permutation.

    Returns:
      ``int32`` ``[..., m]``: the rows ``0 .. m - 1`` after every swap.

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> p = ShapeDtypeStruct((2, 3), "int32")
        >>> eval_shape(lambda p: lu_pivots_to_permutation(p, 5), p).shape
        (2, 5)
    """
    size = operator.index(permutation_size)
    out: Array = lu_pivots_to_permutation_p.bind(pivots, permutation_size=size)
    return out


def cholesky_update(r_matrix: ArrayLike, w_vector: ArrayLike) -> Array:
    """Rank-1 update of a Cholesky factor in ``O(n^2)``.

    Args:
      r_matrix: upper triangular ``R`` ``[n, n]`` with ``A = R^T R`` (real).
      w_vector: ``w`` ``[n]``.

    Returns:
      The upper triangular factor of ``A + w w^T``.

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> r, w = ShapeDtypeStruct((3, 3), "float32"), ShapeDtypeStruct((3,), "float32")
        >>> eval_shape(cholesky_update, r, w).shape
        (3, 3)
    """
    out: Array = cholesky_update_p.bind(r_matrix, w_vector)
    return out


def symmetric_product(
    a_matrix: ArrayLike,
    c_matrix: ArrayLike,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    symmetrize_output: bool = False,
) -> Array:
    """``alpha * a @ a^T + beta * c`` for real ``a`` and symmetric ``c``.

    Args:
      a_matrix: ``[..., m, n]``.
      c_matrix: ``[..., m, m]``, symmetric.
      alpha: scalar factor of ``a @ a^T``.
      beta: scalar factor of ``c``.
      symmetrize_output: fill the upper triangle with the transpose of the
        lower one; without it only the lower triangle is guaranteed on every
        platform.

    Returns:
      ``[..., m, m]``.

    Example:
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> a, c = ShapeDtypeStruct((3, 2), "float32"), ShapeDtypeStruct((3, 3), "float32")
        >>> eval_shape(symmetric_product, a, c).shape
        (3, 3)
    """
    result: Array = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        aval = get_aval_of(result)
        shape = aval.shape
        nd = len(shape)
        rows = _lax_shape.broadcasted_iota(np.int32, shape, nd - 2)
        cols = _lax_shape.broadcasted_iota(np.int32, shape, nd - 1)
        upper = _lax_shape.transpose(result, (*range(nd - 2), nd - 1, nd - 2))
        result = _lax.select(_lax.ge(rows, cols), result, upper)
    return result
