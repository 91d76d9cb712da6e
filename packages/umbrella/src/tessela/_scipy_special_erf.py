"""``jax.scipy.special``: ``erfcx``, ``dawsn``, ``wofz`` and ``bessel_jn``, with JAX 0.10.2's kernels.

``erfcx(x) = exp(x**2) erfc(x)`` switches to its asymptotic series where
``exp(x**2)`` would overflow; ``dawsn`` uses the rational approximations of
Cody, Paciorek and Thacher (1970) on ``[0, 3.25)``, ``[3.25, 6.25)`` and
beyond. Half-precision inputs are computed in float32. ``wofz`` is Weideman's
(1994) rational approximation of the Faddeeva function (32 terms) in the upper
half plane, reflected below; ``erfcx`` of complex arguments is ``wofz(i z)``.
``bessel_jn`` runs Miller's backward recurrence.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_batching import vmap
from tessela_tracer import custom_jvp, lax
from tessela_tracer import dtypes as _dtypes
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr, _c, promote_inexact

__all__ = ["bessel_jn", "dawsn", "erfcx", "wofz"]

_F32 = np.dtype(np.float32)


# erfcx(x) ~ P(1/x^2) / (sqrt(pi) x), P's coefficients highest degree first.
_ERFCX_ASYMPTOTIC = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875,
                     0.75, -0.5, 1.0]  # fmt: skip


def _erfcx_kernel(x: Any, nterms: int) -> Any:
    threshold = np.sqrt(np.log(_dtypes.finfo(x.dtype).max))
    large = x > _c(x, threshold)
    safe = lax.select(large, lax.full_like(x, _c(x, 1.0)), x)
    direct = lax.exp(lax.square(safe)) * lax.erfc(safe)
    t = _c(x, 1.0) / lax.square(x)
    series = tnp.polyval(np.array(_ERFCX_ASYMPTOTIC[-nterms:], x.dtype), t)
    return lax.select(large, series / (x * _c(x, np.sqrt(np.pi))), direct)


def _erfcx_impl(x: Any) -> Any:
    if x.dtype == np.float64:
        return _erfcx_kernel(x, 9)
    if x.dtype == np.float32:
        return _erfcx_kernel(x, 5)
    return _erfcx_kernel(x.astype(_F32), 5).astype(x.dtype)


def _erfcx_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    ans = _erfcx_impl(x)
    return ans, t * (2 * x * ans - _c(x, 2.0 / np.sqrt(np.pi)))


_erfcx = custom_jvp(_erfcx_impl)
_erfcx.defjvp(_erfcx_jvp)


def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function ``exp(x**2) * erfc(x)``.

    Args:
        x: real values.

    Returns:
        ``erfcx(x)``, stable for large positive ``x``; its derivative is
        ``2 x erfcx(x) - 2 / sqrt(pi)``.

    Example:
        >>> print(erfcx(0.0))
        1.0
    """
    (x,) = (_arr(v) for v in promote_inexact("erfcx", x))
    if _dtypes.issubdtype(x.dtype, np.complexfloating):
        return cast(Array, _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x))))
    return cast(Array, _erfcx(x))


_DAWSN = {
    "an": [1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
           9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
           -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
           9.99999999999999994612e-1],
    "ad": [2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
           1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
           3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
           5.74918629489320327824e-1, 1.00000000000000000539e0],
    "bn": [5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
           -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
           3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
           -2.40274520828250956942e-9, 3.59233385440928410398e-11],
    "bd": [1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
           -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
           7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
           -4.91324691331920606875e-9, 7.18466403235734541950e-11],
    "cn": [-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
           1.64837047825189632310e-2, -4.86827613020462700845e-4],
    "cd": [1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
           -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4],
}  # fmt: skip


def _poly(name: str, v: Any) -> Any:
    return tnp.polyval(np.array(_DAWSN[name], v.dtype), v)


def _dawsn_kernel(x: Any) -> Any:
    sign = tnp.sign(x)
    ax = lax.abs(x)
    t = _c(x, 1.0) / lax.square(ax)
    one_ax, one_t = lax.full_like(ax, _c(x, 1.0)), lax.full_like(t, _c(x, 1.0))
    in1 = ax < _c(x, 3.25)
    in2 = (ax >= _c(x, 3.25)) & (ax < _c(x, 6.25))
    in3 = ax >= _c(x, 6.25)
    ax1 = lax.select(in1, ax, one_ax)
    val1 = ax1 * _poly("an", lax.square(ax1)) / _poly("ad", lax.square(ax1))
    t2, ax2 = lax.select(in2, t, one_t), lax.select(in2, ax, one_ax)
    val2 = (_c(x, 0.5) / ax2) * (_c(x, 1.0) + t2 * _poly("bn", t2) / _poly("bd", t2))
    t3, ax3 = lax.select(in3, t, one_t), lax.select(in3, ax, one_ax)
    val3 = (_c(x, 0.5) / ax3) * (_c(x, 1.0) + t3 * _poly("cn", t3) / _poly("cd", t3))
    return sign * lax.select(in1, val1, lax.select(ax < _c(x, 6.25), val2, val3))


def _dawsn_impl(x: Any) -> Any:
    if x.dtype in (np.float32, np.float64):
        return _dawsn_kernel(x)
    return _dawsn_kernel(x.astype(_F32)).astype(x.dtype)


def _dawsn_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    ans = _dawsn_impl(x)
    return ans, t * (_c(x, 1.0) - _c(x, 2.0) * x * ans)


_dawsn = custom_jvp(_dawsn_impl)
_dawsn.defjvp(_dawsn_jvp)


def dawsn(x: ArrayLike) -> Array:
    """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt``.

    Args:
        x: real values.

    Returns:
        ``dawsn(x)``; its derivative is ``1 - 2 x dawsn(x)``.

    Raises:
        ValueError: complex arguments, as in JAX.

    Example:
        >>> print(dawsn(0.0))
        0.0
    """
    x = _arr(promote_inexact("dawsn", x)[0])
    if _dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("dawsn does not support complex-valued inputs.")
    return cast(Array, _dawsn(x))


# ------------------------------------------------------------------- Faddeeva
_WOFZ_L = 4.7568284600108841
_WOFZ_C = [
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282, 0.14060716226893755,
    0.29544451071508743, 0.54601397206393376, 0.9019254893648001, 1.3455441692345449,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696,
]  # fmt: skip


def _wofz_upper(z: Any) -> Any:
    re = lax.real(z)
    big_l = lax.complex(_c(re, _WOFZ_L), _c(re, 0.0))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denom = big_l - iz
    ratio = (big_l + iz) / denom
    p = tnp.polyval(np.array(_WOFZ_C, ratio.dtype), ratio)
    inv_sqrt_pi = lax.complex(_c(re, 1.0 / np.sqrt(np.pi)), _c(re, 0.0))
    return 2 * p / (denom * denom) + inv_sqrt_pi / denom


def _wofz_impl(z: Any) -> Any:
    upper = lax.ge(lax.imag(z), _c(lax.real(z), 0.0))
    w_upper = _wofz_upper(lax.select(upper, z, lax.neg(z)))
    return lax.select(upper, w_upper, 2 * lax.exp(lax.neg(z * z)) - w_upper)


def _wofz_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (z,), (t,) = primals, tangents
    ans = _wofz_impl(z)
    re = lax.real(z)
    return ans, t * (lax.neg(2 * z * ans) + lax.complex(_c(re, 0.0), _c(re, 2.0 / np.sqrt(np.pi))))


_wofz = custom_jvp(_wofz_impl)
_wofz.defjvp(_wofz_jvp)


def wofz(z: ArrayLike) -> Array:
    """The Faddeeva function ``w(z) = exp(-z**2) erfc(-i z)``.

    Args:
        z: complex (or real, promoted to complex) values.

    Returns:
        ``w(z)``, complex.

    Example:
        >>> print(wofz(0.0))
        (1.0000001+0j)
    """
    z = tnp.asarray(z)
    if not _dtypes.issubdtype(z.dtype, np.complexfloating):
        wide = _dtypes.issubdtype(z.dtype, np.floating) and z.dtype.itemsize == 8
        z = z.astype(np.complex128 if wide else np.complex64)
    return cast(Array, _wofz(z))


# ------------------------------------------------------------------- Bessel J


def _bessel_jn_step(carry: tuple[Any, ...], k: Any) -> tuple[tuple[Any, ...], Any]:
    f0, f1, bs, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    bs = lax.cond(tnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0], (bs, f))
    return (f1, f, bs, z), f


def _bessel_jn_1d(z: Any, *, v: int, n_iter: int) -> Any:
    zero = _c(z, 0.0)
    init = (zero, _c(z, 1e-16), zero, z)
    (_, _, bs, _), values = lax.scan(
        _bessel_jn_step, init, lax.iota(z.dtype, n_iter + 1), reverse=True
    )
    return values[: v + 1] / (bs - values[0])


def bessel_jn(z: ArrayLike, *, v: int, n_iter: int = 50) -> Array:
    """The Bessel functions of the first kind ``J_0(z) .. J_v(z)``, by backward recurrence.

    Args:
        z: real values.
        v: the highest order (a concrete integer).
        n_iter: the number of recurrence steps.

    Returns:
        An array of shape ``(v + 1,) + z.shape``; with the default ``n_iter``,
        float32 overflows (NaN) for small ``z``, as in JAX.

    Raises:
        ValueError: complex input, as in JAX.

    Example:
        >>> print(tnp.round(bessel_jn(tnp.array([1.0]), v=1, n_iter=20)[:, 0], 4))
        [0.76519996 0.44009998]
    """
    z = tnp.asarray(z)
    if not _dtypes.issubdtype(z.dtype, np.inexact):
        z = z.astype(tnp.result_type(z.dtype, np.float32))
    if _dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("complex input not supported.")
    fun: Any = functools.partial(_bessel_jn_1d, v=operator.index(v), n_iter=int(n_iter))
    for _ in range(z.ndim):
        fun = vmap(fun)
    return tnp.moveaxis(fun(z), -1, 0)
