"""Arithmetic that is more than one primitive: powers, rounding, gcd/lcm, divmod."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    full_like,
    promote_args,
    promote_dtypes_numeric,
    promote_shapes,
    select_n,
)
from ._shapes import broadcast_shapes
from ._ufunc_kernels import float_divmod
from ._ufuncs import (
    _abs,
    _dtype,
    _is,
    _round_half_even,
    floor_divide,
    multiply,
    remainder,
)
from ._where import where

__all__ = ["divmod", "gcd", "lcm", "pow", "power", "round"]


def _integer_power(x1: Any, x2: Any) -> Any:
    # Square-and-multiply over the low six bits of the exponent, as JAX: a
    # larger exponent overflows any base other than 0 and +-1 in every integer
    # dtype, and the wrapped value is JAX's.
    dt = _dtype(x2)
    zero, one = convert(0, dt), convert(1, dt)
    d1 = _dtype(x1)
    acc = where(
        lax.bitwise_and(lax.eq(x1, convert(0, d1)), lax.ne(x2, zero)),
        convert(0, d1),
        convert(1, d1),
    )
    for _ in range(6):
        acc = where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


def power(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``x1 ** x2``, element-wise; a concrete integer exponent uses ``integer_pow``.

    Args:
      x1: the base, an array-like.
      x2: the exponent, an array-like.

    Returns:
      The powers, broadcast and promoted.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(power, ShapeDtypeStruct((3,), "int32"), 2).dtype
    dtype('int32')
    """
    check_arraylike("power", x1, x2)
    try:  # a concrete integer exponent (a Python or NumPy integer, a 0-d integer array)
        n = operator.index(x2)  # type: ignore[arg-type]
    except TypeError:
        n = None
    if n is not None:
        # As JAX: booleans count as integers, a Python scalar base becomes a
        # weakly typed array (2**40 wraps in int32 as JAX's does).
        (x1,) = promote_dtypes_numeric(x1)
        return lax.integer_pow(x1, n)
    # Booleans compute as int32, as in JAX.
    x1, x2 = promote_shapes("power", *promote_dtypes_numeric(x1, x2))
    if _is(x1, np.integer):
        return unchanged(_integer_power(x1, x2))
    return lax.pow(x1, x2)


pow = power


def divmod(x1: ArrayLike, x2: ArrayLike, /) -> tuple[Array, Array]:
    """``(floor_divide(x1, x2), remainder(x1, x2))``.

    Args:
      x1: the dividend.
      x2: the divisor.

    Returns:
      The pair of quotient and remainder.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> [r.shape for r in eval_shape(divmod, ShapeDtypeStruct((3,), "int32"), 2)]
    [(3,), (3,)]
    """
    check_arraylike("divmod", x1, x2)
    out: tuple[Any, Any] = _divmod_jit(x1, x2)
    return out


def _divmod(x1: Any, x2: Any) -> tuple[Any, Any]:
    x1, x2 = promote_args("divmod", x1, x2)
    if _is(x1, np.floating):
        return float_divmod(x1, x2)
    return floor_divide(x1, x2), remainder(x1, x2)


_divmod.__name__ = _divmod.__qualname__ = "divmod"
_divmod_jit = jit(_divmod)


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> Array:
    """Round half to even, to ``decimals`` decimal places.

    Args:
      a: an array-like.
      decimals: number of decimal places (a static int).
      out: unsupported; must be None.

    Returns:
      The rounded array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(round, ShapeDtypeStruct((2,), "float32")).shape
    (2,)
    """
    check_arraylike("round", a)
    if out is not None:
        raise NotImplementedError("round: the out argument is not supported; arrays are immutable")
    return unchanged(_round_jit(a, operator.index(decimals)))


def _round(a: Any, decimals: int) -> Any:
    (a,) = promote_args("round", a)
    dt = _dtype(a)
    if _is(a, np.integer):
        if decimals < 0:
            raise NotImplementedError(
                "round of integers to decimals < 0 is not supported (as in JAX); "
                "convert to a float dtype first, e.g. round(x.astype(float), -1)."
            )
        return a
    if dt == np.bool_:
        raise ValueError("round does not accept booleans; convert them with astype(int) first.")
    if decimals > np.log10(float(_dt.finfo(dt).max)):
        return a  # rounding past the dtype's precision changes nothing
    if _is(a, np.complexfloating):
        return lax.complex(_round_real(lax.real(a), decimals), _round_real(lax.imag(a), decimals))
    return _round_real(a, decimals)


def _round_real(a: Any, decimals: int) -> Any:
    if decimals == 0:
        return _round_half_even(a)
    dt = _dtype(a)
    wide = convert(a, np.dtype(np.float32)) if dt == np.float16 else a  # float16 scales in float32
    factor = convert(10.0**decimals, _dtype(wide))
    out = lax.div(_round_half_even(lax.mul(wide, factor)), factor)
    return convert(out, dt)


_round.__name__ = _round.__qualname__ = "round"
_round_jit = jit(_round, static_argnums=1)


def _gcd_cond(xs: tuple[Any, Any]) -> Any:
    _, b = xs
    return lax.reduce_or(lax.ne(b, convert(0, _dtype(b))), tuple(range(len(aval_of(b).shape))))


def _gcd_body(xs: tuple[Any, Any]) -> tuple[Any, Any]:
    a, b = xs
    zero = convert(0, _dtype(b))
    nonzero = lax.ne(b, zero)
    safe_b = select_n(nonzero, full_like(b, 1), b)
    return select_n(nonzero, a, b), select_n(nonzero, zero, lax.rem(a, safe_b))


def gcd(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Greatest common divisor of integers, element-wise (Euclid's algorithm).

    Args:
      x1: an integer array-like.
      x2: an integer array-like.

    Returns:
      The non-negative greatest common divisors.

    Raises:
      ValueError: the inputs are not integers.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(gcd, s((4, 1), "int32"), s((3,), "int32")).shape
    (4, 3)
    """
    x1, x2 = promote_args("gcd", x1, x2)
    if not _is(x1, np.integer):
        raise ValueError(f"Arguments to gcd must be integers, got dtype {_dtype(x1)}")
    shape = broadcast_shapes_of(x1, x2)
    a = _abs(_fit(x1, shape))
    b = _abs(_fit(x2, shape))
    out, _ = lax.while_loop(_gcd_cond, _gcd_body, (a, b))
    return unchanged(out)


def lcm(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Least common multiple of integers, element-wise.

    Args:
      x1: an integer array-like.
      x2: an integer array-like.

    Returns:
      The non-negative least common multiples (0 when either input is 0).

    Raises:
      ValueError: the inputs are not integers.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(lcm, s((4, 1), "int32"), s((3,), "int32")).dtype
    dtype('int32')
    """
    x1, x2 = promote_args("lcm", x1, x2)
    if not _is(x1, np.integer):
        raise ValueError(f"Arguments to lcm must be integers, got dtype {_dtype(x1)}")
    # The magnitudes first, as JAX: a product past the dtype wraps the same way.
    x1, x2 = _abs(x1), _abs(x2)
    d = gcd(x1, x2)
    zero = convert(0, _dtype(d))
    is_zero = lax.eq(d, zero)
    safe = select_n(is_zero, d, full_like(d, 1))
    return select_n(is_zero, multiply(x1, floor_divide(x2, safe)), zero)


def broadcast_shapes_of(*xs: ArrayLike) -> tuple[int, ...]:
    """The broadcast shape of array-likes."""
    return broadcast_shapes(*(aval_of(x).shape for x in xs))


def _fit(x: Any, shape: tuple[int, ...]) -> Any:
    s = aval_of(x).shape
    if s == shape:
        return x
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(s), len(shape))))
