"""``jax.scipy.linalg``: LU factorizations and solves, the matrix exponential, polar, Sylvester.

``lu``, ``lu_factor`` and ``lu_solve`` build on ``lax.linalg.lu`` (partial
pivoting) and triangular solves, as JAX's do; ``expm`` is JAX 0.10.2's
scaling-and-squaring Padé approximation (orders 3 to 13 by the 1-norm);
``polar`` uses the SVD; ``solve_sylvester`` solves the Kronecker-product
system (small matrices); ``eigh_tridiagonal`` the eigenvalues of the dense
tridiagonal matrix. ``expm_frechet(A, E)`` is the derivative of ``expm`` at
``A`` in the direction ``E`` (forward-mode differentiation of ``expm``, as JAX
computes it); ``qr_multiply(a, c)`` multiplies ``c`` by the ``Q`` of ``a``'s
reduced QR decomposition (``Q c`` or ``c Q``, optionally ``conj(Q)``) and
returns it with ``R``.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_autodiff import jvp
from tessela_numpy import linalg as tnp_linalg
from tessela_tracer import dtypes, lax
from tessela_tracer.lax import linalg as lax_linalg
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _inexact
from ._staged import staged_eagerly
from ._vectorize import vectorize

__all__ = [
    "eigh_tridiagonal", "expm", "expm_frechet", "lu", "lu_factor", "lu_solve", "polar",
    "qr_multiply", "solve_sylvester",
]  # fmt: skip


def lu_factor(
    a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, Array]:
    """The LU factorization of ``a`` with partial pivoting, packed for :func:`lu_solve`.

    Args:
        a: an array of shape ``(..., m, n)``.
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        ``(lu, piv)``: ``L`` (unit diagonal implied) below and ``U`` on and above the
        diagonal of ``lu``; ``piv[i]`` is the row swapped with row ``i``.

    Example:
        >>> lu, piv = lu_factor(tnp.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> print(piv)
        [1 1]
    """
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def _pivots_to_permutation(pivots: Any, m: int) -> Any:
    def body(i: Array, perm: Array) -> Array:
        j = pivots[i]
        pi, pj = perm[i], perm[j]
        return perm.at[i].set(pj).at[j].set(pi)

    return lax.fori_loop(0, pivots.shape[0], body, tnp.arange(m, dtype=pivots.dtype))


def _lu_solve_core(lu_: Any, pivots: Any, b: Any, *, trans: int) -> Any:
    m = lu_.shape[0]
    perm = _pivots_to_permutation(pivots, m)
    x = tnp.reshape(b, (m, -1))
    tri = functools.partial(lax_linalg.triangular_solve, left_side=True)
    if trans == 0:
        x = tnp.take(x, perm, axis=0)
        x = tri(lu_, x, lower=True, unit_diagonal=True)
        x = tri(lu_, x, lower=False)
    else:
        conj = trans == 2
        x = tri(lu_, x, lower=False, transpose_a=True, conjugate_a=conj)
        x = tri(lu_, x, lower=True, unit_diagonal=True, transpose_a=True, conjugate_a=conj)
        inverse = tnp.zeros_like(perm).at[perm].set(tnp.arange(m, dtype=perm.dtype))
        x = tnp.take(x, inverse, axis=0)
    return tnp.reshape(x, b.shape)


def lu_solve(
    lu_and_piv: tuple[ArrayLike, ArrayLike],
    b: ArrayLike,
    trans: int = 0,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Array:
    """Solve ``a x = b`` (``trans=1``: ``a^T x = b``; ``2``: ``a^H x = b``) from :func:`lu_factor`.

    Args:
        lu_and_piv: the pair :func:`lu_factor` returned.
        b: the right-hand side, ``(..., n)`` or ``(..., n, k)``.
        trans: 0, 1 or 2.
        overwrite_b: ignored.
        check_finite: ignored.

    Returns:
        The solution, of ``b``'s shape.

    Raises:
        ValueError: ``trans`` not 0, 1 or 2.

    Example:
        >>> a = tnp.array([[2.0, 1.0], [1.0, 2.0]])
        >>> print(lu_solve(lu_factor(a), tnp.array([3.0, 3.0])))
        [1. 1.]
    """
    del overwrite_b, check_finite
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    lu_, pivots = lu_and_piv
    lu_, b = _inexact(lu_, b)
    pivots = tnp.asarray(pivots)
    if b.ndim == 1 or (lu_.ndim == b.ndim + 1 and lu_.shape[-1] == b.shape[-1]):
        signature = "(m,m),(k),(m)->(m)"
    else:
        signature = "(m,m),(k),(m,n)->(m,n)"
    core = functools.partial(_lu_solve_core, trans=trans)
    return cast(Array, vectorize(core, signature=signature)(lu_, pivots, b))


def lu(
    a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, Array] | tuple[Array, Array, Array]:
    """The LU decomposition ``a = p @ l @ u`` with partial pivoting.

    Args:
        a: an array of shape ``(m, n)``.
        permute_l: return ``(p @ l, u)`` instead of ``(p, l, u)``.
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        ``(p, l, u)`` (``p`` a permutation matrix, ``l`` unit lower
        trapezoidal ``(m, k)``, ``u`` upper trapezoidal ``(k, n)``,
        ``k = min(m, n)``), or ``(p @ l, u)``.

    Example:
        >>> p, l, u = lu(tnp.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> print(p)
        [[0. 1.]
         [1. 0.]]
    """
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    lu_, _, permutation = lax_linalg.lu(a)
    dtype = a.dtype
    m, n = a.shape[-2:]
    eye = np.arange(m, dtype=np.int32)
    p = tnp.real((permutation[..., None, :] == eye[:, None]).astype(dtype))
    k = min(m, n)
    lower = tnp.tril(lu_, -1)[..., :, :k] + tnp.eye(m, k, dtype=dtype)
    upper = tnp.triu(lu_)[..., :k, :]
    if permute_l:
        return tnp.matmul(p, lower), upper
    return p, lower, upper


# ------------------------------------------------------------------ expm
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}  # fmt: skip


def _dot(a: Any, b: Any) -> Any:
    return tnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _pade(order: int) -> Any:
    b = _PADE[order]

    def approx(a: Array) -> tuple[Array, Array]:
        ident = tnp.eye(a.shape[0], a.shape[1], dtype=a.dtype)
        a2 = _dot(a, a)
        powers = [ident, a2]
        if order == 13:
            a4 = _dot(a2, a2)
            a6 = _dot(a4, a2)
            u_hi = _dot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
            v_hi = _dot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
            u = _dot(a, u_hi + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
            v = v_hi + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
            return u, v
        while len(powers) < (order + 1) // 2:
            powers.append(_dot(powers[-1], a2) if len(powers) > 2 else _dot(a2, a2))
        u_sum = b[order] * powers[-1]
        v_sum = b[order - 1] * powers[-1]
        for i in range(len(powers) - 2, -1, -1):
            u_sum = u_sum + b[2 * i + 1] * powers[i]
            v_sum = v_sum + b[2 * i] * powers[i]
        return _dot(a, u_sum), v_sum

    return approx


def _calc_p_q(a: Any) -> tuple[Any, Any, Any]:
    a_l1 = tnp_linalg.norm(a, 1)
    orders: tuple[int, ...]
    if a.dtype in (np.float64, np.complex128):
        maxnorm, conds, orders = 5.371920351148152, [
            1.495585217958292e-002, 2.539398330063230e-001,
            9.504178996162932e-001, 2.097847961257068e000,
        ], (3, 5, 7, 9, 13)  # fmt: skip
    elif a.dtype in (np.float32, np.complex64):
        maxnorm, conds, orders = (
            3.925724783138660,
            [4.258730016922831e-001, 1.880152677804762e000],
            (3, 5, 7),
        )
    else:
        raise TypeError(f"A.dtype={a.dtype} is not supported.")
    n_squarings = tnp.maximum(0, tnp.floor(tnp.log2(a_l1 / maxnorm)))
    a = a / 2 ** n_squarings.astype(a.dtype)
    idx = tnp.digitize(a_l1, tnp.array(conds, dtype=a_l1.dtype))
    u, v = lax.switch(idx, [_pade(k) for k in orders], a)
    return u + v, -u + v, n_squarings


def _expm_2d(a: Any, *, upper_triangular: bool, max_squarings: int) -> Any:
    p, q, n_squarings = _calc_p_q(a)

    def nan(args: tuple[Array, Array, Array]) -> Array:
        return tnp.full_like(args[0], np.nan)

    def compute(args: tuple[Array, Array, Array]) -> Array:
        _, p, q = args
        if upper_triangular:
            r = lax_linalg.triangular_solve(q, p, left_side=True, lower=False)
        else:
            r = tnp_linalg.solve(q, p)

        def step(c: Array, i: Array) -> tuple[Array, None]:
            return lax.cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, c), None

        r, _ = lax.scan(step, r, tnp.arange(max_squarings, dtype=n_squarings.dtype))
        return r

    return lax.cond(n_squarings > max_squarings, nan, compute, (a, p, q))


@staged_eagerly(static_argnames=("upper_triangular", "max_squarings"))
def expm(a: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:
    """The matrix exponential, by scaling and squaring with a Padé approximant.

    Args:
        a: a (batched) square matrix.
        upper_triangular: ``a`` is upper triangular (a triangular solve suffices).
        max_squarings: the most squarings; a matrix needing more gives NaNs.

    Returns:
        ``expm(a)``, of ``a``'s shape.

    Raises:
        ValueError: ``a`` is not a (batched) square matrix.

    Example:
        >>> print(expm(tnp.zeros((2, 2))))
        [[1. 0.]
         [0. 1.]]
    """
    (a,) = _inexact(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got {a.shape=}.")
    core = functools.partial(
        _expm_2d, upper_triangular=upper_triangular, max_squarings=max_squarings
    )
    if a.ndim > 2:
        return cast(Array, vectorize(core, signature="(n,n)->(n,n)")(a))
    return cast(Array, core(a))


# ------------------------------------------------------- polar, Sylvester, tridiagonal


def _polar_2d(
    a: Any, *, side: str, method: str, eps: float | None
) -> tuple[Any, Any]:  # fmt: skip
    m, n = a.shape
    if method == "qdwh":
        if m >= n and side == "right":
            u, p, _, _ = lax_linalg.qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            u, p, _, _ = lax_linalg.qdwh(tnp.conj(a.T), is_hermitian=False, eps=eps)
            u, p = tnp.conj(u.T), tnp.conj(p.T)
        else:
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and "
                f"m >= n side='left', got {a.shape} with {side=}; pass method='svd' for this "
                "shape and side."
            )
    elif method == "svd":
        w, s, vh = tnp_linalg.svd(a, full_matrices=False)
        s = s.astype(w.dtype)
        u = tnp.matmul(w, vh)
        if side == "right":
            p = tnp.matmul(tnp.conj(vh.T) * s[None, :], vh)
        else:
            p = tnp.matmul(w * s[None, :], tnp.conj(w.T))
    else:
        raise ValueError(f"Unknown polar decomposition method {method}.")
    return u, p


def polar(
    a: ArrayLike, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[Array, Array]:  # fmt: skip
    """The polar decomposition ``a = u @ p`` (``side="right"``) or ``a = p @ u`` (``"left"``).

    With ``method="qdwh"`` (the default) through ``lax.linalg.qdwh``, as JAX:
    a tall (or square) matrix with ``side="right"``, or a wide one with
    ``side="left"`` (its adjoint's decomposition); ``method="svd"`` takes any
    shape and side, from the thin SVD ``a = w s vh``: ``u = w @ vh``,
    ``p = vh^H s vh`` (right) or ``w s w^H`` (left). Leading axes are batch axes.

    Args:
        a: matrices ``(..., m, n)``.
        side: ``"right"`` or ``"left"``.
        method: ``"qdwh"`` or ``"svd"``.
        eps: QDWH's convergence tolerance base (default the dtype's epsilon).
        max_iterations: accepted as JAX accepts it; JAX's QDWH path does not use it.

    Returns:
        ``(u, p)``: ``u`` with orthonormal columns (rows), ``p`` Hermitian positive
        semi-definite.

    Raises:
        ValueError: ``a`` below two dimensions, an unknown ``side`` or ``method``.
        NotImplementedError: ``method="qdwh"`` of a wide matrix with
            ``side="right"`` or a tall one with ``side="left"``, as in JAX.

    Example:
        >>> u, p = polar(tnp.array([[2.0, 0.0], [0.0, 3.0]]))
        >>> print(tnp.round(p, 4))
        [[2. 0.]
         [0. 3.]]
    """
    del max_iterations  # JAX's QDWH path ignores it too
    (arr,) = _inexact(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    polar_2d = functools.partial(_polar_2d, side=side, method=method, eps=eps)
    u, p = vectorize(polar_2d, signature=sig)(arr)
    return u, p


def solve_sylvester(
    a: ArrayLike, b: ArrayLike, c: ArrayLike, *, method: str = "schur", tol: float = 1e-8
) -> Array:
    """Solve the Sylvester equation ``a @ x + x @ b = c``.

    Solved as the Kronecker-product system ``(I kron a + b^T kron I) vec(x) =
    vec(c)``, which suits small matrices (``n * m`` unknowns).

    Args:
        a: an ``(n, n)`` matrix.
        b: an ``(m, m)`` matrix.
        c: an ``(n, m)`` matrix.
        method: ``"schur"`` or ``"eigen"`` (accepted; the solution is the same).
        tol: ignored.

    Returns:
        ``x``, ``(n, m)``.

    Raises:
        ValueError: shapes that do not fit, or an unknown ``method``.

    Example:
        >>> print(solve_sylvester(tnp.eye(2), tnp.eye(2), 2 * tnp.eye(2)))
        [[1. 0.]
         [0. 1.]]
    """
    del tol
    if method not in ("schur", "eigen"):
        raise ValueError(f"Unrecognized method {method}. The two valid methods are either "
                         "'schur' or 'eigen'.")  # fmt: skip
    a, b, c = _inexact(a, b, c)
    if a.ndim != 2 or b.ndim != 2 or c.shape != (a.shape[0], b.shape[0]):
        raise ValueError(
            "solve_sylvester expects a (n, n), b (m, m) and c (n, m); got shapes "
            f"{a.shape}, {b.shape} and {c.shape}."
        )
    n, m = c.shape
    system = tnp.kron(tnp.eye(m, dtype=a.dtype), a) + tnp.kron(b.T, tnp.eye(n, dtype=a.dtype))
    x = tnp_linalg.solve(system, tnp.reshape(c.T, (n * m,)))
    return tnp.reshape(x, (m, n)).T


def eigh_tridiagonal(
    d: ArrayLike, e: ArrayLike, *, eigvals_only: bool = False, select: str = "a",
    select_range: tuple[float, float] | None = None, tol: float | None = None,
) -> Array:  # fmt: skip
    """The eigenvalues of the symmetric tridiagonal matrix with diagonal ``d``, off-diagonal ``e``.

    Args:
        d: the diagonal, ``(n,)``.
        e: the off-diagonal, ``(n - 1,)``.
        eigvals_only: must be True, as in JAX.
        select: ``"a"`` (all eigenvalues) or ``"i"`` (those whose index lies in ``select_range``).
        select_range: the inclusive index range for ``select="i"``.
        tol: ignored.

    Returns:
        The eigenvalues in ascending order.

    Raises:
        NotImplementedError: ``eigvals_only=False`` or ``select="v"``, as in JAX.

    Example:
        >>> print(eigh_tridiagonal(tnp.array([2.0, 2.0]), tnp.array([1.0]), eigvals_only=True))
        [1. 3.]
    """
    del tol
    if not eigvals_only:
        raise NotImplementedError("Calculation of eigenvectors is not implemented")
    if select not in ("a", "i"):
        raise NotImplementedError(f"select={select!r} is not implemented")
    d, e = _inexact(d, e)
    n = d.shape[0]
    mat = tnp.diag(d) + tnp.diag(e, 1) + tnp.diag(tnp.conj(e), -1)
    w = tnp_linalg.eigvalsh(mat)
    if select == "i":
        lo, hi = (0, n - 1) if select_range is None else select_range
        w = w[int(lo) : int(hi) + 1]
    return w


def expm_frechet(
    A: ArrayLike, E: ArrayLike, *, method: str | None = None, compute_expm: bool = True
) -> Array | tuple[Array, Array]:
    """The Fréchet derivative of the matrix exponential at ``A`` in the direction ``E``.

    Args:
        A: a ``(..., n, n)`` array.
        E: the direction, of ``A``'s shape.
        method: ignored (as in JAX).
        compute_expm: also return ``expm(A)``.

    Returns:
        ``(expm(A), L(A, E))``, or ``L(A, E)`` when ``compute_expm`` is False.

    Raises:
        ValueError: ``A`` or ``E`` not (batched) square, or of different shapes.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(expm_frechet(tnp.zeros((2, 2)), tnp.eye(2), compute_expm=False))
        [[1. 0.]
         [0. 1.]]
    """
    del method
    a, e = tnp.asarray(A), tnp.asarray(E)
    if a.ndim < 2 or a.shape[-2] != a.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e.shape}")
    if a.shape != e.shape:
        raise ValueError(
            f"expected A and E to be the same shape, got A.shape={a.shape} E.shape={e.shape}"
        )
    bound = functools.partial(expm, upper_triangular=False, max_squarings=16)
    expm_a, frechet = jvp(bound, (a,), (e,))
    return (expm_a, frechet) if compute_expm else frechet


def qr_multiply(
    a: ArrayLike,
    c: ArrayLike,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> tuple[Array, Array]:
    """The QR decomposition of ``a`` and the product of its ``Q`` with ``c``.

    Args:
        a: a ``(..., m, n)`` array.
        c: ``(..., k, p)`` for ``mode="left"`` (``k = min(m, n)``), ``(..., p, m)``
            for ``mode="right"``; a 1-D ``c`` is a column (left) or a row (right)
            and the result is raveled.
        mode: ``"right"`` (``c @ Q``, its first ``k`` columns) or ``"left"`` (``Q @ c``).
        pivoting: must be False (column pivoting is not provided).
        conjugate: use ``conj(Q)``.
        overwrite_a: ignored.
        overwrite_c: ignored.

    Returns:
        ``(product, R)`` with ``R`` of shape ``(..., k, n)``.

    Raises:
        ValueError: an unknown ``mode`` or incompatible shapes.
        NotImplementedError: ``pivoting=True``.

    Example:
        >>> import tessela.numpy as tnp
        >>> a = tnp.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [1.0, 4.0]])
        >>> qtb, r = qr_multiply(a, tnp.array([2.0, 4.0, 5.0, 4.0]))
        >>> qtb.shape, r.shape
        ((2,), (2, 2))
    """
    del overwrite_a, overwrite_c
    a, c = tnp.asarray(a), tnp.asarray(c)
    dtype = tnp.result_type(a, c)
    if not dtypes.issubdtype(dtype, np.inexact):
        dtype = tnp.result_type(dtype, np.float32)
    a, c = a.astype(dtype), c.astype(dtype)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    if pivoting:
        raise NotImplementedError("qr_multiply with pivoting=True is not provided by Tessela")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(
            f"Array shapes are not compatible for Q @ c operation: a has shape "
            f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} rows "
            f"(expected {k})."
        )
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape "
            f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} columns "
            f"(expected {m})."
        )
    batch = tnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = tnp.broadcast_to(a, batch + a.shape[-2:])
    c = tnp.broadcast_to(c, batch + c.shape[-2:])
    q, r = tnp_linalg.qr(a, mode="reduced")
    if conjugate:
        q = tnp.conj(q)
    out = tnp.matmul(q, c) if mode == "left" else tnp.matmul(c, q)
    if onedim:
        out = out.ravel()
    return out, tnp.triu(r)
