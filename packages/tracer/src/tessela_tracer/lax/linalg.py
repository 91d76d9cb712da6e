"""``tessela_tracer.lax.linalg``: JAX's ``lax.linalg`` factorisations and solves.

Every function works on the last two axes and maps over leading batch axes
(``cholesky_update`` and ``qdwh`` take one matrix, as in JAX). The wrappers of
the structured-matrix primitives are in
:mod:`tessela_tracer.lax._linalg_structured`, ``qdwh`` in
:mod:`tessela_tracer.lax._qdwh`; this module names them all, with the
primitives, as ``jax.lax.linalg`` does.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import make_jaxpr
    >>> from tessela_tracer.lax import linalg
    >>> a = np.eye(2, dtype=np.float32)
    >>> print(make_jaxpr(linalg.lu)(a))
    { lambda ; a:f32[2,2]. let b:f32[2,2] c:i32[2] d:i32[2] = lu a in (b, c, d) }
"""

from __future__ import annotations

import enum
import operator
import warnings
from collections.abc import Callable
from typing import Any, Literal, overload

import numpy as np

from tessela_tracer import _dtypes, _lax, _lax_shape
from tessela_tracer._core import get_aval_of
from tessela_tracer._prims_linalg import (
    EighImplementation,
    EigImplementation,
    SvdAlgorithm,
    cholesky_p,
    eig_p,
    eigh_p,
    lu_p,
    qr_p,
    schur_p,
    svd_p,
    triangular_solve_p,
)
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
from tessela_tracer.lax._linalg_structured import (
    cholesky_update,
    hessenberg,
    householder_product,
    lu_pivots_to_permutation,
    ormqr,
    symmetric_product,
    tridiagonal,
    tridiagonal_solve,
)
from tessela_tracer.lax._qdwh import qdwh
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky", "cholesky_p",
    "cholesky_update", "cholesky_update_p", "eig", "eig_p", "eigh", "eigh_p", "hessenberg",
    "hessenberg_p", "householder_product", "householder_product_p", "lu", "lu_p",
    "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "ormqr", "ormqr_p", "qdwh", "qr",
    "qr_p", "schur", "schur_p", "svd", "svd_p", "symmetric_product", "symmetric_product_p",
    "triangular_solve", "triangular_solve_p", "tridiagonal", "tridiagonal_p",
    "tridiagonal_solve", "tridiagonal_solve_p",
]  # fmt: skip


def _is_complex(x: ArrayLike) -> bool:
    return bool(_dtypes.issubdtype(get_aval_of(x).dtype, np.complexfloating))


def _adjoint(x: ArrayLike) -> Array:
    nd = get_aval_of(x).ndim
    xt = _lax_shape.transpose(x, (*range(nd - 2), nd - 1, nd - 2))
    return _lax.conj(xt) if _is_complex(x) else xt


def _tril(x: ArrayLike) -> Array:
    aval = get_aval_of(x)
    shape = aval.shape
    rows = _lax_shape.broadcasted_iota(np.int32, shape[-2:], 0)
    cols = _lax_shape.broadcasted_iota(np.int32, shape[-2:], 1)
    mask = _lax_shape.broadcast_in_dim(_lax.ge(rows, cols), shape, (len(shape) - 2, len(shape) - 1))
    zeros = _lax_shape.broadcast_in_dim(np.zeros((), aval.dtype), shape, ())
    return _lax.select(mask, x, zeros)


def _symmetrize(x: ArrayLike) -> Array:
    """``(x + x^H) / 2``: the Hermitian part of (a batch of) square matrices."""
    return _lax.div(_lax.add(x, _adjoint(x)), np.asarray(2, get_aval_of(x).dtype))


def cholesky(x: ArrayLike, *, symmetrize_input: bool = True) -> Array:
    """The lower Cholesky factor ``L`` of Hermitian positive-definite matrices, ``x = L L^H``.

    Args:
      x: matrices of shape ``[..., n, n]``, floating or complex.
      symmetrize_input: use ``(x + x^H) / 2``; with ``False`` only the lower
        triangle of ``x`` is read.

    Returns:
      ``L`` with zeros above the diagonal; a matrix of NaNs where ``x`` is not
      positive definite.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> eqns = make_jaxpr(cholesky)(np.eye(2, dtype=np.float32)).eqns
        >>> [e.primitive.name for e in eqns][:4]
        ['transpose', 'add', 'div', 'cholesky']
    """
    if symmetrize_input and get_aval_of(x).ndim >= 2:
        x = _symmetrize(x)
    return _tril(cholesky_p.bind(x))


def triangular_solve(
    a: ArrayLike,
    b: ArrayLike,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Array:
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``.

    Args:
      a: triangular matrices ``[..., m, m]``; only the triangle named by
        ``lower`` is read.
      b: ``[..., m, n]`` with ``left_side``, else ``[..., n, m]``; a batch of
        vectors ``[..., m]`` (one rank below ``a``) is solved as one column.
      left_side: which side ``a`` multiplies ``x`` from.
      lower: read the lower (else upper) triangle of ``a``.
      transpose_a: use the transpose of ``a``.
      conjugate_a: use the complex conjugate of ``a`` (no effect on real ``a``).
      unit_diagonal: take the diagonal of ``a`` as ones without reading it.

    Returns:
      ``x``, with the shape and dtype of ``b``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> a = ShapeDtypeStruct((3, 3), "float32")
        >>> b = ShapeDtypeStruct((3, 2), "float32")
        >>> eval_shape(lambda a, b: triangular_solve(a, b, left_side=True), a, b).shape
        (3, 2)
    """
    conjugate_a = bool(conjugate_a) and _is_complex(a)
    a_nd, b_nd = get_aval_of(a).ndim, get_aval_of(b).ndim
    singleton = b_nd == a_nd - 1
    if singleton:
        b = _lax_shape.expand_dims(b, (b_nd if left_side else b_nd - 1,))
    out: Array = triangular_solve_p.bind(
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=conjugate_a,
        unit_diagonal=bool(unit_diagonal),
    )
    if singleton:
        out = _lax_shape.squeeze(out, (a_nd - 1 if left_side else a_nd - 2,))
    return out


def lu(x: ArrayLike) -> tuple[Array, Array, Array]:
    """LU decomposition with partial pivoting: ``P @ x = L @ U``.

    Args:
      x: matrices ``[..., m, n]``, floating or complex.

    Returns:
      ``(lu, pivots, permutation)``: ``lu`` holds ``U`` in its upper triangle
      and ``L`` (unit diagonal, not stored) below it; ``pivots`` (int32,
      ``[..., min(m, n)]``) are the row swaps made at each step; and
      ``permutation`` (int32, ``[..., m]``) is the same as a permutation, so
      that ``x[..., permutation, :] == L @ U``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> [o.shape for o in eval_shape(lu, ShapeDtypeStruct((4, 3), "float32"))]
        [(4, 3), (3,), (4,)]
    """
    out = lu_p.bind(x)
    return out[0], out[1], out[2]


def qr(
    x: ArrayLike,
    *,
    pivoting: bool = False,
    full_matrices: bool = True,
    use_magma: bool | None = None,
) -> tuple[Array, Array]:
    """Householder QR decomposition ``x = Q @ R``, with LAPACK's sign convention.

    Args:
      x: matrices ``[..., m, n]``, floating or complex.
      pivoting: column pivoting; not supported (raises ``NotImplementedError``).
      full_matrices: ``Q`` is ``[..., m, m]`` and ``R`` ``[..., m, n]``; with
        ``False``, ``[..., m, k]`` and ``[..., k, n]`` for ``k = min(m, n)``.
      use_magma: accepted for JAX compatibility; ignored.

    Returns:
      ``(q, r)``: ``q`` with orthonormal columns, ``r`` upper triangular.

    Raises:
      NotImplementedError: ``pivoting=True``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> x = ShapeDtypeStruct((4, 3), "float32")
        >>> [o.shape for o in eval_shape(lambda x: qr(x, full_matrices=False), x)]
        [(4, 3), (3, 3)]
    """
    if pivoting:
        raise NotImplementedError(
            "lax.linalg.qr(pivoting=True) (column-pivoted QR) is not implemented in "
            "Tessela; call it with pivoting=False."
        )
    q, r = qr_p.bind(x, pivoting=False, full_matrices=bool(full_matrices), use_magma=use_magma)
    return q, r


def _subset(name: str, subset_by_index: Any) -> tuple[int, int] | None:
    if subset_by_index is None:
        return None
    try:
        start, end = subset_by_index
        return operator.index(start), operator.index(end)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name}: subset_by_index must be None or a pair of integers (start, end), got "
            f"{subset_by_index!r}."
        ) from None


def _check_enum(name: str, arg: str, value: Any, kind: type[enum.Enum]) -> None:
    if value is not None and not isinstance(value, kind):
        raise TypeError(
            f"{name}: {arg} must be None or a member of {kind.__name__} "
            f"(e.g. {kind.__name__}.{next(iter(kind.__members__))}), got {value!r}."
        )


def eigh(
    x: ArrayLike,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    implementation: EighImplementation | None = None,
) -> tuple[Array, Array]:
    """Eigendecomposition of Hermitian (real symmetric) matrices: ``x = v diag(w) v^H``.

    Args:
      x: matrices ``[..., n, n]``, floating or complex.
      lower: with ``symmetrize_input=False``, read only the lower (else the
        upper) triangle of ``x``.
      symmetrize_input: decompose ``(x + x^H) / 2``.
      sort_eigenvalues: return the eigenvalues in ascending order (the CPU
        implementation always does).
      subset_by_index: ``(start, end)``: only the eigenpairs ``start`` to
        ``end - 1`` (in ascending order); not supported when compiling for CPU.
      implementation: an :class:`EighImplementation`, or ``None`` for the
        platform's default.

    Returns:
      ``(v, w)``: ``v[..., :, i]`` is the unit eigenvector of the eigenvalue
      ``w[..., i]``; ``w`` has the real dtype of ``x``.

    Raises:
      TypeError: ``x`` has rank below 2 or is not floating or complex.
      ValueError: ``x`` is not square.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> x = ShapeDtypeStruct((2, 3, 3), "complex64")
        >>> [(o.shape, o.dtype.name) for o in eval_shape(eigh, x)]
        [((2, 3, 3), 'complex64'), ((2, 3), 'float32')]
    """
    _check_enum("eigh", "implementation", implementation, EighImplementation)
    subset = _subset("eigh", subset_by_index)
    if symmetrize_input:
        aval = get_aval_of(x)
        if aval.ndim >= 2 and aval.shape[-1] == aval.shape[-2]:
            x = _symmetrize(x)
    v, w = eigh_p.bind(
        x,
        lower=bool(lower),
        sort_eigenvalues=bool(sort_eigenvalues),
        subset_by_index=subset,
        algorithm=implementation,
    )
    return v, w


@overload
def svd(
    x: ArrayLike,
    *,
    full_matrices: bool = True,
    compute_uv: Literal[True] = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> tuple[Array, Array, Array]: ...


@overload
def svd(
    x: ArrayLike,
    *,
    full_matrices: bool = True,
    compute_uv: Literal[False],
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> Array: ...


@overload
def svd(
    x: ArrayLike,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> Array | tuple[Array, Array, Array]: ...


def svd(
    x: ArrayLike,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> Array | tuple[Array, Array, Array]:
    """Singular value decomposition ``x = u diag(s) vh``.

    Args:
      x: matrices ``[..., m, n]``, floating or complex.
      full_matrices: ``u`` is ``[..., m, m]`` and ``vh`` ``[..., n, n]``; with
        ``False``, ``[..., m, k]`` and ``[..., k, n]`` for ``k = min(m, n)``.
      compute_uv: return ``(u, s, vh)``; with ``False`` only ``s``.
      subset_by_index: ``(start, end)``: only the singular triplets ``start``
        to ``end - 1`` (needs ``full_matrices=False``; not supported when
        compiling for CPU).
      algorithm: an :class:`SvdAlgorithm`, or ``None`` for the platform's
        default (divide and conquer, LAPACK's ``gesdd``, on CPU).

    Returns:
      ``(u, s, vh)``, or ``s`` alone with ``compute_uv=False``; ``s`` holds the
      singular values in descending order, in the real dtype of ``x``.

    Raises:
      TypeError: ``x`` has rank below 2 or is not floating or complex.
      ValueError: ``subset_by_index`` with ``full_matrices=True``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> x = ShapeDtypeStruct((5, 3), "float32")
        >>> [o.shape for o in eval_shape(lambda x: svd(x, full_matrices=False), x)]
        [(5, 3), (3,), (3, 3)]
    """
    _check_enum("svd", "algorithm", algorithm, SvdAlgorithm)
    outs: list[Array] = svd_p.bind(
        x,
        full_matrices=bool(full_matrices),
        compute_uv=bool(compute_uv),
        subset_by_index=_subset("svd", subset_by_index),
        algorithm=algorithm,
    )
    if compute_uv:
        s, u, vt = outs
        return u, s, vt
    return outs[0]


def eig(
    x: ArrayLike,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: EigImplementation | None = None,
    use_magma: bool | None = None,
) -> list[Array]:
    """Eigendecomposition of general square matrices: ``x v = v diag(w)``.

    Implemented on CPU (LAPACK's ``geev``), as in JAX.

    Args:
      x: matrices ``[..., n, n]``, floating or complex.
      compute_left_eigenvectors: also return the left eigenvectors ``vl``
        (``vl^H x = diag(w) vl^H``).
      compute_right_eigenvectors: also return the right eigenvectors ``vr``.
      enable_eigvec_derivs: allow differentiating the eigenvectors, under
        LAPACK's normalisation (unit 2-norm, largest-magnitude component real);
        valid only for distinct eigenvalues.
      implementation: an :class:`EigImplementation` (only ``LAPACK`` runs on
        CPU), or ``None``.
      use_magma: deprecated spelling of ``implementation`` (``True`` for
        ``MAGMA``, ``False`` for ``LAPACK``).

    Returns:
      ``[w, vl, vr]`` without the eigenvectors not asked for: ``w`` ``[..., n]``
      and the eigenvectors (unit columns) ``[..., n, n]``, all complex
      (``complex64`` for ``float32`` input). A matrix where LAPACK fails gives
      NaNs.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
        >>> x = ShapeDtypeStruct((3, 3), "float32")
        >>> [(o.shape, o.dtype.name) for o in eval_shape(eig, x)]
        [((3,), 'complex64'), ((3, 3), 'complex64'), ((3, 3), 'complex64')]
    """
    if use_magma is not None:
        warnings.warn(
            "use_magma is deprecated, please use implementation=EigImplementation.MAGMA instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
    _check_enum("eig", "implementation", implementation, EigImplementation)
    outs: list[Array] = eig_p.bind(
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
        implementation=implementation,
    )
    return list(outs)


def schur(
    x: ArrayLike,
    *,
    compute_schur_vectors: bool = True,
    sort_eig_vals: bool = False,
    select_callable: Callable[..., Any] | None = None,
) -> list[Array]:
    """Schur decomposition ``x = Q T Q^H`` of square matrices; implemented on CPU.

    Args:
      x: matrices ``[..., n, n]``, floating or complex.
      compute_schur_vectors: also return the unitary ``Q``.
      sort_eig_vals: accepted as JAX does; sorting raises
        ``NotImplementedError`` when compiled.
      select_callable: unused, as in JAX.

    Returns:
      ``[T, Q]`` (``[T]`` without the Schur vectors): ``T`` is upper triangular
      for complex ``x`` and quasi upper triangular (2x2 blocks for complex
      conjugate eigenvalue pairs) for real ``x``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> print(make_jaxpr(schur)(np.eye(2, dtype=np.float32)))
        { lambda ; a:f32[2,2]. let
            b:f32[2,2] c:f32[2,2] = schur[
              compute_schur_vectors=True
              select_callable=None
              sort_eig_vals=False
            ] a
          in (b, c) }
    """
    outs: list[Array] = schur_p.bind(
        x,
        compute_schur_vectors=bool(compute_schur_vectors),
        sort_eig_vals=bool(sort_eig_vals),
        select_callable=select_callable,
    )
    return list(outs)
