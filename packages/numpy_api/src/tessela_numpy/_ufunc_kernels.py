"""Kernels of the composite element-wise functions: floor division, remainders,
``hypot`` and the ``logaddexp`` family.

Each takes operands already promoted to one dtype and shape (booleans to the
default integer for the division and remainder kernels: their ufuncs promote
with ``numeric=True``) and binds a short composition of primitives, in JAX's
order where JAX's values depend on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import custom_jvp, lax
from tessela_tracer.typing import Array, ArrayLike

from ._arrays import aval_of, convert, dtype_is, full_like, select_n
from ._where import where

__all__ = ["float_divmod", "fmod_kernel"]


def _dtype(x: Any) -> np.dtype[Any]:
    return aval_of(x).dtype


def _is(x: Any, kind: Any) -> bool:
    return dtype_is(aval_of(x).dtype, kind)


def _floor_divide(a: Any, b: Any) -> Any:
    if _is(a, np.unsignedinteger):
        return lax.div(a, b)
    if _is(a, np.integer):
        quot = lax.div(a, b)
        signs_differ = lax.ne(lax.sign(a), lax.sign(b))
        inexact = lax.ne(lax.rem(a, b), convert(0, _dtype(a)))
        fix = lax.bitwise_and(signs_differ, inexact)
        return where(fix, lax.sub(quot, convert(1, _dtype(a))), quot)
    quot, _ = float_divmod(a, b)
    return quot


def float_divmod(a: ArrayLike, b: ArrayLike) -> tuple[Array, Array]:
    """Floor quotient and modulus of same-shape floating arrays.

    The quotient divides the exact multiple ``a - fmod(a, b)``, then both are
    corrected where the signs of ``b`` and the remainder differ.
    """
    dt = _dtype(a)
    zero = convert(0, dt)
    mod = lax.rem(a, b)
    quot = lax.div(where(lax.eq(b, zero), a, lax.sub(a, mod)), b)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(b), lax.sign(mod)))
    mod = select_n(fix, mod, lax.add(mod, b))
    quot = select_n(fix, quot, lax.sub(quot, convert(1, dt)))
    return lax.round(quot, lax.RoundingMethod.AWAY_FROM_ZERO), mod


def fmod_kernel(a: Any, b: Any) -> Any:
    """``lax.rem`` with NumPy's and JAX's integer ``x % 0 == 0`` (XLA leaves ``x``).

    ``a`` and ``b`` share one numeric (non-boolean) dtype, as ``fmod`` promotes them.
    """
    if _is(b, np.integer):
        b = where(lax.eq(b, convert(0, _dtype(b))), full_like(b, 1), b)
    return lax.rem(a, b)


def _remainder(a: Any, b: Any) -> Any:
    zero = convert(0, _dtype(a))
    if _is(b, np.integer):
        b = where(lax.eq(b, zero), full_like(b, 1), b)
    r = lax.rem(a, b)
    nonzero = lax.ne(r, zero)
    fix = lax.bitwise_and(lax.ne(lax.lt(r, zero), lax.lt(b, zero)), nonzero)
    return select_n(fix, r, lax.add(r, b))


def _hypot(a: Any, b: Any) -> Any:
    # Scaled to avoid overflow: max * sqrt(1 + (min / max)**2).
    dt = _dtype(a)
    a, b = lax.abs(a), lax.abs(b)
    inf = convert(np.inf, dt)
    either_inf = lax.bitwise_or(lax.eq(a, inf), lax.eq(b, inf))
    big, small = lax.max(a, b), lax.min(a, b)
    zero = convert(0, dt)
    big_is_zero = lax.eq(big, zero)
    safe_big = where(lax.eq(big, zero), full_like(big, 1), big)
    scaled = lax.mul(big, lax.sqrt(lax.add(convert(1, dt), lax.square(lax.div(small, safe_big)))))
    return where(either_inf, np.inf, where(big_is_zero, big, scaled))


def _logaddexp(a: Any, b: Any) -> Any:
    amax = lax.max(a, b)
    delta = lax.sub(a, b)
    # A NaN delta means both inputs are infinite of one sign (or one is NaN): a + b is right.
    delta_nan = lax.ne(delta, delta)
    total = lax.add(a, b)
    soft = lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
    return select_n(delta_nan, soft, total)


def _logaddexp2_body(a: Any, b: Any) -> Any:
    # JAX's formula: max + log1p(exp2(-|a - b|)) / log(2), with its constant 1 / log(2).
    amax = lax.max(a, b)
    delta = lax.sub(a, b)
    inv_ln2 = convert(1 / np.log(2), _dtype(a))
    soft = lax.add(amax, lax.mul(inv_ln2, lax.log1p(lax.exp2(lax.neg(lax.abs(delta))))))
    return select_n(lax.ne(delta, delta), soft, lax.add(a, b))


_logaddexp2 = custom_jvp(_logaddexp2_body)


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals: Any, tangents: Any) -> Any:
    (x1, x2), (t1, t2) = primals, tangents
    out = _logaddexp2(x1, x2)

    def finite(x: Array) -> Array:  # +inf replaced by 0, as JAX's rule does
        return select_n(lax.eq(x, convert(np.inf, _dtype(x))), x, lax.full_like(x, 0))

    d1 = lax.exp2(lax.sub(finite(x1), finite(out)))
    d2 = lax.exp2(lax.sub(finite(x2), finite(out)))
    return out, lax.add(lax.mul(t1, d1), lax.mul(t2, d2))
