"""Linear-algebra primitives: cholesky, triangular_solve, lu, qr, eigh, svd, eig and schur.

Each operates on the last two axes of its operands and maps over any leading
batch axes, as JAX's ``lax.linalg`` primitives do. Operands must be floating
or complex; the results keep the operand's dtype, except LU's pivots and
permutation, which are ``int32``, and the eigenvalues and singular values of
``eigh`` and ``svd``, which are real, and the eigenvalues and eigenvectors of
``eig``, which are complex (``complex64`` for ``float32`` input). The results of
``eigh`` are ordered ``(v, w)``, those of ``svd`` ``(s, u, vt)``, those of
``eig`` ``(w, [vl], [vr])`` and those of ``schur`` ``(t, [vs])``, as JAX orders
them. The primitives of structured matrices (Hessenberg and tridiagonal
reductions, Householder products, tridiagonal solves, ...) are in
:mod:`tessela_tracer._prims_structured`; the lax-level wrappers in
:mod:`tessela_tracer.lax.linalg`.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval

__all__ = [
    "EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky_p", "eig_p", "eigh_p",
    "lu_p", "qr_p", "schur_p", "svd_p", "triangular_solve_p",
]  # fmt: skip

_INT32 = np.dtype(np.int32)


def _check_inexact(name: str, *avals: ShapedArray) -> None:
    for aval in avals:
        if not (
            _dtypes.issubdtype(aval.dtype, np.floating)
            or _dtypes.issubdtype(aval.dtype, np.complexfloating)
        ):
            raise TypeError(
                f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are subtypes "
                "of floating, complexfloating; convert the operand with "
                "lax.convert_element_type (or tessela_numpy's astype) first."
            )
    if any(a.dtype != avals[0].dtype for a in avals[1:]):
        raise TypeError(
            f"{name} requires arguments to have the same dtypes, got "
            f"{', '.join(a.dtype.name for a in avals)}."
        )


def _split_batch(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """The shared leading batch shape of matrix operands (rank 2 and up)."""
    for i, aval in enumerate(avals):
        if aval.ndim < 2:
            raise TypeError(
                f"Input {i} to {name} must have rank at least 2, but got shape={aval.shape}"
            )
    batches = [tuple(a.shape[:-2]) for a in avals]
    if any(b != batches[0] for b in batches[1:]):
        raise TypeError(
            f"All inputs to {name} must have the same batch dimensions, but got "
            f"{batches}; broadcast them to one batch shape first."
        )
    return batches[0]


def _weak(*avals: ShapedArray) -> bool:
    return all(a.weak_type for a in avals)


# --------------------------------------------------------------------- cholesky


def _cholesky_rule(x: ShapedArray) -> ShapedArray:
    _check_inexact("cholesky", x)
    _split_batch("cholesky", x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"The input to cholesky must be a square matrix. Got shape {x.shape[-2:]}."
        )
    return ShapedArray(x.shape, x.dtype, x.weak_type)


cholesky_p = Primitive("cholesky")
register_abstract_eval(cholesky_p, _cholesky_rule)


# ------------------------------------------------------------- triangular_solve


def _triangular_solve_rule(
    a: ShapedArray,
    b: ShapedArray,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> ShapedArray:
    _check_inexact("triangular_solve", a, b)
    _split_batch("triangular_solve", a, b)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(
            "The first input to triangular_solve must be a square matrix. Got "
            f"shape {a.shape[-2:]}."
        )
    common = -2 if left_side else -1
    if a.shape[-1] != b.shape[common]:
        raise ValueError(
            f"Incompatible shapes for arguments to triangular_solve: {a.shape[-2:]} and "
            f"{b.shape[-2:]} (left_side={left_side})."
        )
    return ShapedArray(b.shape, b.dtype, _weak(a, b))


triangular_solve_p = Primitive("triangular_solve")
register_abstract_eval(triangular_solve_p, _triangular_solve_rule)


# --------------------------------------------------------------------------- lu


def _lu_rule(x: ShapedArray) -> list[ShapedArray]:
    _check_inexact("lu", x)
    batch = _split_batch("lu", x)
    m, n = x.shape[-2:]
    return [
        ShapedArray(x.shape, x.dtype, x.weak_type),
        ShapedArray((*batch, min(m, n)), _INT32, False),
        ShapedArray((*batch, m), _INT32, False),
    ]


lu_p = Primitive("lu", multiple_results=True)
register_abstract_eval(lu_p, _lu_rule)


# --------------------------------------------------------------------------- qr


def _qr_rule(
    x: ShapedArray, *, pivoting: bool, full_matrices: bool, use_magma: Any
) -> list[ShapedArray]:
    _check_inexact("qr", x)
    batch = _split_batch("qr", x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    outs = [
        ShapedArray((*batch, m, k), x.dtype, x.weak_type),
        ShapedArray((*batch, k, n), x.dtype, x.weak_type),
    ]
    if pivoting:
        outs.append(ShapedArray((*batch, n), _INT32, False))
    return outs


qr_p = Primitive("qr", multiple_results=True)
register_abstract_eval(qr_p, _qr_rule)


# ------------------------------------------------------------------------- eigh


class EighImplementation(enum.Enum):
    """The algorithm of a symmetric/Hermitian eigendecomposition (``eigh``'s ``algorithm``)."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """The algorithm of a singular value decomposition (``svd``'s ``algorithm``)."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def _real_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    if _dtypes.issubdtype(dtype, np.complexfloating):
        return np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    return np.dtype(dtype)


def _check_subset(name: str, subset_by_index: Any, limit: int) -> None:
    if subset_by_index is None:
        return
    start, end = subset_by_index
    if not 0 <= start <= end <= limit:
        raise ValueError(
            f"{name}: subset_by_index={subset_by_index} must be a pair (start, end) with "
            f"0 <= start <= end <= {limit}; pass None for every index."
        )


def _eigh_rule(
    x: ShapedArray,
    *,
    lower: bool,
    sort_eigenvalues: bool,
    subset_by_index: tuple[int, int] | None,
    algorithm: EighImplementation | None,
) -> list[ShapedArray]:
    _check_inexact("eigh", x)
    batch = _split_batch("eigh", x)
    n = x.shape[-1]
    if x.shape[-2] != n:
        raise ValueError(
            "Argument to symmetric eigendecomposition must have shape [..., n, n], got "
            f"shape {x.shape}; pass a (batch of) square matrices."
        )
    _check_subset("eigh", subset_by_index, n)
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return [
        ShapedArray((*batch, n, d), x.dtype, x.weak_type),
        ShapedArray((*batch, d), _real_dtype(x.dtype), x.weak_type),
    ]


eigh_p = Primitive("eigh", multiple_results=True)
register_abstract_eval(eigh_p, _eigh_rule)


# -------------------------------------------------------------------------- svd


def _svd_rule(
    x: ShapedArray,
    *,
    full_matrices: bool,
    compute_uv: bool,
    subset_by_index: tuple[int, int] | None,
    algorithm: SvdAlgorithm | None,
) -> list[ShapedArray]:
    _check_inexact("svd", x)
    batch = _split_batch("svd", x)
    m, n = x.shape[-2:]
    rank = min(m, n)
    if subset_by_index is not None:
        if full_matrices and tuple(subset_by_index) != (0, rank):
            raise ValueError(
                "full_matrices and subset_by_index cannot both be set; pass "
                "full_matrices=False to compute a subset of the singular vectors."
            )
        _check_subset("svd", subset_by_index, rank)
        rank = min(rank, subset_by_index[1] - subset_by_index[0])
    outs = [ShapedArray((*batch, rank), _real_dtype(x.dtype), x.weak_type)]
    if compute_uv:
        outs.append(ShapedArray((*batch, m, m if full_matrices else rank), x.dtype, x.weak_type))
        outs.append(ShapedArray((*batch, n if full_matrices else rank, n), x.dtype, x.weak_type))
    return outs


svd_p = Primitive("svd", multiple_results=True)
register_abstract_eval(svd_p, _svd_rule)


# -------------------------------------------------------------------------- eig


class EigImplementation(enum.Enum):
    """The library of a general eigendecomposition (``eig``'s ``implementation``)."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


def _complex_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    if _dtypes.issubdtype(dtype, np.complexfloating):
        return np.dtype(dtype)
    return np.dtype(np.complex128 if np.dtype(dtype) == np.float64 else np.complex64)


def _square(name: str, x: ShapedArray) -> None:
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"The input to {name} must be a square matrix. Got shape {x.shape[-2:]}; pass a "
            "(batch of) [..., n, n] matrices."
        )


def _eig_rule(
    x: ShapedArray,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
    implementation: EigImplementation | None,
) -> list[ShapedArray]:
    _check_inexact("eig", x)
    batch = _split_batch("eig", x)
    _square("eig", x)
    dtype = _complex_dtype(x.dtype)
    outs = [ShapedArray((*batch, x.shape[-1]), dtype, x.weak_type)]
    count = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    outs += [ShapedArray(x.shape, dtype, x.weak_type) for _ in range(count)]
    return outs


eig_p = Primitive("eig", multiple_results=True)
register_abstract_eval(eig_p, _eig_rule)


# ------------------------------------------------------------------------ schur


def _schur_rule(
    x: ShapedArray, *, compute_schur_vectors: bool, sort_eig_vals: bool, select_callable: Any
) -> list[ShapedArray]:
    _check_inexact("schur", x)
    _split_batch("schur", x)
    _square("schur", x)
    out = ShapedArray(x.shape, x.dtype, x.weak_type)
    return [out, out] if compute_schur_vectors else [out]


schur_p = Primitive("schur", multiple_results=True)
register_abstract_eval(schur_p, _schur_rule)
