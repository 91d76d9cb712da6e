"""Polynomial helpers, ``angle``, ``ix_`` and ``isdtype``, with JAX's semantics.

``poly`` of a square matrix needs eigenvalues, which are not available: pass
the roots.

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(polymul, S((3,), "float32"), S((2,), "float32")).shape
(4,)
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.dtypes import canonicalize_dtype, result_type
from tessela_tracer.errors import ConcretizationTypeError
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import check_arraylike, promote_dtypes_inexact
from ._convolve import convolve
from ._creation import array, asarray, full, ones, zeros
from ._linalg import inv
from ._linalg_more import lstsq
from ._linalg_spectral import eigvals
from ._matrix_ops import diag
from ._numpy_more import vander
from ._products import dot
from ._ranges import arange
from ._reductions import all as _all
from ._reductions import argmin
from ._reductions import sum as _sum
from ._setops import host_value
from ._shape_ops import atleast_1d, concatenate
from ._tiling import roll
from ._ufuncs import (
    arctan2,
    degrees,
    equal,
    imag,
    less,
    maximum,
    negative,
    real,
    sqrt,
    true_divide,
)
from ._where import where

__all__ = [
    "angle", "isdtype", "ix_", "poly", "polyadd", "polyder",
    "polydiv", "polyfit", "polyint", "polymul", "polysub", "roots",
]  # fmt: skip

# The array API's kind names, each the abstract type whose dtypes it names
# (the narrow integer and float types of ml_dtypes included, as in JAX).
_KINDS: dict[str, type] = {
    "bool": np.bool_,
    "signed integer": np.signedinteger,
    "unsigned integer": np.unsignedinteger,
    "integral": np.integer,
    "real floating": np.floating,
    "complex floating": np.complexfloating,
    "numeric": np.number,
}


def _promote(*xs: ArrayLike, inexact: bool = False) -> list[Array]:
    arrays = [asarray(x) for x in xs]
    dtype = np.dtype(result_type(*arrays))
    if inexact and not _dt.issubdtype(dtype, np.inexact):
        dtype = np.dtype(result_type(dtype, np.float32))
    return [asarray(x, dtype=dtype) for x in arrays]


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The sum of two polynomials (coefficients, highest power first).

    Args:
        a1: 1-D coefficients.
        a2: 1-D coefficients.

    Returns:
        The coefficients of ``a1 + a2``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(polyadd, S((3,), "int32"), S((5,), "int32")).shape
    (5,)
    """
    a1, a2 = _promote(a1, a2)
    if a2.shape[0] <= a1.shape[0]:
        return unchanged(a1.at[-a2.shape[0] :].add(a2))
    return unchanged(a2.at[-a1.shape[0] :].add(a1))


def polysub(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The difference of two polynomials.

    Args:
        a1: 1-D coefficients.
        a2: 1-D coefficients.

    Returns:
        The coefficients of ``a1 - a2``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(polysub, S((3,), "f4"), S((2,), "f4")).shape
    (3,)
    """
    a1, a2 = _promote(a1, a2)
    return polyadd(a1, -a2)


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> Array:
    """The product of two polynomials.

    Args:
        a1: 1-D coefficients.
        a2: 1-D coefficients.
        trim_leading_zeros: drop leading zeros first (needs concrete inputs).

    Returns:
        The coefficients of ``a1 * a2`` (an inexact dtype).

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(polymul, S((2,), "int32"), S((2,), "int32")).dtype
    dtype('float32')
    """
    a1, a2 = _promote(a1, a2, inexact=True)
    if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):
        a1, a2 = (asarray(np.trim_zeros(np.asarray(a), "f")) for a in (a1, a2))
    if len(a1) == 0:
        a1 = zeros(1, dtype=a2.dtype)
    if len(a2) == 0:
        a2 = zeros(1, dtype=a1.dtype)
    return convolve(a1, a2, mode="full")


def polyder(p: ArrayLike, m: int = 1) -> Array:
    """The ``m``-th derivative of a polynomial.

    Args:
        p: 1-D coefficients.
        m: the order (non-negative).

    Returns:
        The derivative's coefficients (an inexact dtype).

    Raises:
        ValueError: a negative ``m``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(polyder, S((4,), "f4")).shape
    (3,)
    """
    m = operator.index(m)
    (p,) = _promote(p, inexact=True)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return unchanged(p)
    coeff = (arange(m, len(p), dtype=p.dtype)[None] - arange(m, dtype=p.dtype)[:, None]).prod(0)
    return unchanged(p[:-m] * coeff[::-1])


def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Array:
    """The ``m``-th antiderivative of a polynomial, with integration constants ``k``.

    Args:
        p: 1-D coefficients.
        m: the order (non-negative).
        k: a scalar or ``m`` constants (zeros when None).

    Returns:
        The antiderivative's coefficients (an inexact dtype).

    Raises:
        ValueError: a negative ``m``, or ``k`` of the wrong length.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda p: polyint(p, 2), S((3,), "f4")).shape
    (5,)
    """
    m = operator.index(m)
    p, k_arr = _promote(p, 0 if k is None else k, inexact=True)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k_arr = atleast_1d(k_arr)
    if len(k_arr) == 1:
        k_arr = full((m,), k_arr[0])
    if k_arr.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return unchanged(p)
    grid = arange(len(p) + m, dtype=p.dtype)[None] - arange(m, dtype=p.dtype)[:, None]
    coeff = maximum(1, grid).prod(0)[::-1]
    return unchanged(concatenate((p, k_arr)) / coeff)


def angle(z: ArrayLike, deg: bool = False) -> Array:
    """The argument (phase angle) of complex values.

    Args:
        z: an array.
        deg: return degrees instead of radians.

    Returns:
        ``arctan2(imag(z), real(z))`` in a floating dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(angle, S((2,), "complex64")).dtype
    dtype('float32')
    """
    z = asarray(z)
    re, im = real(z), imag(z)
    dtype = re.dtype
    if not _dt.issubdtype(dtype, np.inexact) or (
        _dt.issubdtype(z.dtype, np.floating) and np.ndim(z) == 0
    ):
        default = np.dtype(canonicalize_dtype(np.float64))
        re, im = lax.convert_element_type(re, default), lax.convert_element_type(im, default)
    result = arctan2(im, re)
    return unchanged(degrees(result) if deg else result)


def ix_(*args: ArrayLike) -> tuple[Array, ...]:
    """Open index grids from 1-D integer sequences (for cross-product indexing).

    Args:
        *args: 1-D integer arrays.

    Returns:
        One array per argument, each broadcastable against the others.

    Raises:
        ValueError: an argument that is not 1-D.
        NotImplementedError: a boolean argument, as in JAX.

    >>> import numpy as np
    >>> from tessela_tracer import eval_shape
    >>> [a.shape for a in eval_shape(lambda: ix_(np.arange(2), np.arange(3)))]
    [(2, 1), (1, 3)]
    """
    arrays = [asarray(a) for a in args]
    n = len(arrays)
    output = []
    for i, a in enumerate(arrays):
        if len(a.shape) != 1:
            raise ValueError(
                f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.shape}"
            )
        if a.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[i] = a.shape[0]
        if a.size == 0:
            output.append(zeros(shape, np.dtype(canonicalize_dtype(np.int64))))
        else:
            output.append(lax.broadcast_in_dim(a, tuple(shape), (i,)))
    return tuple(output)


def isdtype(dtype: DTypeLike, kind: DTypeLike | tuple[DTypeLike, ...]) -> bool:
    """Whether ``dtype`` is of ``kind``, as the array API defines it.

    Args:
        dtype: a dtype.
        kind: a dtype, a kind name (``"bool"``, ``"signed integer"``,
            ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
            ``"complex floating"``, ``"numeric"``) or a tuple of them.

    Returns:
        True when ``dtype`` is one of the kinds.

    Raises:
        ValueError: an unknown kind name.
        TypeError: a kind that is neither a dtype, a name nor a tuple.

    >>> isdtype("int8", "integral"), isdtype("float32", ("bool", "complex floating"))
    (True, False)
    >>> from tessela_tracer.dtypes import float8_e4m3fn, int4
    >>> isdtype(float8_e4m3fn, "real floating"), isdtype(int4, "signed integer")
    (True, True)
    """
    the_dtype = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # Every kind is checked before any answer, so a bad later kind is never hidden.
    names = [one for one in kinds if isinstance(one, str) and one in _KINDS]
    options = {_kind_dtype(one) for one in kinds if not (isinstance(one, str) and one in _KINDS)}
    if the_dtype in options:
        return True
    # NumPy files timedelta64 under its integers; the array API kinds hold numbers only.
    if the_dtype.kind in _NOT_NUMBERS:
        return False
    return any(_dt.issubdtype(the_dtype, _KINDS[one]) for one in names)


# NumPy dtype kinds outside every array API kind: object, timedelta, datetime.
_NOT_NUMBERS = frozenset("OmM")


def _kind_dtype(one: Any) -> np.dtype[Any]:
    try:
        the_dtype: np.dtype[Any] = np.dtype(one)
    except TypeError as err:
        if isinstance(one, str):
            raise ValueError(
                f"Unrecognized kind={one!r} expected one of {list(_KINDS)}, or a "
                "compatible input for jnp.dtype()"
            ) from err
        raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={one!r}") from err
    return the_dtype


def poly(seq_of_zeros: ArrayLike) -> Array:
    """The coefficients of the monic polynomial with the given roots.

    Args:
      seq_of_zeros: a 1-D array of roots.

    Returns:
      The coefficients, highest power first.

    Raises:
      NotImplementedError: ``seq_of_zeros`` is a square matrix (that needs its
        eigenvalues, and general eigenvalues are not available).
      ValueError: the input is neither 1-D nor a square matrix.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(poly, S((3,), "int32")).shape
    (4,)
    """
    check_arraylike("poly", seq_of_zeros)
    (z,) = promote_dtypes_inexact(seq_of_zeros)
    z = atleast_1d(asarray(z))
    sh = z.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        raise NotImplementedError(
            "poly of a square matrix needs its eigenvalues (jnp.linalg.eigvals), which "
            "Tessela does not provide; pass the roots as a 1-D array"
        )
    if z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = z.dtype
    if z.shape[0] == 0:
        return ones((), dtype=dt)
    out = ones((1,), dtype=dt)
    for k in range(z.shape[0]):
        out = convolve(out, concatenate([ones((1,), dt), -z[k : k + 1]]), mode="full")
    return out


def roots(p: ArrayLike, *, strip_zeros: bool = True) -> Array:
    """The roots of the polynomial with coefficients ``p`` (highest power first).

    The roots are the eigenvalues of the companion matrix (CPU only, as
    :func:`tessela_numpy.linalg.eigvals`), complex and unordered, as JAX's.

    Args:
      p: a 1-D array of coefficients.
      strip_zeros: drop leading zero coefficients first, which needs concrete
        values; with ``False`` (usable under ``jit``) each leading zero gives a
        NaN root at the end instead.

    Returns:
      A 1-D complex array of the roots.

    Raises:
      ValueError: ``p`` is not 1-D.
      ConcretizationTypeError: ``p`` is traced and ``strip_zeros`` is true.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> r = eval_shape(lambda c: roots(c, strip_zeros=False), S((4,), "float32"))
    >>> r.shape, r.dtype.name
    ((3,), 'complex64')
    """
    check_arraylike("roots", p)
    (p_arr,) = promote_dtypes_inexact(p)
    p_arr = atleast_1d(p_arr)
    if p_arr.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p_arr.size < 2:
        return array([], dtype=_complex_of(p_arr.dtype))
    is_zero = equal(p_arr, 0)
    leading = where(_all(is_zero), p_arr.size, argmin(is_zero))
    if not strip_zeros:
        return unchanged(_roots_with_zeros_jit(p_arr, leading))
    n = host_value(leading)
    if n is None:
        raise ConcretizationTypeError(
            leading,
            "The error occurred in the jnp.roots() function. To use this within a "
            "JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros "
            "will result in some returned roots being set to NaN.",
        )
    return unchanged(_roots_no_zeros_jit(p_arr[int(n) :]))


def _complex_of(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return canonicalize_dtype(np.complex128 if dtype == np.float64 else np.complex64)


def _roots_no_zeros(p: Any) -> Any:
    # The eigenvalues of the companion matrix.
    if p.size < 2:
        return array([], dtype=_complex_of(p.dtype))
    a = diag(ones((p.size - 2,), p.dtype), -1)
    a = a.at[0, :].set(true_divide(negative(p[1:]), p[0]))
    return eigvals(a)


def _roots_with_zeros(p: Any, leading: Any) -> Any:
    # All zeros would make the companion matrix singular: use ones instead.
    p = where(equal(leading, len(p)), 1.0, p)
    out = _roots_no_zeros(roll(p, -leading))
    # Zero roots to the end, then the last ``leading`` roots become NaN.
    out = lax.sort_key_val(equal(out, 0), out)[1]
    keep = less(arange(out.size), out.size - leading)
    return where(keep, out, complex(np.nan, np.nan))


_roots_no_zeros.__name__ = _roots_no_zeros.__qualname__ = "_roots_no_zeros"
_roots_no_zeros_jit = jit(_roots_no_zeros)
_roots_with_zeros_jit = jit(_roots_with_zeros)


def polydiv(u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False) -> tuple[Array, Array]:
    """The quotient and remainder of two polynomials (coefficients, highest first).

    Args:
      u: the dividend's coefficients.
      v: the divisor's coefficients.
      trim_leading_zeros: drop the remainder's leading near-zero coefficients
        (needs concrete values).

    Returns:
      ``(quotient, remainder)``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> [o.shape for o in eval_shape(polydiv, S((5,), "f4"), S((2,), "f4"))]
    [(4,), (5,)]
    """
    check_arraylike("polydiv", u, v)
    ua, va = (asarray(t) for t in promote_dtypes_inexact(u, v))
    m, n = ua.shape[0] - 1, va.shape[0] - 1
    scale = 1.0 / va[0]
    q = zeros(builtins.max(m - n + 1, 1), dtype=ua.dtype)
    for k in range(m - n + 1):
        d = scale * ua[k]
        q = q.at[k].set(d)
        ua = ua.at[k : k + n + 1].add(-d * va)
    if trim_leading_zeros:
        tol = float(np.sqrt(_dt.finfo(ua.dtype).eps))
        host = np.asarray(ua)
        nz = np.flatnonzero(np.abs(host) > tol)
        ua = ua[int(nz[0]) :] if nz.size else ua[:0]
    return q, ua


def _polyfit(
    x: Any,
    y: Any,
    deg: int,
    rcond: float | None = None,
    full: bool = False,
    w: Any = None,
    cov: bool | str = False,
) -> Any:
    check_arraylike("polyfit", x, y, *(() if w is None else (w,)))
    xa, ya = asarray(x), asarray(y)
    deg = operator.index(deg)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if xa.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if xa.size == 0:
        raise TypeError("expected non-empty vector for x")
    if ya.ndim < 1 or ya.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if xa.shape[0] != ya.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = xa.shape[0] * float(_dt.finfo(_dt.result_type(xa.dtype, np.float32)).eps)
    lhs = asarray(vander(xa, order))
    rhs = ya
    if w is not None:
        (wa,) = promote_dtypes_inexact(w)
        wa = asarray(wa)
        if wa.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if wa.shape[0] != ya.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * wa[:, None]
        rhs = rhs * (wa[:, None] if rhs.ndim == 2 else wa)
    scale = sqrt(_sum(lhs * lhs, axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = inv(dot(lhs.T, lhs)) / (scale[:, None] * scale[None, :])
    if cov == "unscaled":
        fac = array(1.0)
    else:
        if xa.shape[0] <= order:
            raise ValueError(
                "the number of data points must exceed order to scale the covariance matrix"
            )
        fac = resids / (xa.shape[0] - order)
    if ya.ndim == 1:
        return c, vbase * atleast_1d(fac)[None]
    return c, vbase[:, :, None] * atleast_1d(fac)[None, None, :]


_polyfit_jit = jit(_polyfit, static_argnums=(2, 3, 4, 6))


def polyfit(
    x: ArrayLike,
    y: ArrayLike,
    deg: int,
    rcond: float | None = None,
    full: bool = False,
    w: ArrayLike | None = None,
    cov: bool | str = False,
) -> Array | tuple[Array, ...]:
    """The least-squares polynomial fit of degree ``deg`` (coefficients, highest first).

    Args:
      x: the 1-D sample points.
      y: the values, 1-D or one column per data set.
      deg: the degree.
      rcond: the relative singular-value cutoff (default ``len(x) * eps``).
      full: also return the residuals, rank, singular values and ``rcond``.
      w: weights of the sample points.
      cov: also return the covariance of the coefficients (``"unscaled"``
        skips the scaling by the residuals).

    Returns:
      The coefficients, or a tuple as ``full``/``cov`` ask.

    Raises:
      ValueError: ``deg`` is negative.
      TypeError: the shapes do not fit.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x, y: polyfit(x, y, 2), S((6,), "f4"), S((6,), "f4")).shape
    (3,)
    """
    return unchanged(_polyfit_jit(x, y, deg, rcond, full, w, cov))
