"""Eigen- and singular-value functions of ``tessela_numpy.linalg``.

Built on ``tessela_tracer.lax.linalg.eig``, ``eigh`` and ``svd`` as JAX builds
``jax.numpy.linalg``: ``eig``/``eigvals`` (general matrices, complex results,
CPU only), ``eigh``/``eigvalsh``, ``svd`` (through ``eigh`` for
``hermitian=True``), ``svdvals``, ``pinv`` (from the thin SVD, with JAX's
custom JVP after Golub and Pereyra) and ``matrix_rank``; ``cond`` and the
singular-value norms are in :mod:`tessela_numpy.linalg`, beside ``norm``. Each public
function is staged in one ``jit`` named after it.
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
from ._linalg import _mT
from ._products import matmul
from ._reductions import any as _any
from ._reductions import max as _amax
from ._reductions import sum as _sum
from ._take import take_along_axis
from ._ufuncs import conj
from ._where import where

__all__ = [
    "EigResult", "EighResult", "SVDResult", "eig", "eigh", "eigvals", "eigvalsh", "matrix_rank",
    "pinv", "svd", "svdvals",
]  # fmt: skip


class EigResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of :func:`eig`."""

    eigenvalues: Any
    eigenvectors: Any


class EighResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of :func:`eigh`."""

    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    """``(U, S, Vh)`` of :func:`svd`."""

    U: Any
    S: Any
    Vh: Any


def _H(x: Any) -> Any:
    return conj(_mT(x))


def _at_least_2d(fun_name: str, a: Any) -> None:
    if len(shape_of(a)) < 2:
        raise ValueError(
            f"{fun_name}: input array must be at least 2D (a matrix or a batch of matrices), "
            f"got shape {shape_of(a)}."
        )


# ----------------------------------------------------------------------- eigh


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """Eigenvalues and eigenvectors of Hermitian (real symmetric) matrices.

    Args:
      a: matrices ``(..., n, n)``.
      UPLO: ``"L"`` (or ``None``) or ``"U"``: the triangle read when
        ``symmetrize_input`` is ``False``.
      symmetrize_input: decompose ``(a + a^H) / 2``.

    Returns:
      :class:`EighResult` ``(eigenvalues, eigenvectors)``: the eigenvalues in
      ascending order (real, ``(..., n)``) and the unit eigenvectors as columns
      (``(..., n, n)``).

    Raises:
      ValueError: ``UPLO`` is not ``None``, ``"L"`` or ``"U"``, or ``a`` is not
        a (batch of) square matrices.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> [o.shape for o in eval_shape(eigh, ShapeDtypeStruct((2, 3, 3), "float32"))]
    [(2, 3), (2, 3, 3)]
    """
    check_arraylike("jnp.linalg.eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO!r}")
    result: EighResult = _eigh_jit(a, UPLO != "U", bool(symmetrize_input))
    return result


def _eigh(a: Any, lower: bool, symmetrize_input: bool) -> EighResult:
    (a,) = promote_dtypes_inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


_eigh.__name__ = _eigh.__qualname__ = "eigh"
_eigh_jit = jit(_eigh, static_argnums=(1, 2))


def eigvalsh(a: ArrayLike, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Array:
    """The eigenvalues of Hermitian (real symmetric) matrices, in ascending order.

    Args:
      a: matrices ``(..., n, n)``.
      UPLO: ``"L"`` (or ``None``) or ``"U"``, as for :func:`eigh`.
      symmetrize_input: decompose ``(a + a^H) / 2``.

    Returns:
      The real eigenvalues, ``(..., n)``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> out = eval_shape(eigvalsh, ShapeDtypeStruct((3, 3), "complex64"))
    >>> out.shape, out.dtype.name
    ((3,), 'float32')
    """
    check_arraylike("jnp.linalg.eigvalsh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO!r}")
    return unchanged(_eigvalsh_jit(a, UPLO, bool(symmetrize_input)))


def _eigvalsh(a: Any, UPLO: str | None, symmetrize_input: bool) -> Any:
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


_eigvalsh.__name__ = _eigvalsh.__qualname__ = "eigvalsh"
_eigvalsh_jit = jit(_eigvalsh, static_argnums=(1, 2))


# ------------------------------------------------------------------------ eig


def eig(a: ArrayLike) -> EigResult:
    """Eigenvalues and right eigenvectors of general square matrices; CPU only.

    Unlike NumPy, the results are always complex: ``complex64`` for 32-bit
    input, ``complex128`` for 64-bit input. The eigenvectors are not
    differentiable (the eigenvalues of :func:`eigvals` are).

    Args:
      a: matrices ``(..., n, n)``.

    Returns:
      :class:`EigResult` ``(eigenvalues, eigenvectors)``: ``(..., n)`` and
      ``(..., n, n)``, column ``v[..., :, i]`` the unit eigenvector of ``w[..., i]``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> w, v = eval_shape(eig, ShapeDtypeStruct((3, 3), "float32"))
    >>> w.shape, v.shape, v.dtype.name
    ((3,), (3, 3), 'complex64')
    """
    check_arraylike("jnp.linalg.eig", a)
    result: EigResult = _eig_jit(a)
    return result


def _eig(a: Any) -> EigResult:
    (a,) = promote_dtypes_inexact(a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


_eig.__name__ = _eig.__qualname__ = "eig"
_eig_jit = jit(_eig)


def eigvals(a: ArrayLike) -> Array:
    """The eigenvalues of general square matrices (complex, unordered); CPU only.

    Args:
      a: matrices ``(..., n, n)``.

    Returns:
      ``(..., n)``: ``complex64`` for 32-bit input, ``complex128`` for 64-bit.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> w = eval_shape(eigvals, ShapeDtypeStruct((4, 2, 2), "float32"))
    >>> w.shape, w.dtype.name
    ((4, 2), 'complex64')
    """
    check_arraylike("jnp.linalg.eigvals", a)
    return unchanged(_eigvals_jit(a))


def _eigvals(a: Any) -> Any:
    (a,) = promote_dtypes_inexact(a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


_eigvals.__name__ = _eigvals.__qualname__ = "eigvals"
_eigvals_jit = jit(_eigvals)


# ------------------------------------------------------------------------ svd


def _subset(subset_by_index: Any) -> tuple[int, int] | None:
    if subset_by_index is None:
        return None
    start, end = subset_by_index
    return operator.index(start), operator.index(end)


def svd(
    a: ArrayLike,
    full_matrices: bool = True,
    compute_uv: bool = True,
    hermitian: bool = False,
    subset_by_index: tuple[int, int] | None = None,
) -> SVDResult | Array:
    """The singular value decomposition ``a = U diag(S) Vh``.

    Args:
      a: matrices ``(..., m, n)``.
      full_matrices: ``U`` is ``(..., m, m)`` and ``Vh`` ``(..., n, n)``; with
        ``False``, ``(..., m, k)`` and ``(..., k, n)`` for ``k = min(m, n)``.
      compute_uv: return ``(U, S, Vh)``; with ``False`` only ``S``.
      hermitian: ``a`` is Hermitian: the decomposition comes from
        :func:`eigh` (``S = |eigenvalues|`` sorted in descending order).
      subset_by_index: ``(start, end)``: only those singular triplets (not
        supported when compiling for CPU).

    Returns:
      :class:`SVDResult` ``(U, S, Vh)``, or ``S`` alone; the singular values
      are real and in descending order.

    Raises:
      TypeError: ``a`` has fewer than two dimensions.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> x = ShapeDtypeStruct((5, 3), "float32")
    >>> [o.shape for o in eval_shape(lambda a: svd(a, full_matrices=False), x)]
    [(5, 3), (3,), (3, 3)]
    """
    check_arraylike("jnp.linalg.svd", a)
    out: SVDResult | Array = _svd_jit(a, bool(full_matrices), bool(compute_uv), bool(hermitian),
                                      _subset(subset_by_index))  # fmt: skip
    return out


def _svd(
    a: Any,
    full_matrices: bool,
    compute_uv: bool,
    hermitian: bool,
    subset_by_index: tuple[int, int] | None,
) -> Any:
    (a,) = promote_dtypes_inexact(a)
    if hermitian:
        v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
        s = lax.abs(w)
        last = len(shape_of(s)) - 1
        if not compute_uv:
            return lax.rev(lax.sort(s, dimension=-1), (last,))
        sign = lax.sign(w)
        idxs = lax.broadcasted_iota(np.uint32, shape_of(s), last)
        s, idxs, sign = lax.sort((s, idxs, sign), dimension=-1, num_keys=1)
        s, idxs, sign = (lax.rev(x, (last,)) for x in (s, idxs, sign))
        u = take_along_axis(v, idxs[..., None, :], axis=-1)
        vh = _H(u * sign[..., None, :].astype(aval_of(u).dtype))
        return SVDResult(u, s, vh)
    if compute_uv:
        u, s, vh = lax_linalg.svd(
            a, full_matrices=full_matrices, compute_uv=True, subset_by_index=subset_by_index
        )
        return SVDResult(u, s, vh)
    return lax_linalg.svd(
        a, full_matrices=full_matrices, compute_uv=False, subset_by_index=subset_by_index
    )


_svd.__name__ = _svd.__qualname__ = "svd"
_svd_jit = jit(_svd, static_argnums=(1, 2, 3, 4))


def svdvals(x: ArrayLike, /) -> Array:
    """The singular values of matrices, in descending order.

    Args:
      x: matrices ``(..., m, n)``.

    Returns:
      The real singular values, ``(..., min(m, n))``.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(svdvals, ShapeDtypeStruct((2, 4, 3), "float32")).shape
    (2, 3)
    """
    check_arraylike("jnp.linalg.svdvals", x)
    return unchanged(svd(x, compute_uv=False, hermitian=False))


# ----------------------------------------------------------------------- pinv


def pinv(
    a: ArrayLike,
    rtol: ArrayLike | None = None,
    hermitian: bool = False,
    *,
    rcond: ArrayLike | None = None,
) -> Array:
    """The Moore-Penrose pseudo-inverse of matrices, from their SVD.

    Singular values up to ``rtol`` times the largest are treated as zero. The
    derivative is JAX's custom JVP (Golub and Pereyra), which holds where the
    rank does not change.

    Args:
      a: matrices ``(..., m, n)``.
      rtol: relative cutoff for small singular values; by default
        ``10 * max(m, n) * eps``.
      hermitian: ``a`` is Hermitian (decomposed with :func:`eigh`).
      rcond: the former name of ``rtol``; pass only one of them.

    Returns:
      The pseudo-inverses, ``(..., n, m)``.

    Raises:
      ValueError: both ``rtol`` and ``rcond`` are given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(pinv, ShapeDtypeStruct((5, 3), "float32")).shape
    (3, 5)
    """
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified; pass rtol.")
        rtol = rcond
    check_arraylike("jnp.linalg.pinv", a)
    _at_least_2d("jnp.linalg.pinv", a)
    if rtol is not None:
        rtol = np.asarray(rtol) if not hasattr(rtol, "aval") else rtol
    return unchanged(_pinv(a, rtol, bool(hermitian)))


def _pinv_impl(a: Any, rtol: Any, hermitian: bool) -> Any:
    (arr,) = promote_dtypes_inexact(a)
    m, n = shape_of(arr)[-2:]
    dtype = aval_of(arr).dtype
    if m == 0 or n == 0:
        return lax.broadcast_in_dim(np.zeros((), dtype), (*shape_of(arr)[:-2], n, m), ())
    arr = conj(arr)
    real = np.dtype(_dt.finfo(dtype).dtype)
    if rtol is None:
        rtol = np.asarray(10.0 * max(m, n) * float(_dt.finfo(dtype).eps), real)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = lax.convert_element_type(rtol, real)
    rtol_nd = len(shape_of(rtol))
    rtol = lax.expand_dims(rtol[..., None], tuple(range(len(shape_of(s)) - rtol_nd - 1)))
    cutoff = rtol * s[..., 0:1]
    s = where(s > cutoff, s, np.asarray(np.inf, real)).astype(dtype)
    return matmul(_mT(vh), _mT(u) / s[..., None])


_pinv_impl.__name__ = _pinv_impl.__qualname__ = "pinv"
_pinv_jit = jit(_pinv_impl, static_argnums=(2,))


def _pinv_staged(a: Any, rtol: Any, hermitian: bool) -> Any:
    return _pinv_jit(a, rtol, hermitian)


_pinv = custom_jvp(_pinv_staged, nondiff_argnums=(1, 2))


def _symmetrize(x: Any) -> Any:
    return (x + _H(x)) / 2


@_pinv.defjvp
def _pinv_jvp(rtol: Any, hermitian: bool, primals: Any, tangents: Any) -> Any:
    (a,), (a_dot,) = primals, tangents
    p = _pinv(a, rtol, hermitian)
    (a,) = promote_dtypes_inexact(a)
    (a_dot,) = promote_dtypes_inexact(a_dot)
    if hermitian:
        # svd(..., hermitian=True) decomposes the Hermitian part; so does the tangent.
        a, a_dot = _symmetrize(a), _symmetrize(a_dot)
    m, n = shape_of(a)[-2:]
    if m >= n:
        s = matmul(matmul(p, _H(p)), _H(a_dot))
        t = matmul(matmul(_H(a_dot), _H(p)), p)
        p_dot = (-matmul(matmul(p, a_dot), p) + s - matmul(matmul(s, a), p) + t
                 - matmul(matmul(p, a), t))  # fmt: skip
    else:
        s = matmul(p, matmul(_H(p), _H(a_dot)))
        t = matmul(_H(a_dot), matmul(_H(p), p))
        p_dot = (-matmul(p, matmul(a_dot, p)) + s - matmul(s, matmul(a, p)) + t
                 - matmul(p, matmul(a, t)))  # fmt: skip
    return p, p_dot


# ---------------------------------------------------------------- matrix_rank


def matrix_rank(
    M: ArrayLike,
    rtol: ArrayLike | None = None,
    *,
    hermitian: bool = False,
    tol: ArrayLike | None = None,
) -> Array:
    """The rank of matrices: how many singular values exceed a tolerance.

    Args:
      M: matrices ``(..., m, n)`` (a vector or scalar has rank 1 unless all zero).
      rtol: the threshold on the singular values; by default
        ``max(s) * max(m, n) * eps``.
      hermitian: ``M`` is Hermitian (decomposed with :func:`eigh`).
      tol: the former name of ``rtol``; pass only one of them.

    Returns:
      The ranks, ``int32`` of shape ``M.shape[:-2]``.

    Raises:
      ValueError: both ``rtol`` and ``tol`` are given.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> out = eval_shape(matrix_rank, ShapeDtypeStruct((2, 4, 3), "float32"))
    >>> out.shape, out.dtype.name
    ((2,), 'int32')
    """
    check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    return unchanged(_matrix_rank_jit(M, rtol, bool(hermitian)))


def _matrix_rank(M: Any, rtol: Any, hermitian: bool) -> Any:
    (M,) = promote_dtypes_inexact(M)
    shape = shape_of(M)
    if len(shape) < 2:
        return _any(M != 0).astype(np.int32)
    s = unchanged(svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian))
    real = aval_of(s).dtype
    if rtol is None:
        size = np.asarray(max(shape[-2:]), real)
        rtol = _amax(s, axis=-1) * size * np.asarray(_dt.finfo(real).eps, real)
    rtol = lax.convert_element_type(rtol, real)
    rtol = lax.expand_dims(rtol, (len(shape_of(rtol)),))
    return _sum(s > rtol, axis=-1).astype(np.int32)


_matrix_rank.__name__ = _matrix_rank.__qualname__ = "matrix_rank"
_matrix_rank_jit = jit(_matrix_rank, static_argnums=(2,))
