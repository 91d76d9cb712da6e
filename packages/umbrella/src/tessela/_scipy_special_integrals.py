"""``jax.scipy.special``: ``fresnel``, ``sici`` and ``owens_t``, with JAX 0.10.2's kernels.

``fresnel`` evaluates Cephes' ``fresnl`` (the single-precision ``fresnlf``
polynomials for float32 and narrower, computed in float32; the rational
double-precision ones for float64), with ``sin``/``cos`` of ``pi x**2 / 2``
reduced exactly modulo 2 first. ``sici`` uses Cephes' rational series on
``[0, 4]``, its auxiliary functions ``f`` and ``g`` up to ``1e9`` and the
leading asymptotic terms beyond. ``owens_t`` is the 13-point quadrature of
Patefield and Tandy's method T5 (with ``a`` folded into ``[-1, 1]``). Each
has JAX's derivative rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import custom_jvp, lax
from tessela_tracer import dtypes as _dtypes
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr, promote_inexact

__all__ = ["fresnel", "owens_t", "sici"]

_where: Callable[..., Any] = tnp.where  # the three-argument form: one array

_F32 = np.dtype(np.float32)


def _poly(coeffs: list[float], x: Any) -> Any:
    return tnp.polyval(np.array(coeffs, x.dtype), x)


def _sincos_pi_half_square(x: Any) -> tuple[Any, Any]:
    # sin and cos of pi x^2 / 2 with r = (x^2 / 2) mod 2 taken exactly:
    # with s = x mod 2, r = (s (x - s / 2)) mod 2.
    x = tnp.abs(x)
    s = tnp.fmod(x, 2.0)
    r = tnp.fmod(s * (x - s / 2), 2.0)
    sinpi = _where(r < 0.5, tnp.sin(np.pi * r),
                      _where(r > 1.5, tnp.sin(np.pi * (r - 2.0)),
                                -tnp.sin(np.pi * (r - 1.0))))  # fmt: skip
    cospi = _where(r == 0.5, 0.0,
                      _where(r < 1.0, -tnp.sin(np.pi * (r - 0.5)),
                                tnp.sin(np.pi * (r - 1.5))))  # fmt: skip
    return sinpi, cospi


# Cephes fresnlf (single precision): polynomials, highest degree first.
_FRESNEL_F32 = {
    "sn": [1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6,
           -3.120693124703272e-4, 7.244727626597022e-3, -9.228055941124598e-2,
           5.235987735681432e-1],
    "cn": [1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5,
           -1.604381798862293e-3, 2.818489036795073e-2, -2.467398198317899e-1,
           9.999999760004487e-1],
    "fn": [-1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9,
           7.343848463587323e7, -8.732356681548485e5, 8.560515466275470e3,
           -1.032877601091159e2, 2.999401847870011e0],
    "gn": [-1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8,
           6.492611570598858e6, -7.787789623358162e4, 8.602931494734327e2,
           -1.493439396592284e1, 9.999841934744914e-1],
}  # fmt: skip

# Cephes fresnl (double precision): numerators and denominators.
_FRESNEL_F64 = {
    "sn": [-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
           2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11],
    "sd": [1.0, 2.81376268889994315696e2, 4.55847810806532581675e4, 5.17343888770096400730e6,
           4.19320245898111231129e8, 2.24411795645340920940e10, 6.07366389490084639049e11],
    "cn": [-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
           1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1],
    "cd": [3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
           1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
           1.00000000000000000118e0],
    "fn": [4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
           3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
           1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
           3.76329711269987889006e-20],
    "fd": [1.0, 7.51586398353378947175e-1, 1.16888925859191382142e-1, 6.44051526508858611005e-3,
           1.55934409164153020873e-4, 1.84627567348930545870e-6, 1.12699224763999035261e-8,
           3.60140029589371370404e-11, 5.88754533621578410010e-14, 4.52001434074129701496e-17,
           1.25443237090011264384e-20],
    "gn": [5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
           6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
           4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
           8.36354435630677421531e-19, 1.86958710162783235106e-22],
    "gd": [1.0, 1.47495759925128324529e0, 3.37748989120019970451e-1, 2.53603741420338795122e-2,
           8.14679107184306179049e-4, 1.27545075667729118702e-5, 1.04314589657571990585e-7,
           4.60680728146520428211e-10, 1.10273215066240270757e-12, 1.38796531259578871258e-15,
           8.39158816283118707363e-19, 1.86958710162783236342e-22],
}  # fmt: skip


def _fresnel_impl(xx: Any) -> tuple[Any, Any]:
    single = xx.dtype != np.float64
    x = tnp.abs(xx)
    x2 = x * x
    t4 = x2 * x2
    sinpi, cospi = _sincos_pi_half_square(x)
    if single:
        c = _FRESNEL_F32
        s_small = x * x2 * _poly(c["sn"], t4)
        c_small = x * _poly(c["cn"], t4)
        s_large = c_large = 0.5
    else:
        c = _FRESNEL_F64
        s_small = x * x2 * _poly(c["sn"], t4) / _poly(c["sd"], t4)
        c_small = x * _poly(c["cn"], t4) / _poly(c["cd"], t4)
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * _poly(c["fn"], u)
        g = t * _poly(c["gn"], u)
    else:
        f = 1.0 - u * _poly(c["fn"], u) / _poly(c["fd"], u)
        g = t * _poly(c["gn"], u) / _poly(c["gd"], u)
    t = np.pi * x
    c_mid = 0.5 + (f * sinpi - g * cospi) / t
    s_mid = 0.5 - (f * cospi + g * sinpi) / t
    inf, small, large = tnp.isinf(xx), x2 < 2.5625, x > 36974.0
    s = _where(inf, 0.5, _where(small, s_small, _where(large, s_large, s_mid)))
    cc = _where(inf, 0.5, _where(small, c_small, _where(large, c_large, c_mid)))
    neg = xx < 0.0
    return _where(neg, -s, s), _where(neg, -cc, cc)


def _fresnel_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    out = _fresnel(x)
    sinpi, cospi = _sincos_pi_half_square(x)
    return out, (sinpi * t, cospi * t)


_fresnel = custom_jvp(_fresnel_impl)
_fresnel.defjvp(_fresnel_jvp)


def fresnel(x: ArrayLike) -> tuple[Array, Array]:
    """The Fresnel integrals ``S(x)`` and ``C(x)`` of ``sin``/``cos(pi t**2 / 2)``.

    Args:
        x: real values (accurate on ``[-10, 10]``, as Cephes').

    Returns:
        ``(S, C)``, in ``x``'s dtype; half-precision inputs are computed in float32.

    Raises:
        NotImplementedError: complex or other unsupported dtypes, as in JAX.

    Example:
        >>> s, c = fresnel(0.0)
        >>> print(s, c)
        0.0 0.0
    """
    (xx,) = (_arr(v) for v in promote_inexact("fresnel", x))
    dtype = xx.dtype
    if _dtypes.issubdtype(dtype, np.complexfloating):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if dtype not in (np.float16, _dtypes.bfloat16, np.float32, np.float64):
        raise NotImplementedError(f"Support for {dtype} dtype is not implemented yet.")
    if dtype != np.float64:
        xx = xx.astype(_F32)
    s, c = _fresnel(xx)
    return s.astype(dtype), c.astype(dtype)


# Cephes sici: the series on [0, 4] and the auxiliary functions f, g beyond.
_SICI = {
    "sn": [-8.39167827910303881427e-11, 4.62591714427012837309e-8, -9.75759303843632795789e-6,
           9.76945438170435310816e-4, -4.13470316229406538752e-2, 1.00000000000000000302e0],
    "sd": [2.03269266195951942049e-12, 1.27997891179943299903e-9, 4.41827842801218905784e-7,
           9.96412122043875552487e-5, 1.42085239326149893930e-2, 9.99999999999999996984e-1],
    "cn": [2.02524002389102268789e-11, -1.35249504915790756375e-8, 3.59325051419993077021e-6,
           -4.74007206873407909465e-4, 2.89159652607555242092e-2, -1.00000000000000000080e0],
    "cd": [4.07746040061880559506e-12, 3.06780997581887812692e-9, 1.23210355685883423679e-6,
           3.17442024775032769882e-4, 5.10028056236446052392e-2, 4.00000000000000000080e0],
    "fn4": [4.23612862892216586994e0, 5.45937717161812843388e0, 1.62083287701538329132e0,
            1.67006611831323023771e-1, 6.81020132472518137426e-3, 1.08936580650328664411e-4,
            5.48900223421373614008e-7],
    "fd4": [1.0, 8.16496634205391016773e0, 7.30828822505564552187e0, 1.86792257950184183883e0,
            1.78792052963149907262e-1, 7.01710668322789753610e-3, 1.10034357153915731354e-4,
            5.48900252756255700982e-7],
    "gn4": [8.71001698973114191777e-2, 6.11379109952219284151e-1, 3.97180296392337498885e-1,
            7.48527737628469092119e-2, 5.38868681462177273157e-3, 1.61999794598934024525e-4,
            1.97963874140963632189e-6, 7.82579040744090311069e-9],
    "gd4": [1.0, 1.64402202413355338886e0, 6.66296701268987968381e-1, 9.88771761277688796203e-2,
            6.22396345441768420760e-3, 1.73221081474177119497e-4, 2.02659182086343991969e-6,
            7.82579218933534490868e-9],
    "fn8": [4.55880873470465315206e-1, 7.13715274100146711374e-1, 1.60300158222319456320e-1,
            1.16064229408124407915e-2, 3.49556442447859055605e-4, 4.86215430826454749482e-6,
            3.20092790091004902806e-8, 9.41779576128512936592e-11, 9.70507110881952024631e-14],
    "fd8": [1.0, 9.17463611873684053703e-1, 1.78685545332074536321e-1, 1.22253594771971293032e-2,
            3.58696481881851580297e-4, 4.92435064317881464393e-6, 3.21956939101046018377e-8,
            9.43720590350276732376e-11, 9.70507110881952025725e-14],
    "gn8": [6.97359953443276214934e-1, 3.30410979305632063225e-1, 3.84878767649974295920e-2,
            1.71718239052347903558e-3, 3.48941165502279436777e-5, 3.47131167084116673800e-7,
            1.70404452782044526189e-9, 3.85945925430276600453e-12, 3.14040098946363334640e-15],
    "gd8": [1.0, 1.68548898811011640017e0, 4.87852258695304967486e-1, 4.67913194259625806320e-2,
            1.90284426674399523638e-3, 3.68475504442561108162e-5, 3.57043223443740838771e-7,
            1.72693748966316146736e-9, 3.87830166023954706752e-12, 3.14040098946363335242e-15],
}  # fmt: skip


def _sici_series(x: Any) -> tuple[Any, Any]:
    t = x * x
    si = x * _poly(_SICI["sn"], t) / _poly(_SICI["sd"], t)
    ci = np.euler_gamma + tnp.log(x) + t * _poly(_SICI["cn"], t) / _poly(_SICI["cd"], t)
    return _where(x == 0, 0.0, si), _where(x == 0, -np.inf, ci)


def _sici_auxiliary(x: Any) -> tuple[Any, Any]:
    s, c = tnp.sin(x), tnp.cos(x)
    z = 1.0 / (x * x)
    below8 = x < 8.0
    f = _where(below8, _poly(_SICI["fn4"], z) / (x * _poly(_SICI["fd4"], z)),
                  _poly(_SICI["fn8"], z) / (x * _poly(_SICI["fd8"], z)))  # fmt: skip
    g = _where(below8, z * _poly(_SICI["gn4"], z) / _poly(_SICI["gd4"], z),
                  z * _poly(_SICI["gn8"], z) / _poly(_SICI["gd8"], z))  # fmt: skip
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_asymptotic(x: Any) -> tuple[Any, Any]:
    si = (np.pi / 2) - tnp.cos(x) / x
    ci = tnp.sin(x) / x
    posinf = tnp.isposinf(x)
    return _where(posinf, np.pi / 2, si), _where(posinf, 0.0, ci)


def _sici_impl(x: Any) -> tuple[Any, Any]:
    ax = tnp.abs(x)
    si_s, ci_s = _sici_series(ax)
    si_m, ci_m = _sici_auxiliary(ax)
    si_a, ci_a = _sici_asymptotic(ax)
    small, mid = ax <= 4, (ax > 4) & (ax <= 1e9)
    si = tnp.select([small, mid], [si_s, si_m], si_a)
    ci = tnp.select([small, mid], [ci_s, ci_m], ci_a)
    return tnp.sign(x) * si, _where(tnp.isneginf(x), np.nan, ci)


def _sici_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _sici(x), (tnp.sinc(x / np.pi) * t, tnp.cos(x) / x * t)


_sici = custom_jvp(_sici_impl)
_sici.defjvp(_sici_jvp)


def sici(x: ArrayLike) -> tuple[Array, Array]:
    """The sine and cosine integrals ``Si(x)`` and ``Ci(x)``.

    Args:
        x: real values.

    Returns:
        ``(Si, Ci)``; ``Ci`` of a negative ``x`` is that of ``|x|`` (NaN at ``-inf``), as JAX's.

    Raises:
        ValueError: complex input.

    Example:
        >>> si, ci = sici(0.0)
        >>> print(si, ci)
        0.0 -inf
    """
    (x,) = (_arr(v) for v in promote_inexact("sici", x))
    if _dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    si, ci = _sici(x)
    return si, ci


# Patefield and Tandy's T5: nodes t_i and weights w_i of
# T(h, a) ~ a sum_i w_i exp(-h^2 (1 + a^2 t_i) / 2) / (1 + a^2 t_i).
_OWENS_NODES = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704,
])  # fmt: skip
_OWENS_WEIGHTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
    0.0016793031084546090,
])  # fmt: skip


def _owens_quadrature(h: Any, a: Any) -> Any:
    r = tnp.square(a)[..., None] * _OWENS_NODES.astype(a.dtype)
    integrand = tnp.exp(-0.5 * tnp.square(h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * tnp.matmul(integrand, _OWENS_WEIGHTS.astype(a.dtype))


def _owens_t_impl(h: Any, a: Any) -> Any:
    h = tnp.abs(h)
    abs_a = tnp.abs(a)
    root2 = np.array(np.sqrt(2), h.dtype)[()]
    h_scaled = h / root2
    folded = abs_a <= 1.0
    mod_a = _where(folded, abs_a, tnp.reciprocal(abs_a))
    mod_h = _where(folded, h, abs_a * h)
    result = _owens_quadrature(mod_h, mod_a)
    result = _where(mod_h == 0.0, tnp.arctan(mod_a) / (2 * np.pi), result)
    result = _where(mod_a == 1.0,
                       0.125 * lax.erfc(-mod_h / root2) * lax.erfc(mod_h / root2), result)  # fmt: skip
    erfc_h, erfc_ah = lax.erfc(h_scaled), lax.erfc(abs_a * h_scaled)
    unfolded = _where(
        abs_a * h <= 0.67,
        0.25 - 0.25 * lax.erf(h_scaled) * lax.erf(abs_a * h_scaled) - result,
        0.25 * (erfc_h + erfc_ah - erfc_h * erfc_ah) - result,
    )
    result = lax.sign(a) * _where(abs_a > 1.0, unfolded, result)
    return _where(tnp.isnan(a) | tnp.isnan(h), tnp.full_like(result, np.nan), result)


def _owens_t_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (h, a), (dh, da) = primals, tangents
    out = _owens_t(h, a)
    root2 = np.array(np.sqrt(2), h.dtype)[()]
    d_h = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root2)
           / (2.0 * np.array(np.sqrt(2.0 * np.pi), h.dtype)[()]))  # fmt: skip
    d_a = lax.exp(-0.5 * (lax.square(a) + 1.0) * lax.square(h)) / (
        2.0 * np.pi * (lax.square(a) + 1.0)
    )
    return out, (d_h * dh + d_a * da).astype(out.dtype)


_owens_t = custom_jvp(_owens_t_impl)
_owens_t.defjvp(_owens_t_jvp)


def owens_t(h: ArrayLike, a: ArrayLike) -> Array:
    """Owen's T function ``(1/2pi) int_0^a exp(-h**2 (1 + x**2) / 2) / (1 + x**2) dx``.

    Args:
        h: real values.
        a: real values (broadcast with ``h``).

    Returns:
        ``T(h, a)`` in the promoted dtype.

    Example:
        >>> print(owens_t(0.0, 1.0))
        0.125
    """
    h, a = (_arr(v) for v in promote_inexact("owens_t", h, a))
    shape = tnp.broadcast_shapes(h.shape, a.shape)
    return cast(Array, _owens_t(tnp.broadcast_to(h, shape), tnp.broadcast_to(a, shape)))
