"""Primitives of structured matrices, the ``structured`` family.

The primitives that produce or consume matrices of a known structure, as
JAX's ``lax.linalg`` defines them:

- condensed forms: ``hessenberg`` (upper Hessenberg reduction, results
  ``(a, taus)``) and ``tridiagonal`` (Hermitian tridiagonal reduction, results
  ``(a, d, e, taus)`` with ``d`` and ``e`` real);
- Householder reflectors: ``householder_product`` (the product ``Q`` of the
  reflectors stored below the diagonal of ``a``) and ``ormqr`` (``Q`` or its
  adjoint applied to a matrix ``c`` from either side, without forming ``Q``);
- ``tridiagonal_solve`` (a tridiagonal system given by its three diagonals);
- ``lu_pivots_to_permutation`` (LU's row swaps as a permutation, ``int32``);
- ``cholesky_update`` (the upper factor of ``R^T R + w w^T``; one real matrix,
  no batch axes, as in JAX) and ``symmetric_product`` (``alpha a a^T + beta c``,
  real).

Every other primitive maps over leading batch axes, which all its operands
share. The lax-level wrappers are in :mod:`tessela_tracer.lax.linalg`.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
    >>> a = ShapeDtypeStruct((2, 4, 4), "complex64")
    >>> [(o.shape, o.dtype.name) for o in eval_shape(tridiagonal_p.bind, a, lower=True)]
    [((2, 4, 4), 'complex64'), ((2, 4), 'float32'), ((2, 3), 'float32'), ((2, 3), 'complex64')]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._prims_linalg import _check_inexact, _real_dtype, _square, _weak

__all__ = [
    "cholesky_update_p", "hessenberg_p", "householder_product_p", "lu_pivots_to_permutation_p",
    "ormqr_p", "symmetric_product_p", "tridiagonal_p", "tridiagonal_solve_p",
]  # fmt: skip

_INT32 = np.dtype(np.int32)


def _batch(name: str, avals: Sequence[ShapedArray], ranks: Sequence[int]) -> tuple[int, ...]:
    """The leading batch shape that operands of core ranks ``ranks`` share."""
    batches = []
    for i, (aval, rank) in enumerate(zip(avals, ranks, strict=True)):
        if aval.ndim < rank:
            raise TypeError(
                f"Input {i} to {name} must have rank at least {rank}, but got shape={aval.shape}"
            )
        batches.append(tuple(aval.shape[: aval.ndim - rank]))
    if any(b != batches[0] for b in batches[1:]):
        raise TypeError(
            f"All inputs to {name} must have the same batch dimensions, but got {batches}; "
            "broadcast them to one batch shape first."
        )
    return batches[0]


def _check_real(name: str, *avals: ShapedArray) -> None:
    for aval in avals:
        if not _dtypes.issubdtype(aval.dtype, np.floating):
            raise TypeError(
                f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are subtypes "
                "of floating; convert the operands to a real floating dtype first."
            )
    if any(a.dtype != avals[0].dtype for a in avals[1:]):
        raise TypeError(
            f"{name} requires arguments to have the same dtypes, got "
            f"{', '.join(a.dtype.name for a in avals)}."
        )


# ---------------------------------------------------------------- hessenberg


def _hessenberg_rule(a: ShapedArray) -> list[ShapedArray]:
    _check_inexact("hessenberg", a)
    batch = _batch("hessenberg", [a], [2])
    _square("hessenberg", a)
    n = a.shape[-1]
    return [
        ShapedArray(a.shape, a.dtype, a.weak_type),
        ShapedArray((*batch, max(n - 1, 0)), a.dtype, a.weak_type),
    ]


hessenberg_p = Primitive("hessenberg", multiple_results=True)
register_abstract_eval(hessenberg_p, _hessenberg_rule)


# --------------------------------------------------------------- tridiagonal


def _tridiagonal_rule(a: ShapedArray, *, lower: bool) -> list[ShapedArray]:
    _check_inexact("tridiagonal", a)
    batch = _batch("tridiagonal", [a], [2])
    n = a.shape[-1]
    if a.shape[-2] != n or n == 0:
        raise ValueError(
            f"The input to tridiagonal must be a square matrix. Got shape {a.shape[-2:]}; pass "
            "a (batch of) nonempty [..., n, n] matrices."
        )
    real = _real_dtype(a.dtype)
    return [
        ShapedArray(a.shape, a.dtype, a.weak_type),
        ShapedArray((*batch, n), real, a.weak_type),
        ShapedArray((*batch, n - 1), real, a.weak_type),
        ShapedArray((*batch, n - 1), a.dtype, a.weak_type),
    ]


tridiagonal_p = Primitive("tridiagonal", multiple_results=True)
register_abstract_eval(tridiagonal_p, _tridiagonal_rule)


# ------------------------------------------------------- householder_product


def _householder_product_rule(a: ShapedArray, taus: ShapedArray) -> ShapedArray:
    _check_inexact("householder_product", a, taus)
    _batch("householder_product", [a, taus], [2, 1])
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(
            "The first argument to householder_product must have at least as many rows as "
            f"columns, got shape {a.shape[-2:]}."
        )
    if taus.shape[-1] > min(m, n):
        raise ValueError(
            "The second argument to householder_product must not have more rows than the "
            f"minimum of the first argument's rows and columns, got {taus.shape[-1]} > "
            f"{min(m, n)}."
        )
    return ShapedArray(a.shape, a.dtype, _weak(a, taus))


householder_product_p = Primitive("householder_product")
register_abstract_eval(householder_product_p, _householder_product_rule)


# --------------------------------------------------------------------- ormqr


def _ormqr_rule(
    a: ShapedArray, taus: ShapedArray, c: ShapedArray, *, left: bool, transpose: bool
) -> ShapedArray:
    _check_inexact("ormqr", a, taus, c)
    _batch("ormqr", [a, taus, c], [2, 1, 2])
    m = a.shape[-2]
    if taus.shape[-1] > min(a.shape[-2:]):
        raise ValueError(
            f"ormqr: taus has {taus.shape[-1]} scalar factors, more than the "
            f"min(m, n) = {min(a.shape[-2:])} reflectors that a of shape {a.shape[-2:]} holds."
        )
    if left and c.shape[-2] != m:
        raise ValueError(
            "ormqr with left=True expects c to have the same number of rows as the "
            f"Householder matrix a. Got a shape {a.shape} and c shape {c.shape}."
        )
    if not left and c.shape[-1] != m:
        raise ValueError(
            "ormqr with left=False expects c to have the same number of columns as the "
            f"Householder matrix a has rows. Got a shape {a.shape} and c shape {c.shape}."
        )
    return ShapedArray(c.shape, c.dtype, _weak(a, taus, c))


ormqr_p = Primitive("ormqr")
register_abstract_eval(ormqr_p, _ormqr_rule)


# --------------------------------------------------------- tridiagonal_solve


def _tridiagonal_solve_rule(
    dl: ShapedArray, d: ShapedArray, du: ShapedArray, b: ShapedArray, *, perturb_singular: bool
) -> ShapedArray:
    _check_inexact("tridiagonal_solve", dl, d, du, b)
    _batch("tridiagonal_solve", [dl, d, du, b], [1, 1, 1, 2])
    if dl.shape != d.shape or dl.shape != du.shape:
        raise TypeError(
            "tridiagonal_solve requires that all diagonal arguments have the same shape, got "
            f"{dl.shape}, {d.shape} and {du.shape}."
        )
    if dl.shape != b.shape[:-1]:
        raise TypeError(
            "tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the "
            f"dimensions of the diagonal arguments, got b of shape {b.shape} and diagonals of "
            f"shape {dl.shape}."
        )
    return ShapedArray(b.shape, b.dtype, _weak(dl, d, du, b))


tridiagonal_solve_p = Primitive("tridiagonal_solve")
register_abstract_eval(tridiagonal_solve_p, _tridiagonal_solve_rule)


# -------------------------------------------------- lu_pivots_to_permutation


def _lu_pivots_to_permutation_rule(pivots: ShapedArray, *, permutation_size: int) -> ShapedArray:
    if pivots.dtype != _INT32:
        raise TypeError(
            f"lu_pivots_to_permutation does not accept dtype {pivots.dtype.name}. Accepted "
            "dtypes are int32; convert the pivots with lax.convert_element_type first."
        )
    batch = _batch("lu_pivots_to_permutation", [pivots], [1])
    if not permutation_size >= pivots.shape[-1]:
        raise ValueError(
            f"Output permutation size {permutation_size} has to exceed the trailing dimension "
            f"of the pivots. Got pivots size {pivots.shape[-1]}"
        )
    return ShapedArray((*batch, permutation_size), _INT32, False)


lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")
register_abstract_eval(lu_pivots_to_permutation_p, _lu_pivots_to_permutation_rule)


# ----------------------------------------------------------- cholesky_update


def _cholesky_update_rule(r: ShapedArray, w: ShapedArray) -> ShapedArray:
    _check_real("cholesky_update", r, w)
    for i, (aval, rank) in enumerate(((r, 2), (w, 1))):
        if aval.ndim != rank:
            raise TypeError(
                f"Input {i} to cholesky_update must have a rank of exactly {rank}, but got "
                f"shape={aval.shape}; map over batches with vmap."
            )
    if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
        raise ValueError(
            "Rank-1 update to Cholesky decomposition takes a square matrix and a vector of "
            f"the same size as input. Got shapes {r.shape} and {w.shape} instead"
        )
    return ShapedArray(r.shape, r.dtype, _weak(r, w))


cholesky_update_p = Primitive("cholesky_update")
register_abstract_eval(cholesky_update_p, _cholesky_update_rule)


# --------------------------------------------------------- symmetric_product


def _symmetric_product_rule(
    a: ShapedArray, c: ShapedArray, *, alpha: float, beta: float
) -> ShapedArray:
    _check_real("symmetric_product", a, c)
    _batch("symmetric_product", [a, c], [2, 2])
    if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
        raise ValueError(
            "symmetric_product expects a rectangular matrix of shape (m, n) and a square "
            f"matrix of shape (m, m). Got shapes {a.shape} and {c.shape}."
        )
    return ShapedArray(c.shape, c.dtype, _weak(a, c))


symmetric_product_p = Primitive("symmetric_product")
register_abstract_eval(symmetric_product_p, _symmetric_product_rule)
