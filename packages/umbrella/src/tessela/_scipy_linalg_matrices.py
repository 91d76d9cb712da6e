"""``jax.scipy.linalg``'s special matrices: Toeplitz, Hankel, circulant, companion, ...

Each follows JAX 0.10.2: the vector-argument constructors broadcast over
leading batch dimensions (``toeplitz``, ``hankel``, ``circulant``,
``companion``, ``leslie``, ``fiedler``), the size-argument ones take a
concrete Python integer (``hilbert``, ``pascal``, ``helmert``, ``hadamard``,
``dft``).
"""

from __future__ import annotations

import math
import operator
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import dtypes as _dtypes
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr, promote_inexact
from ._scipy_special import comb
from ._vectorize import vectorize
from .typing import DTypeLike

__all__ = [
    "circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion",
    "hadamard", "hankel", "helmert", "hilbert", "invhilbert", "invpascal", "leslie", "pascal",
    "toeplitz",
]  # fmt: skip


def _check_arraylike(name: str, *args: Any) -> None:
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple, str)):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {type(a).__name__} at "
                f"position {i}; pass tessela.numpy.asarray(value)."
            )


def _toeplitz_core(c: Any, r: Any) -> Any:
    (m,), (n,) = c.shape, r.shape
    if m == 0 or n == 0:
        return tnp.empty((m, n), dtype=tnp.promote_types(c.dtype, r.dtype))
    elems = tnp.concatenate((c[::-1], r[1:]))
    index = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return elems[index]


def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """A Toeplitz matrix: first column ``c``, first row ``r`` (``conj(c)`` by default).

    ``r[0]`` is ignored (the diagonal is ``c[0]``). Leading dimensions of
    ``c`` and ``r`` are batch dimensions.

    Args:
        c: the first column.
        r: the first row.

    Returns:
        An array of shape ``(..., len(c), len(r))``.

    Example:
        >>> print(toeplitz(tnp.array([1, 2, 3]), tnp.array([1, 4, 5])))
        [[1 4 5]
         [2 1 4]
         [3 2 1]]
    """
    if r is None:
        _check_arraylike("toeplitz", c)
        r = tnp.conjugate(tnp.asarray(c))
    else:
        _check_arraylike("toeplitz", c, r)
    core = vectorize(_toeplitz_core, signature="(m),(n)->(m,n)")
    return cast(Array, core(tnp.atleast_1d(tnp.asarray(c)), tnp.atleast_1d(tnp.asarray(r))))


def _hankel_core(c: Any, r: Any) -> Any:
    (m,), (n,) = c.shape, r.shape
    if m == 0 or n == 0:
        return tnp.empty((m, n), dtype=tnp.result_type(c, r))
    v = tnp.concatenate((c, r[1:]))
    return v[np.arange(m)[:, None] + np.arange(n)[None, :]]


def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """A Hankel matrix: first column ``c``, last row ``r`` (zeros by default).

    ``r[0]`` is ignored (the anti-diagonal's last entry is ``c[-1]``).

    Args:
        c: the first column (at least one dimension).
        r: the last row.

    Returns:
        An array of shape ``(..., len(c), len(r))``.

    Raises:
        ValueError: a scalar ``c`` or ``r``.

    Example:
        >>> print(hankel(tnp.array([1, 2, 3])))
        [[1 2 3]
         [2 3 0]
         [3 0 0]]
    """
    if r is None:
        _check_arraylike("hankel", c)
        c = tnp.asarray(c)
        r = tnp.zeros_like(c)
    else:
        _check_arraylike("hankel", c, r)
        c, r = tnp.asarray(c), tnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    if c.ndim < r.ndim:
        c = tnp.expand_dims(c, tuple(range(r.ndim - c.ndim)))
    elif r.ndim < c.ndim:
        r = tnp.expand_dims(r, tuple(range(c.ndim - r.ndim)))
    return cast(Array, vectorize(_hankel_core, signature="(m),(n)->(m,n)")(c, r))


def _circulant_core(c: Any) -> Any:
    (n,) = c.shape
    return c[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def circulant(c: ArrayLike) -> Array:
    """A circulant matrix whose first column is ``c``.

    Args:
        c: the first column (leading dimensions are batch dimensions).

    Returns:
        An array of shape ``(..., n, n)``.

    Example:
        >>> print(circulant(tnp.array([1, 2, 3])))
        [[1 3 2]
         [2 1 3]
         [3 2 1]]
    """
    _check_arraylike("circulant", c)
    return cast(
        Array, vectorize(_circulant_core, signature="(n)->(n,n)")(tnp.atleast_1d(tnp.asarray(c)))
    )


def _leslie_core(f: Any, s: Any) -> Any:
    dtype = tnp.result_type(f, s)
    f, s = f.astype(dtype), s.astype(dtype)
    return tnp.diag(s, k=-1).at[0].set(f)


def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """A Leslie matrix: fecundities ``f`` on the first row, survivals ``s`` below the diagonal.

    Args:
        f: the first row (length ``n >= 2``).
        s: the subdiagonal (length ``n - 1``).

    Returns:
        An array of shape ``(..., n, n)``.

    Raises:
        ValueError: ``f`` shorter than 2, or ``s`` not one shorter than ``f``.

    Example:
        >>> print(leslie(tnp.array([0.5, 1.0]), tnp.array([0.25])))
        [[0.5  1.  ]
         [0.25 0.  ]]
    """
    _check_arraylike("leslie", f, s)
    f_arr, s_arr = tnp.atleast_1d(tnp.asarray(f)), tnp.atleast_1d(tnp.asarray(s))
    if f_arr.shape[-1] < 2:
        raise ValueError(
            f"The length of f along the last axis must be at least 2; got shape {f_arr.shape}."
        )
    if s_arr.shape[-1] != f_arr.shape[-1] - 1:
        raise ValueError(
            "Incorrect lengths for f and s. The length of s along the last axis must be one "
            f"less than the length of f; got f shape {f_arr.shape} and s shape {s_arr.shape}."
        )
    return cast(Array, vectorize(_leslie_core, signature="(n),(m)->(n,n)")(f_arr, s_arr))


def _companion_core(a: Any) -> Any:
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return tnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


def companion(a: ArrayLike) -> Array:
    """The companion matrix of the polynomial with coefficients ``a`` (highest degree first).

    Args:
        a: the coefficients (length at least 2; ``a[0]`` nonzero).

    Returns:
        A float array of shape ``(..., n - 1, n - 1)``.

    Raises:
        ValueError: fewer than two coefficients.

    Example:
        >>> print(companion(tnp.array([1.0, -3.0, 2.0])))
        [[ 3. -2.]
         [ 1.  0.]]
    """
    (a,) = (_arr(v) for v in promote_inexact("companion", a))
    a = tnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(
            f"The length of `a` along the last axis must be at least 2; got shape {a.shape}."
        )
    return cast(Array, vectorize(_companion_core, signature="(n)->(m,m)")(a))


def fiedler(a: ArrayLike) -> Array:
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``.

    Args:
        a: a vector (leading dimensions are batch dimensions).

    Returns:
        An array of shape ``(..., n, n)``.

    Example:
        >>> print(fiedler(tnp.array([1, 4, 12])))
        [[ 0  3 11]
         [ 3  0  8]
         [11  8  0]]
    """
    _check_arraylike("fiedler", a)
    arr = tnp.atleast_1d(tnp.asarray(a))
    return tnp.abs(arr[..., None] - arr[..., None, :])


def hilbert(n: int) -> Array:
    """The ``n x n`` Hilbert matrix ``1 / (i + j + 1)``.

    Args:
        n: the size (a Python integer).

    Returns:
        A float array.

    Example:
        >>> print(hilbert(2))
        [[1.         0.5       ]
         [0.5        0.33333334]]
    """
    n = operator.index(n)
    a = lax.broadcasted_iota(_dtypes.default_float_dtype(), (n, 1), 0)
    return 1 / (a + a.T + 1)


def _binom(n: Any, k: Any) -> Any:
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def pascal(n: int, kind: str | None = None) -> Array:
    """The ``n x n`` Pascal matrix (binomial coefficients), as float32 like JAX's.

    Args:
        n: the size.
        kind: ``"symmetric"`` (default), ``"lower"`` or ``"upper"``.

    Returns:
        A float32 array.

    Raises:
        ValueError: another ``kind``.

    Example:
        >>> print(tnp.round(pascal(3, kind="lower")))
        [[1. 0. 0.]
         [1. 1. 0.]
         [1. 2. 1.]]
    """
    kind = "symmetric" if kind is None else kind
    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise ValueError(f"Expected kind to be on of: {valid_kind}; got {kind}")
    a = tnp.arange(operator.index(n), dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return cast(Array, lower)
    if kind == "upper":
        return cast(Array, lower.T)
    return tnp.dot(lower, lower.T)


def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix of order ``n`` (its ``n - 1`` orthonormal contrast rows).

    Args:
        n: the order (positive).
        full: prepend the row ``1 / sqrt(n)``, giving an ``n x n`` orthogonal matrix.

    Returns:
        A float array of shape ``(n - 1, n)`` or ``(n, n)``.

    Raises:
        ValueError: ``n < 1``.

    Example:
        >>> print(helmert(2))
        [[ 0.70710677 -0.70710677]]
    """
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = tnp.arange(n - 1)[:, None]
    j = tnp.arange(n)[None, :]
    k = i + 1
    k_f = k.astype(_dtypes.default_float_dtype())
    denom = tnp.sqrt(k_f * (k_f + 1))
    h = tnp.where(j <= i, 1.0 / denom, tnp.where(j == k, -k_f / denom, tnp.zeros_like(denom)))
    if full:
        first_row = tnp.full((1, n), 1.0 / tnp.sqrt(n), dtype=h.dtype)
        h = tnp.concatenate([first_row, h], axis=0)
    return h


def hadamard(n: int, dtype: DTypeLike = int) -> Array:
    """The Sylvester-construction Hadamard matrix of order ``n`` (a power of 2).

    Args:
        n: the order.
        dtype: the result dtype (the default integer type by default).

    Returns:
        An ``n x n`` matrix of +1 and -1.

    Raises:
        ValueError: ``n`` not a positive power of 2.

    Example:
        >>> print(hadamard(2))
        [[ 1  1]
         [ 1 -1]]
    """
    n = operator.index(n)
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = tnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = tnp.block([[h, h], [h, -h]])
    return h


def dft(n: int, scale: str | None = None, *, dtype: DTypeLike | None = None) -> Array:
    r"""The ``n x n`` discrete Fourier transform matrix :math:`\omega^{ij}`, :math:`\omega = e^{-2\pi i/n}`.

    Args:
        n: the size.
        scale: ``None`` (unscaled), ``"sqrtn"`` (unitary) or ``"n"``.
        dtype: a complex dtype (the default complex type by default).

    Returns:
        A complex array.

    Raises:
        ValueError: another ``scale``, or a dtype that is not complex.

    Example:
        >>> print(dft(2).real)
        [[ 1.  1.]
         [ 1. -1.]]
    """
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        wide = _dtypes.default_float_dtype() == np.float64
        dtype = np.dtype(np.complex128 if wide else np.complex64)
    else:
        dtype = np.dtype(dtype)
        if not _dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = tnp.arange(operator.index(n), dtype=dtype)
    omegas = tnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / tnp.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas


def _fiedler_companion_core(a: Any) -> Any:
    n = a.shape[0] - 1
    if n == 0:
        return tnp.empty((0, 0), dtype=a.dtype)
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    super_val = -a[np.minimum(i + 2, n)]
    sub_val = -a[np.minimum(i + 1, n)]
    even, odd = i % 2 == 0, i % 2 == 1
    one, zero = tnp.array(1, dtype=a.dtype), tnp.array(0, dtype=a.dtype)
    conditions = [
        (i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even, (j == i + 2) & even,
        (j == i - 1) & even & (i >= 2), (j == i - 2) & odd & (i >= 3),
    ]  # fmt: skip
    choices = [-a[1], one, super_val, one, sub_val, one]
    shape = (n, n)
    return tnp.select(
        [np.broadcast_to(c, shape) for c in conditions],
        [tnp.broadcast_to(c, shape) for c in choices],
        default=zero,
    )


def fiedler_companion(a: ArrayLike) -> Array:
    """Fiedler's pentadiagonal companion matrix of the polynomial with coefficients ``a``.

    Args:
        a: the coefficients, highest degree first (leading dimensions batch).

    Returns:
        A float array of shape ``(..., n - 1, n - 1)``, with the polynomial's roots
        as eigenvalues.

    Raises:
        ValueError: an empty last axis.

    Example:
        >>> print(fiedler_companion(tnp.array([1.0, -3.0, 2.0])))
        [[ 3. -2.]
         [ 1.  0.]]
    """
    (a,) = (_arr(v) for v in promote_inexact("fiedler_companion", a))
    a = tnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(
            "fiedler_companion requires the last axis of 'a' to have nonzero length, but got "
            f"an array of shape {a.shape}."
        )
    return cast(Array, vectorize(_fiedler_companion_core, signature="(n)->(m,m)")(a))


def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """The Toeplitz matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for ``len(v) == n``.

    Args:
        a: the kernel (leading dimensions batch).
        n: the length of the vectors it convolves.
        mode: ``"full"``, ``"same"`` or ``"valid"``.

    Returns:
        The matrix.

    Raises:
        ValueError: ``n < 1``, a scalar or empty ``a``, or an unknown mode.

    Example:
        >>> print(convolution_matrix(tnp.array([1, 2]), 2))
        [[1 0]
         [2 1]
         [0 2]]
    """
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    _check_arraylike("convolution_matrix", a)
    arr = tnp.asarray(a)
    if arr.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = arr.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {arr.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    widths = [(0, 0)] * (arr.ndim - 1) + [(0, n - 1)]
    az = tnp.pad(arr, widths)
    raz = tnp.pad(tnp.flip(arr, axis=-1), widths)
    total = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    col0 = lax.slice_in_dim(az, tb, total - te, axis=-1)
    row0 = lax.slice_in_dim(raz, total - n - tb, total - tb, axis=-1)
    return toeplitz(col0, row0)


def invhilbert(n: int) -> Array:
    """The inverse of the ``n x n`` Hilbert matrix (exact integers, as floats).

    Args:
        n: the size.

    Returns:
        A float array.

    Example:
        >>> print(tnp.round(invhilbert(2)))
        [[ 4. -6.]
         [-6. 12.]]
    """
    a = tnp.arange(operator.index(n), dtype=_dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    s = i + j
    return (
        (-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1) * comb(s, i) ** 2
    )


def invpascal(n: int, kind: str | None = None) -> Array:
    """The inverse of the ``n x n`` Pascal matrix.

    Args:
        n: the size.
        kind: ``"symmetric"`` (default), ``"lower"`` or ``"upper"``.

    Returns:
        A float array.

    Raises:
        ValueError: another ``kind``.

    Example:
        >>> print(tnp.round(invpascal(2, "lower")) + 0.0)
        [[ 1.  0.]
         [-1.  1.]]
    """
    kind = "symmetric" if kind is None else kind
    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise ValueError(f"Expected kind to be one of: {valid_kind}; got {kind}")
    a = tnp.arange(operator.index(n), dtype=_dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    lower_inv = (-1.0) ** (i - j) * _binom(i, j)
    if kind == "lower":
        return cast(Array, lower_inv)
    if kind == "upper":
        return cast(Array, lower_inv.T)
    return tnp.dot(lower_inv.T, lower_inv)
