"""Polynomial helpers, ``angle``, ``ix_`` and ``isdtype``, with JAX's semantics.

>>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
>>> eval_shape(polymul, S((3,), "float32"), S((2,), "float32")).shape
(4,)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer.dtypes import bfloat16, canonicalize_dtype, result_type

from ._convolve import convolve
from ._creation import arange, asarray, full, zeros
from ._shape_ops import atleast_1d, concatenate
from ._ufuncs import arctan2, degrees, imag, maximum, real

__all__ = ["angle", "isdtype", "ix_", "polyadd", "polyder", "polyint", "polymul", "polysub"]

_KINDS: dict[str, tuple[Any, ...]] = {
    "bool": (np.bool_,),
    "signed integer": (np.int8, np.int16, np.int32, np.int64),
    "unsigned integer": (np.uint8, np.uint16, np.uint32, np.uint64),
    "real floating": (np.float16, bfloat16, np.float32, np.float64),
    "complex floating": (np.complex64, np.complex128),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _promote(*xs: Any, inexact: bool = False) -> list[Any]:
    arrays = [asarray(x) for x in xs]
    dtype = np.dtype(result_type(*arrays))
    if inexact and not np.issubdtype(dtype, np.inexact):
        dtype = np.dtype(result_type(dtype, np.float32))
    return [asarray(x, dtype=dtype) for x in arrays]


def polyadd(a1: Any, a2: Any) -> Any:
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
        return a1.at[-a2.shape[0] :].add(a2)
    return a2.at[-a1.shape[0] :].add(a1)


def polysub(a1: Any, a2: Any) -> Any:
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


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
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


def polyder(p: Any, m: int = 1) -> Any:
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
        return p
    coeff = (arange(m, len(p), dtype=p.dtype)[None] - arange(m, dtype=p.dtype)[:, None]).prod(0)
    return p[:-m] * coeff[::-1]


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
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
        return p
    grid = arange(len(p) + m, dtype=p.dtype)[None] - arange(m, dtype=p.dtype)[:, None]
    coeff = maximum(1, grid).prod(0)[::-1]
    return concatenate((p, k_arr)) / coeff


def angle(z: Any, deg: bool = False) -> Any:
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
    if not np.issubdtype(dtype, np.inexact) or (
        np.issubdtype(z.dtype, np.floating) and np.ndim(z) == 0
    ):
        default = np.dtype(canonicalize_dtype(np.float64))
        re, im = lax.convert_element_type(re, default), lax.convert_element_type(im, default)
    result = arctan2(im, re)
    return degrees(result) if deg else result


def ix_(*args: Any) -> tuple[Any, ...]:
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


def isdtype(dtype: Any, kind: Any) -> bool:
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
    """
    the_dtype = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    options: set[np.dtype[Any]] = set()
    for one in kinds:
        if isinstance(one, str) and one in _KINDS:
            options.update(np.dtype(t) for t in _KINDS[one])
            continue
        try:
            options.add(np.dtype(one))
        except TypeError as err:
            if isinstance(one, str):
                raise ValueError(
                    f"Unrecognized kind={one!r} expected one of {list(_KINDS)}, or a "
                    "compatible input for jnp.dtype()"
                ) from err
            raise TypeError(
                f"Expected kind to be a dtype, string, or tuple; got kind={one!r}"
            ) from err
    return the_dtype in options
