"""``tessela.scipy.linalg``'s Schur-based functions, as JAX builds them.

- ``schur``: ``lax.linalg.schur`` (LAPACK's ``gees``, CPU only), real
  (quasi-triangular ``T``) or complex output.
- ``hessenberg``: ``lax.linalg.hessenberg`` (``gehrd``), with ``Q`` from
  ``lax.linalg.householder_product`` of the stored reflectors.
- ``rsf2csf``: the real Schur form made complex upper triangular by one
  Givens rotation per 2x2 block, as SciPy computes it.
- ``sqrtm``: the complex Schur method of Björck and Hammarling (1983): the
  square root of the triangular factor column by column, then ``Z U Z^H``.
- ``funm``: ``f(A)`` from the complex Schur form and Parlett's recurrence
  (Golub and Van Loan, Algorithm 11.1.1).

Example:
    >>> import tessela.numpy as tnp
    >>> a = tnp.array([[4.0, 1.0], [0.0, 9.0]])
    >>> x = sqrtm(a)
    >>> bool(tnp.allclose(x, tnp.array([[2.0, 0.2], [0.0, 3.0]]), atol=1e-5))
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_numpy import linalg as tnp_linalg
from tessela_tracer import dtypes as _dtypes
from tessela_tracer import jit, lax
from tessela_tracer.lax import linalg as lax_linalg
from tessela_tracer.typing import Array, ArrayLike

from ._vectorize import vectorize

__all__ = ["funm", "hessenberg", "rsf2csf", "schur", "sqrtm"]


def _complex_dtype(dtype: Any) -> Any:
    return tnp.result_type(dtype, tnp.complex64)


# ---------------------------------------------------------------------- schur


def _schur(a: Any, output: str) -> tuple[Any, Any]:
    if output == "complex":
        a = a.astype(_complex_dtype(a.dtype))
    t, z = lax_linalg.schur(a)
    return t, z


_schur_jit = jit(_schur, static_argnums=(1,))


def schur(a: ArrayLike, output: str = "real") -> tuple[Array, Array]:
    """The Schur decomposition ``a = Z T Z^H``; CPU only.

    Args:
        a: matrices ``(..., n, n)``.
        output: ``"real"``: ``T`` quasi upper triangular (2x2 diagonal blocks
            for complex conjugate eigenvalue pairs of real ``a``); ``"complex"``:
            ``T`` upper triangular and complex.

    Returns:
        ``(T, Z)``, ``Z`` unitary.

    Raises:
        ValueError: ``output`` is neither ``"real"`` nor ``"complex"``.

    Example:
        >>> import tessela.numpy as tnp
        >>> t, z = schur(tnp.array([[1.0, 2.0], [2.0, 1.0]]))
        >>> print(tnp.round(tnp.sort(tnp.diagonal(t)), 4))
        [-1.  3.]
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur_jit(tnp.asarray(a), output)  # type: ignore[no-any-return]


# ----------------------------------------------------------------- hessenberg


def _hessenberg(a: Any, calc_q: bool) -> Any:
    n = a.shape[-1]
    if n == 0:
        return (tnp.zeros_like(a), tnp.zeros_like(a)) if calc_q else tnp.zeros_like(a)
    a_out, taus = lax_linalg.hessenberg(a)
    h = tnp.triu(a_out, -1)
    if not calc_q:
        return h
    q = lax_linalg.householder_product(a_out[..., 1:, :-1], taus)
    batch = a_out.shape[:-2]
    dtype = a_out.dtype
    q = tnp.block([
        [tnp.ones((*batch, 1, 1), dtype=dtype), tnp.zeros((*batch, 1, n - 1), dtype=dtype)],
        [tnp.zeros((*batch, n - 1, 1), dtype=dtype), q],
    ])  # fmt: skip
    return h, q


_hessenberg_jit = jit(_hessenberg, static_argnums=(1,))


def hessenberg(
    a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Array:
    """The Hessenberg form ``H`` of ``a = Q H Q^H``; CPU only.

    Args:
        a: matrices ``(..., n, n)``.
        calc_q: also return the unitary ``Q``.
        overwrite_a: ignored.
        check_finite: ignored.

    Returns:
        ``H`` (zero below the first subdiagonal), or ``(H, Q)`` with ``calc_q``.

    Example:
        >>> import tessela.numpy as tnp
        >>> a = tnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
        >>> h, q = hessenberg(a, calc_q=True)
        >>> bool(tnp.allclose(q @ h @ q.T, a, atol=1e-4)), float(h[2, 0])
        (True, 0.0)
    """
    del overwrite_a, check_finite
    arr = tnp.asarray(a)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"hessenberg expects square matrices (..., n, n), got shape {arr.shape}.")
    return cast(Array, _hessenberg_jit(arr, bool(calc_q)))


# -------------------------------------------------------------------- rsf2csf


def _rsf2csf_2d(t: Any, z: Any) -> tuple[Any, Any]:
    dtype = _complex_dtype(tnp.result_type(t, z))
    t, z = t.astype(dtype), z.astype(dtype)
    eps = float(_dtypes.finfo(dtype).eps)
    n = t.shape[0]
    if n == 1:
        return t, z
    idx = tnp.arange(n)

    def update(m: Array, t: Array, z: Array) -> tuple[Array, Array]:
        block = lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))
        mu = tnp_linalg.eigvals(block) - t[m, m]
        r = tnp_linalg.norm(tnp.stack([mu[0], t[m, m - 1]])).astype(dtype)
        c = mu[0] / r
        s = t[m, m - 1] / r
        g = tnp.stack([tnp.stack([tnp.conj(c), s]), tnp.stack([-s, c])])
        rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        col_mask = idx >= m - 1
        rotated = g @ tnp.where(col_mask, rows, 0)
        t = lax.dynamic_update_slice_in_dim(t, tnp.where(col_mask, rotated, rows), m - 1, axis=0)
        cols = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        row_mask = idx[:, None] < m + 1
        rotated = tnp.where(row_mask, cols, 0) @ tnp.conj(g.T)
        t = lax.dynamic_update_slice_in_dim(t, tnp.where(row_mask, rotated, cols), m - 1, axis=1)
        z_cols = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        z = lax.dynamic_update_slice_in_dim(z, z_cols @ tnp.conj(g.T), m - 1, axis=1)
        return t, z

    def step(i: Array, tz: tuple[Array, Array]) -> tuple[Array, Array]:
        m = n - i
        t, z = tz
        big = tnp.abs(t[m, m - 1]) > eps * (tnp.abs(t[m - 1, m - 1]) + tnp.abs(t[m, m]))
        t, z = lax.cond(big, update, lambda m, t, z: (t, z), m, t, z)
        return t.at[m, m - 1].set(0), z

    out: tuple[Any, Any] = lax.fori_loop(1, n, step, (t, z))
    return out


_rsf2csf = jit(vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)"))


def rsf2csf(t: ArrayLike, z: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """Convert a real Schur form ``(T, Z)`` to the complex Schur form; CPU only.

    Args:
        t: ``(..., n, n)``, the real (quasi upper triangular) Schur form.
        z: ``(..., n, n)``, its Schur vectors; batch axes broadcast with ``t``'s.
        check_finite: ignored.

    Returns:
        ``(T, Z)``, complex, ``T`` upper triangular, with ``Z T Z^H`` unchanged.

    Raises:
        ValueError: ``t`` or ``z`` is not square, or their sizes differ.

    Example:
        >>> import tessela.numpy as tnp
        >>> a = tnp.array([[0.0, -1.0], [1.0, 0.0]])
        >>> t, z = rsf2csf(*schur(a))
        >>> print(tnp.round(tnp.abs(t[1, 0]), 4), tnp.round(tnp.sort(tnp.diagonal(t).imag), 4))
        0.0 [-1.  1.]
    """
    del check_finite
    t_arr, z_arr = tnp.asarray(t), tnp.asarray(z)
    if t_arr.ndim < 2 or t_arr.shape[-1] != t_arr.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if z_arr.ndim < 2 or z_arr.shape[-1] != z_arr.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if t_arr.shape[-1] != z_arr.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {z_arr.shape} vs. T: {t_arr.shape}")
    return _rsf2csf(t_arr, z_arr)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------- sqrtm


def _sqrtm_triu(t: Any) -> Any:
    """The upper triangular square root of upper triangular ``t`` (Björck-Hammarling)."""
    diag = tnp.sqrt(tnp.diag(t))
    n = diag.size
    zero = tnp.zeros((), t.dtype)

    def i_loop(offset: Array, data: tuple[Array, Array]) -> tuple[Array, Array]:
        j, u = data
        i = j - 1 - offset
        s = lax.fori_loop(i + 1, j, lambda k, val: val + u[i, k] * u[k, j], zero)
        value = tnp.where(t[i, j] == s, zero, (t[i, j] - s) / (diag[i] + diag[j]))
        return j, u.at[i, j].set(value)

    def j_loop(j: Array, u: Array) -> Array:
        _, u = lax.fori_loop(0, j, i_loop, (j, u))
        return u

    return lax.fori_loop(0, n, j_loop, tnp.diag(diag))


def _sqrtm(a: Any) -> Any:
    t, z = _schur(a, "complex")
    root = _sqrtm_triu(t)
    high = lax.Precision.HIGHEST
    return tnp.matmul(tnp.matmul(z, root, precision=high), tnp.conj(z.T), precision=high)


_sqrtm_jit = jit(_sqrtm)


def sqrtm(A: ArrayLike, blocksize: int = 1) -> Array:
    """The principal matrix square root, by the complex Schur method; CPU only.

    Args:
        A: a square matrix ``(n, n)``.
        blocksize: must be 1 (the blocked algorithm is not implemented, as in JAX).

    Returns:
        ``X`` (complex) with ``X @ X = A``.

    Raises:
        NotImplementedError: ``blocksize > 1``.

    Example:
        >>> import tessela.numpy as tnp
        >>> x = sqrtm(tnp.array([[1.0, 3.0], [1.0, 5.0]]))
        >>> bool(tnp.allclose(x @ x, tnp.array([[1.0, 3.0], [1.0, 5.0]]), atol=1e-5))
        True
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return cast(Array, _sqrtm_jit(A))


# ----------------------------------------------------------------------- funm


def _parlett(f: Any, t: Any) -> tuple[Any, Any]:
    """Golub and Van Loan's Algorithm 11.1.1: the off-diagonal of ``f(T)`` from its diagonal."""
    n = t.shape[0]
    idx = tnp.arange(n)

    def inner(i: Array, state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        p, f, minden = state
        j = i + p
        s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
        ind = (idx >= i) & (idx < j - 1)
        val = tnp.where(ind, t[i - 1], 0) @ tnp.where(ind, f[:, j - 1], 0) - tnp.where(
            ind, f[i - 1], 0
        ) @ tnp.where(ind, t[:, j - 1], 0)
        s = s + val
        den = t[j - 1, j - 1] - t[i - 1, i - 1]
        s = tnp.where(den != 0, s / den, s)
        return p, f.at[i - 1, j - 1].set(s), tnp.minimum(minden, tnp.abs(den))

    def outer(p: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        _, f, minden = lax.fori_loop(1, n - p + 1, inner, (p, *state))
        return f, minden

    out: tuple[Any, Any] = lax.fori_loop(1, n, outer, (f, tnp.abs(t[0, 0])))
    return out


def funm(
    A: ArrayLike, func: Callable[[Array], ArrayLike], disp: bool = True
) -> Array | tuple[Array, Array]:
    """The matrix function ``func(A)`` from ``func`` on scalars, by the Schur-Parlett method; CPU only.

    Args:
        A: a square matrix ``(n, n)``.
        func: a function applied elementwise to the eigenvalues (the diagonal of
            the complex Schur form).
        disp: return the result alone; with ``False``, also an estimate of its
            relative error (no message is printed either way).

    Returns:
        ``func(A)``, complex; or ``(func(A), err)`` with ``disp=False``.

    Raises:
        ValueError: ``A`` is not one square matrix.

    Example:
        >>> import tessela.numpy as tnp
        >>> a = tnp.array([[1.0, 2.0], [0.0, 3.0]])
        >>> print(tnp.round(funm(a, lambda x: x * x).real, 4))
        [[1. 8.]
         [0. 9.]]
    """
    a = tnp.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = schur(a)
    t, z = rsf2csf(t, z)
    f = tnp.diag(func(tnp.diag(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ tnp.conj(z.T)
    if disp:
        return cast(Array, f)
    tol = float(np.finfo(np.float64 if f.dtype == tnp.complex128 else np.float32).eps)
    minden = tnp.where(minden == 0.0, tol, minden)
    err = tnp.where(
        tnp.any(tnp.isinf(f)),
        np.inf,
        tnp.minimum(1, tnp.maximum(tol, (tol / minden) * tnp_linalg.norm(tnp.triu(t, 1), 1))),
    )
    return f, err
