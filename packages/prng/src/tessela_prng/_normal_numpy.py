"""Fused NumPy kernels for ``float32`` normal samples.

``normal`` is ``sqrt(2) * erf_inv(uniform(bits))``. Written as whole-array
steps, every one of its ~40 elementwise operations streams the full arrays
through memory. Here each cache-sized block goes through every step while it
is in cache: the Threefry hash (when the counters are the flat indices), the
uniform conversion, ``erf_inv`` and the final scaling, with one set of
scratch buffers per thread and only the output array at full size.

The uniform in ``[nextafter(-1, 0), 1)`` is ``mantissa * 2**-22 + lo``
exactly as in the unfused path (the product is exact, so one rounding as in a
fused multiply-add). ``erf_inv`` rounds the last four of its eight polynomial
steps once each to ``float32`` (the fused multiply-adds of XLA) and runs the
first four unrounded in float64, which changes about 0.1% of the samples by
at most 3 ulps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from ._threefry_numpy import U32Array, parallel_blocks, rounds_scalar_keys, threefry_key_schedule

__all__ = ["ErfInvScratch", "erf_inv_f32_block", "normal_f32_from_bits", "normal_f32_iota"]

F32Array: TypeAlias = npt.NDArray[np.float32]
TailFn = Callable[[F32Array], F32Array]

# Giles' single-precision coefficients of erf_inv for w < 5, as published.
ERFINV_LT5_DIGITS = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
# The same rounded to float32 (exact in float64, so a float64 product of two
# of them is exact).
ERFINV_LT5 = tuple(float(np.float32(c)) for c in ERFINV_LT5_DIGITS)
# Index of the first coefficient whose fused multiply-add is rounded to float32.
_EXACT_FROM = 5
BLOCK = 1 << 16
HASH_BLOCK = 1 << 17
_F32 = np.float32
_MINUS_2_5 = _F32(-2.5)
_MINUS_5 = _F32(-5.0)
_SQRT2 = _F32(np.sqrt(2.0))
_UNIT = _F32(2.0**-22)  # 2**-23 (one mantissa step) times the span 2 of (lo, 1)
_U32_9 = np.uint32(9)


class ErfInvScratch:
    """Per-thread buffers of :func:`erf_inv_f32_block` (``BLOCK`` elements each)."""

    __slots__ = ("acc", "acc32", "bits", "bits2", "u", "w", "w64")

    def __init__(self, size: int = 0) -> None:
        size = size or BLOCK
        self.w = np.empty(size, _F32)
        self.w64 = np.empty(size, np.float64)
        self.acc = np.empty(size, np.float64)
        self.acc32 = np.empty(size, _F32)
        self.u = np.empty(size, _F32)
        self.bits = np.empty(size, np.uint32)
        self.bits2 = np.empty(size, np.uint32)


def erf_inv_f32_block(xs: F32Array, out: F32Array, scratch: ErfInvScratch, tail: TailFn) -> None:
    """``out[:] = erf_inv(xs)`` for one ``float32`` block of at most ``BLOCK`` values.

    ``w = -log1p(-x*x)``; where ``w < 5`` the polynomial in ``w - 2.5`` is
    evaluated here, the rare rest (``|x| > 0.9966``) by ``tail``.
    """
    n = xs.shape[0]
    w = scratch.w[:n]
    w64 = scratch.w64[:n]
    acc = scratch.acc[:n]
    acc32 = scratch.acc32[:n]
    np.multiply(xs, xs, out=w)
    np.negative(w, out=w)
    np.log1p(w, out=w)  # w holds -W, with W = -log1p(-x*x) >= 0
    big = np.flatnonzero(w <= _MINUS_5)
    np.subtract(_MINUS_2_5, w, out=w)  # W - 2.5, the same single rounding
    np.copyto(w64, w)
    coeffs = ERFINV_LT5
    # The leading steps (smallest coefficients) run in float64 without
    # rounding: the result differs from the fully emulated one in about 0.1%
    # of draws, by at most 3 ulps. The last steps round every fused
    # multiply-add once to float32, as XLA does.
    np.multiply(w64, coeffs[0], out=acc)
    for c in coeffs[1:_EXACT_FROM]:
        np.add(acc, c, out=acc)
        np.multiply(acc, w64, out=acc)
    np.add(acc, coeffs[_EXACT_FROM], out=acc32, casting="same_kind")
    for c in coeffs[_EXACT_FROM + 1 :]:
        # the product is exact in float64; the sum is rounded once to float32
        np.multiply(acc32, w64, out=acc)
        np.add(acc, c, out=acc32, casting="same_kind")
    np.multiply(acc32, xs, out=out)
    if big.size:
        out[big] = tail(xs[big])


def _uniform_block(bits: U32Array, lo: np.float32, scratch: ErfInvScratch, n: int) -> F32Array:
    """Uniform ``float32`` in ``[lo, 1)`` from ``n`` random words (``lo = -1 + 2**-24``)."""
    mant = scratch.bits2[:n]
    u = scratch.u[:n]
    np.right_shift(bits, _U32_9, out=mant)
    np.copyto(u, mant, casting="unsafe")  # exact: fewer than 24 bits
    np.multiply(u, _UNIT, out=u)  # exact: a power of two
    np.add(u, lo, out=u)
    return u


def _normal_block(
    bits: U32Array, out: F32Array, lo: np.float32, scratch: ErfInvScratch, tail: TailFn
) -> None:
    """``sqrt(2) * erf_inv`` of the uniform of a block of random words, into ``out``."""
    u = _uniform_block(bits, lo, scratch, out.shape[0])
    erf_inv_f32_block(u, out, scratch, tail)
    np.multiply(out, _SQRT2, out=out)


def normal_f32_iota(w0: int, w1: int, n: int, lo: np.float32, tail: TailFn) -> F32Array:
    """Normal samples for the flat counters ``(0, i)``, ``i < n``, under key ``(w0, w1)``.

    Equal to hashing with :func:`threefry2x32_iota_numpy`, xoring the two
    words, converting with the uniform and applying ``sqrt(2) * erf_inv``.
    """
    out = np.empty(n, _F32)
    ks = threefry_key_schedule(w0, w1)

    def work(start: int, stop: int) -> None:
        scratch = ErfInvScratch()
        a_buf = np.empty(HASH_BLOCK, np.uint32)
        b_buf = np.empty(HASH_BLOCK, np.uint32)
        t_buf = np.empty(HASH_BLOCK, np.uint32)
        for s in range(start, stop, HASH_BLOCK):
            e = min(s + HASH_BLOCK, stop)
            m = e - s
            a, b = a_buf[:m], b_buf[:m]
            a.fill(0)
            b[:] = np.arange(s, e, dtype=np.uint32)
            rounds_scalar_keys(a, b, t_buf[:m], ks)
            np.bitwise_xor(a, b, out=a)
            for j in range(0, m, BLOCK):
                k = min(j + BLOCK, m)
                _normal_block(a[j:k], out[s + j : s + k], lo, scratch, tail)

    with np.errstate(all="ignore"):
        parallel_blocks(n, work)
    return out


def normal_f32_from_bits(bits: U32Array, lo: np.float32, tail: TailFn) -> F32Array:
    """Normal samples from a ``uint32`` array of random words (any shape)."""
    flat = np.ascontiguousarray(bits).reshape(-1)
    n = flat.shape[0]
    out = np.empty(n, _F32)

    def work(start: int, stop: int) -> None:
        scratch = ErfInvScratch()
        for s in range(start, stop, BLOCK):
            e = min(s + BLOCK, stop)
            _normal_block(flat[s:e], out[s:e], lo, scratch, tail)

    with np.errstate(all="ignore"):
        parallel_blocks(n, work)
    return out.reshape(np.shape(bits))
