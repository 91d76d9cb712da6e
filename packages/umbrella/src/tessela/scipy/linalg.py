"""``tessela.scipy.linalg``: the ``jax.scipy.linalg`` functions built from Tessela's linalg.

``cholesky``, ``cho_factor``, ``cho_solve``, ``solve_triangular``, ``solve``
(``assume_a`` ``"gen"``, ``"sym"``, ``"her"`` or ``"pos"``), ``inv``, ``det``,
``eigh``, ``svd``, ``qr`` and ``block_diag``, with SciPy's signatures as JAX
keeps them (``overwrite_*`` and ``check_finite`` are accepted and ignored);
``lu``, ``lu_factor``, ``lu_solve``, ``expm``, ``polar``, ``solve_sylvester`` and
``eigh_tridiagonal`` (``tessela._scipy_linalg_lu``); ``schur``,
``hessenberg``, ``rsf2csf``, ``sqrtm`` and ``funm``
(``tessela._scipy_linalg_schur``, CPU only as in JAX); the special matrices
``toeplitz``, ``hankel``, ``circulant``, ``companion``, ``leslie``, ``fiedler``,
``hilbert``, ``pascal``, ``helmert``, ``hadamard``, ``dft``, ``fiedler_companion``,
``convolution_matrix``, ``invhilbert`` and ``invpascal``
(``tessela._scipy_linalg_matrices``); ``expm_frechet`` and ``qr_multiply``
(``tessela._scipy_linalg_lu``). Leading axes are batch axes.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy.linalg import cho_factor, cho_solve
    >>> a = tnp.array([[4.0, 2.0], [2.0, 3.0]])
    >>> print(cho_solve(cho_factor(a), tnp.array([6.0, 5.0])))
    [1. 1.]
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_numpy import linalg as tnp_linalg
from tessela_tracer.lax import custom_linear_solve, pad, stop_gradient
from tessela_tracer.lax import linalg as lax_linalg
from tessela_tracer.typing import Array, ArrayLike

from tessela._scipy_linalg_lu import (
    eigh_tridiagonal,
    expm,
    expm_frechet,
    lu,
    lu_factor,
    lu_solve,
    polar,
    qr_multiply,
    solve_sylvester,
)
from tessela._scipy_linalg_matrices import (
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)
from tessela._scipy_linalg_schur import funm, hessenberg, rsf2csf, schur, sqrtm
from tessela._vectorize import vectorize

from .._scipy_promote import _inexact

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
    "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
]  # fmt: skip


def cholesky(
    a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Array:
    """The Cholesky factor of a Hermitian positive-definite matrix.

    Args:
        a: a ``(..., n, n)`` array.
        lower: return ``L`` with ``a = L L^H`` (else ``U`` with ``a = U^H U``).
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        The triangular factor (NaNs where ``a`` is not positive definite).

    Example:
        >>> import tessela.numpy as tnp
        >>> print(cholesky(tnp.array([[4.0, 2.0], [2.0, 5.0]])))
        [[2. 1.]
         [0. 2.]]
    """
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    l_factor = lax_linalg.cholesky(a if lower else tnp.conj(tnp.swapaxes(a, -1, -2)),
                                   symmetrize_input=False)  # fmt: skip
    return l_factor if lower else tnp.conj(tnp.swapaxes(l_factor, -1, -2))


def cho_factor(
    a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, bool]:
    """The Cholesky factor with its ``lower`` flag, for :func:`cho_solve`.

    Args:
        a: a ``(..., n, n)`` Hermitian positive-definite array.
        lower: compute the lower factor.
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        ``(c, lower)``.

    Example:
        >>> import tessela.numpy as tnp
        >>> cho_factor(tnp.eye(2), lower=True)[1]
        True
    """
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def _rhs_signature(name: str, a: Any, b: Any, extra: str = "") -> str:
    if b.ndim == 1:
        return f"(n,n){extra},(n)->(n)"
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, "
            "and in the future will be treated as a batched 2D solve. Use "
            f"{name}(..., b[..., None]).squeeze(-1) to avoid this warning.",
            category=FutureWarning,
            stacklevel=3,
        )
        return f"(n,n){extra},(n)->(n)"
    return f"(n,n){extra},(n,k)->(n,k)"


def _triangular(a: Any, b: Any, *, lower: bool, transpose_a: bool, conjugate_a: bool,
                unit_diagonal: bool = False) -> Any:  # fmt: skip
    if b.ndim == 1:
        return lax_linalg.triangular_solve(
            a, b[:, None], left_side=True, lower=lower, transpose_a=transpose_a,
            conjugate_a=conjugate_a, unit_diagonal=unit_diagonal,
        )[:, 0]  # fmt: skip
    return lax_linalg.triangular_solve(
        a, b, left_side=True, lower=lower, transpose_a=transpose_a,
        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal,
    )  # fmt: skip


def cho_solve(
    c_and_lower: tuple[ArrayLike, bool],
    b: ArrayLike,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Array:
    """Solve ``a x = b`` given the Cholesky factorization of ``a``.

    Args:
        c_and_lower: ``(c, lower)`` from :func:`cho_factor`.
        b: the right-hand side, ``(n,)`` or ``(..., n, k)``.
        overwrite_b: ignored.
        check_finite: ignored.

    Returns:
        ``x``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(cho_solve((tnp.eye(2) * 2.0, True), tnp.array([4.0, 8.0])))
        [1. 2.]
    """
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    signature = _rhs_signature("cho_solve", c, b)
    first = functools.partial(_triangular, lower=lower, transpose_a=not lower,
                              conjugate_a=not lower)  # fmt: skip
    second = functools.partial(_triangular, lower=lower, transpose_a=lower, conjugate_a=lower)
    y = vectorize(first, signature=signature)(c, b)
    return cast(Array, vectorize(second, signature=signature)(c, y))


def solve_triangular(
    a: ArrayLike,
    b: ArrayLike,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug: Any = None,
    check_finite: bool = True,
) -> Array:
    """Solve ``op(a) x = b`` for a triangular ``a``.

    Args:
        a: a ``(..., n, n)`` triangular array.
        b: the right-hand side, ``(n,)`` or ``(..., n, k)``.
        trans: ``0``/``"N"`` (``a``), ``1``/``"T"`` (``a^T``) or ``2``/``"C"`` (``a^H``).
        lower: use the lower triangle of ``a``.
        unit_diagonal: assume ones on the diagonal.
        overwrite_b: ignored.
        debug: ignored.
        check_finite: ignored.

    Returns:
        ``x``.

    Raises:
        ValueError: an invalid ``trans``.

    Example:
        >>> import tessela.numpy as tnp
        >>> a = tnp.array([[2.0, 0.0], [1.0, 1.0]])
        >>> print(solve_triangular(a, tnp.array([2.0, 3.0]), lower=True))
        [1. 2.]
    """
    del overwrite_b, debug, check_finite
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact(a, b)
    signature = _rhs_signature("solve_triangular", a, b)
    fn = functools.partial(_triangular, lower=lower, transpose_a=transpose_a,
                           conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)  # fmt: skip
    return cast(Array, vectorize(fn, signature=signature)(a, b))


def solve(
    a: ArrayLike,
    b: ArrayLike,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> Array:
    """Solve ``a x = b``.

    Args:
        a: a ``(..., n, n)`` array.
        b: the right-hand side.
        lower: with ``assume_a="pos"``, factor the lower triangle.
        overwrite_a: ignored.
        overwrite_b: ignored.
        debug: ignored.
        check_finite: ignored.
        assume_a: ``"gen"``, ``"sym"``, ``"her"`` (an LU solve) or ``"pos"``
            (a Cholesky solve).

    Returns:
        ``x``.

    Raises:
        ValueError: an unknown ``assume_a``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(solve(tnp.array([[4.0, 2.0], [2.0, 5.0]]), tnp.array([6.0, 7.0]), assume_a="pos"))
        [1. 1.]
    """
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    if assume_a != "pos":
        return tnp_linalg.solve(a, b)
    a, b = _inexact(a, b)
    # As JAX: one factorization serves the solve and its derivatives.
    factors = cho_factor(stop_gradient(a), lower=lower)

    def matvec(x: Array) -> Array:
        return tnp.matmul(a, x[..., None])[..., 0]

    def custom_solve(rhs: Array) -> Array:
        return cast(
            Array,
            custom_linear_solve(
                matvec, rhs, solve=lambda _, x: cho_solve(factors, x), symmetric=True
            ),
        )

    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return cast(Array, vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b))


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The inverse of a square matrix (``jnp.linalg.inv``).

    Args:
        a: a ``(..., n, n)`` array.
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        The inverse.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(inv(tnp.eye(2) * 2.0))
        [[0.5 0. ]
         [0.  0.5]]
    """
    del overwrite_a, check_finite
    return tnp_linalg.inv(a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The determinant (``jnp.linalg.det``).

    Args:
        a: a ``(..., n, n)`` array.
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        The determinant.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(det(tnp.eye(3) * 2.0))
        8.0
    """
    del overwrite_a, check_finite
    return tnp_linalg.det(a)


def eigh(
    a: ArrayLike,
    b: ArrayLike | None = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: None = None,
    type: int = 1,
    check_finite: bool = True,
) -> Array | tuple[Array, Array]:
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix.

    Args:
        a: a ``(..., n, n)`` Hermitian array (symmetrized first, as in JAX).
        b: must be None (the generalized problem is not provided).
        lower: read the lower triangle of ``a``.
        eigvals_only: return only the eigenvalues.
        overwrite_a: ignored.
        overwrite_b: ignored.
        turbo: ignored.
        eigvals: must be None.
        type: must be 1.
        check_finite: ignored.

    Returns:
        ``w`` or ``(w, v)``.

    Raises:
        NotImplementedError: ``b``, ``eigvals`` or ``type`` other than the defaults,
            as in JAX.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(eigh(tnp.array([[2.0, 0.0], [0.0, 1.0]]), eigvals_only=True))
        [1. 2.]
    """
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = _inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def svd(
    a: ArrayLike,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Array | tuple[Array, Array, Array]:
    """The singular value decomposition (``jnp.linalg.svd``).

    Args:
        a: a ``(..., m, n)`` array.
        full_matrices: square ``u`` and ``vh``.
        compute_uv: also return ``u`` and ``vh``.
        overwrite_a: ignored.
        check_finite: ignored.
        lapack_driver: ignored.

    Returns:
        ``(u, s, vh)``, or ``s``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(svd(tnp.eye(2) * 3.0, compute_uv=False))
        [3. 3.]
    """
    del overwrite_a, check_finite, lapack_driver
    out: Array | tuple[Array, Array, Array] = tnp_linalg.svd(
        a, full_matrices=full_matrices, compute_uv=compute_uv
    )
    return out


def qr(
    a: ArrayLike,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> tuple[Array] | tuple[Array, Array]:
    """The QR decomposition, with SciPy's modes.

    Args:
        a: a ``(..., m, n)`` array.
        overwrite_a: ignored.
        lwork: ignored.
        mode: ``"full"``, ``"economic"`` or ``"r"``.
        pivoting: must be False.
        check_finite: ignored.

    Returns:
        ``(q, r)``, or ``(r,)`` for ``mode="r"``.

    Raises:
        ValueError: an unknown ``mode``.
        NotImplementedError: ``pivoting=True``.

    Example:
        >>> import tessela.numpy as tnp
        >>> q, r = qr(tnp.ones((3, 2)), mode="economic")
        >>> q.shape, r.shape
        ((3, 2), (2, 2))
    """
    del overwrite_a, lwork, check_finite
    if pivoting:
        raise NotImplementedError("qr with pivoting=True is not provided by Tessela")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if mode == "r":
        return (cast(Array, tnp_linalg.qr(a, mode="r")),)
    q, r = tnp_linalg.qr(a, mode="complete" if mode == "full" else "reduced")
    return q, r


def block_diag(*arrs: ArrayLike) -> Array:
    """A block-diagonal matrix from the given blocks.

    Args:
        *arrs: arrays of at most two dimensions (scalars and 1-D arrays are rows).

    Returns:
        The block-diagonal matrix, in the blocks' promoted dtype.

    Raises:
        ValueError: an argument with more than two dimensions.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(block_diag(tnp.ones((1, 1)), 2.0 * tnp.ones((1, 2))))
        [[1. 0. 0.]
         [0. 2. 2.]]
    """
    if not arrs:
        arrs = (tnp.zeros((1, 0)),)
    dtype = tnp.result_type(*arrs)
    converted = [tnp.atleast_2d(tnp.asarray(x).astype(dtype)) for x in arrs]
    for i, x in enumerate(converted):
        if x.ndim > 2:
            raise ValueError(
                "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
                f"got {arrs[i]} at argument {i}."
            )
    total = sum(int(x.shape[1]) for x in converted)
    rows, col = [], 0
    for x in converted:
        cols = int(x.shape[1])
        rows.append(pad(x, np.zeros((), dtype)[()], ((0, 0, 0), (col, total - cols - col, 0))))
        col += cols
    return tnp.concatenate(rows, axis=0)
