"""``jax.scipy.special``: incomplete gamma and beta, Bessel, exponential integrals.

The functions built on the tracer's ``special`` primitives (``gammainc``,
``gammaincc``, ``betainc``, ``i0e``, ``i1e``, ``i0``, ``i1``), ``loggamma`` of
real arguments, and JAX 0.10.2's Cephes rational approximations of the
exponential integrals (``expi``, ``exp1``, ``expn``), Spence's function and the
Bernoulli numbers. Arguments are promoted to a common inexact dtype, as JAX
promotes them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import custom_jvp, lax
from tessela_tracer import dtypes as _dtypes
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr, _c, promote_inexact
from ._scipy_special import gammaln
from ._vectorize import vectorize

__all__ = [
    "bernoulli", "betainc", "exp1", "expi", "expn", "gammainc", "gammaincc", "i0", "i0e",
    "i1", "i1e", "loggamma", "spence",
]  # fmt: skip


def _real_args(name: str, *args: Any) -> list[Any]:
    out = [_arr(a) for a in promote_inexact(name, *args)]
    if _dtypes.issubdtype(out[0].dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")
    return out


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    r"""The regularized lower incomplete gamma function :math:`P(a, x)`.

    Args:
        a: the shape, positive.
        x: the upper limit, non-negative.

    Returns:
        :math:`\gamma(a, x) / \Gamma(a)`, of the broadcast shape.

    Example:
        >>> print(gammainc(1.0, 2.0))  # 1 - exp(-2)
        0.8646648
    """
    a, x = (_arr(v) for v in promote_inexact("gammainc", a, x))
    return lax.igamma(*tnp.broadcast_arrays(a, x))


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    r"""The regularized upper incomplete gamma function :math:`Q(a, x) = 1 - P(a, x)`.

    Args:
        a: the shape, positive.
        x: the lower limit, non-negative.

    Returns:
        :math:`\Gamma(a, x) / \Gamma(a)`, of the broadcast shape.

    Example:
        >>> print(gammaincc(1.0, 2.0))  # exp(-2)
        0.13533522
    """
    a, x = (_arr(v) for v in promote_inexact("gammaincc", a, x))
    return lax.igammac(*tnp.broadcast_arrays(a, x))


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    r"""The regularized incomplete beta function :math:`I_x(a, b)`.

    Args:
        a: positive.
        b: positive.
        x: in ``[0, 1]``.

    Returns:
        :math:`B(x; a, b) / B(a, b)`, of the broadcast shape.

    Raises:
        ValueError: complex inputs, as in JAX.

    Example:
        >>> print(betainc(2.0, 3.0, 0.5))
        0.6874998
    """
    a, b, x = _real_args("betainc", a, b, x)
    return lax.betainc(*tnp.broadcast_arrays(a, b, x))


def i0e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) i0(x)``.

    Args:
        x: real values.

    Returns:
        ``i0e(x)``.

    Example:
        >>> print(i0e(0.0))
        1.0000001
    """
    (x,) = (_arr(v) for v in promote_inexact("i0e", x))
    return lax.bessel_i0e(x)


def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of order 0.

    Args:
        x: real values.

    Returns:
        ``i0(x)``, computed as ``exp(|x|) * i0e(x)``.

    Example:
        >>> print(i0(1.0))
        1.266066
    """
    (x,) = (_arr(v) for v in promote_inexact("i0", x))
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) i1(x)``.

    Args:
        x: real values.

    Returns:
        ``i1e(x)``.

    Example:
        >>> print(i1e(0.0))
        0.0
    """
    (x,) = (_arr(v) for v in promote_inexact("i1e", x))
    return lax.bessel_i1e(x)


def i1(x: ArrayLike) -> Array:
    """The modified Bessel function of order 1.

    Args:
        x: real values.

    Returns:
        ``i1(x)``, computed as ``exp(|x|) * i1e(x)``.

    Example:
        >>> print(i1(1.0))
        0.5651591
    """
    (x,) = (_arr(v) for v in promote_inexact("i1", x))
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


def loggamma(x: ArrayLike) -> Array:
    r"""The principal branch of :math:`\log \Gamma(x)`.

    For real ``x`` it is ``gammaln(x)`` where ``x > 0`` and NaN elsewhere, as
    in JAX.

    Args:
        x: real values.

    Returns:
        :math:`\log \Gamma(x)`.

    Raises:
        NotImplementedError: complex arguments (the complex branch is not
            implemented here).

    Example:
        >>> print(loggamma(4.0))
        1.7917603
    """
    (x,) = (_arr(v) for v in promote_inexact("loggamma", x))
    if _dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError(
            "loggamma of complex arguments is not implemented in tessela; pass real values "
            "(gammaln gives log|gamma| of real arguments)"
        )
    return tnp.where(x > 0, lax.lgamma(x), _c(x, np.nan))


# ------------------------------------------------------------ exponential integrals
# Cephes' rational approximations of Ei on (0, 2], (2, 4], ..., (32, 64], (64, inf).
_EXPINT_A = [
    [-5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
     5.541176756393557601232e4, -3.313381331178144034309e5, 1.592627163384945414220e6],
    [1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
     2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
     -1.545042679673485262580e-3, 7.059980605299617478514e-5],
    [-1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
     -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
     4.371064420753005429514e-5, 2.141783679522602903795e-6],
    [-2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
     2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
     1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
     6.176407863710360207074e-10],
    [-2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
     -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
     2.644179518984235952241e-6, -4.239473659313765177195e-8],
    [1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
     -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5],
    [-7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
     3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
     -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9],
]  # fmt: skip
_EXPINT_B = [
    [1.0, -5.250547959112862969197e1, 1.259616186786790571525e3, -1.756549581973534652631e4,
     1.493062117002725991967e5, -7.294949239640527645655e5, 1.592627163384945429726e6],
    [1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1, 1.699017897879307263248e-1,
     2.291647179034212017463e-2, 4.450150439728752875043e-3, 1.727439612206521482874e-4,
     3.953167195549672482304e-5],
    [1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1, 7.687932158124475434091e-2,
     2.449868241021887685904e-2, 8.832165941927796567926e-4, 4.590952299511353531215e-4,
     -4.729848351866523044863e-6, 2.665195537390710170105e-6],
    [1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1, -1.566542966630792353556e-2,
     2.761106850817352773874e-3, -2.089148012284048449115e-4, 1.708528938807675304186e-5,
     -4.459311796356686423199e-7, 1.394634930353847498145e-8, 6.150865933977338354138e-10],
    [1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1, 9.695000254621984627876e-2,
     -1.601745692712991078208e-2, 1.496414899205908021882e-3, -8.462452563778485013756e-5,
     2.728938403476726394024e-6, -4.239462431819542051337e-8],
    [1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1, -3.337004338674007801307e-2,
     1.560544881127388842819e-3, -2.523137093603234562648e-5],
    [1.0, -1.888802868662308731041e0, 1.066691687211408896850e0, -2.751915982306380647738e-1,
     3.930852688233823569726e-2, -3.414684558602365085394e-3, 1.866844370703555398195e-4,
     -6.345146083130515357861e-6, 1.239754287483206878024e-7, -1.086076102793126632978e-9],
]  # fmt: skip


def _poly_ratio(k: int, w: Any) -> Any:
    num = tnp.polyval(np.array(_EXPINT_A[k], w.dtype), w)
    return num / tnp.polyval(np.array(_EXPINT_B[k], w.dtype), w)


def _expint_near(x: Any) -> Any:
    return x * _poly_ratio(0, x) + _c(x, np.euler_gamma) + tnp.log(x)


def _expint_piece(k: int) -> Callable[[Any], Any]:
    def piece(x: Array) -> Array:
        one = _c(x, 1.0)
        w = one / x
        return cast(Array, tnp.exp(x) * w * (w * _poly_ratio(k, w) + one))

    return piece


def _expi_pos(x: Any) -> Any:
    conds = [(x > 0) & (x <= 2)] + [(x > 2**i) & (x <= 2 ** (i + 1)) for i in range(1, 6)]
    return tnp.piecewise(x, conds, [_expint_near] + [_expint_piece(k) for k in range(1, 7)])


def _expi_impl(x: Any) -> Any:
    return tnp.piecewise(x, [x < 0], [lambda v: -exp1(-v), _expi_pos])


def _expi_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _expi_impl(x), tnp.exp(x) / x * t


_expi = custom_jvp(_expi_impl)
_expi.defjvp(_expi_jvp)


def expi(x: ArrayLike) -> Array:
    r"""The exponential integral :math:`\mathrm{Ei}(x) = \int_{-\infty}^x e^t / t \, dt`.

    Args:
        x: real values.

    Returns:
        :math:`\mathrm{Ei}(x)`; its derivative is ``exp(x) / x``.

    Raises:
        ValueError: complex inputs, as in JAX.

    Example:
        >>> print(expi(1.0))
        1.8951179
    """
    (x,) = _real_args("expi", x)
    return cast(Array, _expi(x))


def _expn_series(x: Any, n: Any) -> Any:
    """``E_n(x)`` for ``x <= 1``: the power series (Cephes)."""
    eps = _c(x, _dtypes.finfo(x.dtype).eps)
    zero, one = _c(x, 0.0), _c(x, 1.0)
    psi = -_c(x, np.euler_gamma) - tnp.log(x)
    psi = lax.fori_loop(_c(n, 1), n, lambda i, p: p + one / i, psi)
    n1 = tnp.where(n == 1, one + one, n)
    init = {
        "x": x, "z": -x, "xk": zero, "yk": one, "pk": one - n,
        "ans": tnp.where(n == 1, zero, one / (one - n1)), "t": _c(x, np.inf),
    }  # fmt: skip

    def body(d: dict[str, Array]) -> dict[str, Array]:
        d = dict(d)
        d["xk"] = d["xk"] + one
        d["yk"] = d["yk"] * (d["z"] / d["xk"])
        d["pk"] = d["pk"] + one
        d["ans"] = d["ans"] + tnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = tnp.where(d["ans"] != zero, tnp.abs(d["yk"] / d["ans"]), one)
        return d

    d = lax.while_loop(lambda d: (d["x"] > zero) & (d["t"] > eps), body, init)
    return d["z"] ** (n - 1) * psi / tnp.exp(gammaln(n)) - d["ans"]


def _expn_fraction(x: Any, n: Any) -> Any:
    """``E_n(x)`` for ``x > 1``: the continued fraction (Cephes)."""
    big = _c(x, 1.44115188075855872e17)
    eps = _c(x, _dtypes.finfo(x.dtype).eps)
    zero, one = _c(x, 0.0), _c(x, 1.0)
    init = {
        "k": _c(n, 1), "pkm2": one, "qkm2": x, "pkm1": one, "qkm1": x + n,
        "ans": one / (x + n), "t": _c(x, np.inf), "r": zero, "x": x,
    }  # fmt: skip

    def body(d: dict[str, Array]) -> dict[str, Array]:
        d = dict(d)
        xv = d["x"]
        d["k"] = k = d["k"] + 1
        odd = k % 2 == 1
        yk = tnp.where(odd, one, xv)
        xk = tnp.where(odd, n + (k - 1) / 2, k / 2)
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        d["r"] = r = tnp.where(nz, pk / qk, d["r"])
        d["t"] = tnp.where(nz, tnp.abs((d["ans"] - r) / r), one)
        d["ans"] = tnp.where(nz, r, d["ans"])
        d["pkm2"], d["pkm1"], d["qkm2"], d["qkm1"] = d["pkm1"], pk, d["qkm1"], qk
        is_big = tnp.abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = tnp.where(is_big, d[key] / big, d[key])
        return d

    d = lax.while_loop(lambda d: (d["x"] > 0) & (d["t"] > eps), body, init)
    return d["ans"] * tnp.exp(-x)


def _expn_large_n(x: Any, n: Any) -> Any:
    """``E_n(x)`` for ``n >= 5000``: the asymptotic expansion."""
    one = _c(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    ans = yk * n * (6 * x * x - 8 * n * x + n * n)
    ans = yk * (ans + n * (n - 2 * x))
    ans = yk * (ans + n)
    return (ans + one) * tnp.exp(-x) / xk


def _expn_scalar(n: Any, x: Any) -> Any:
    zero, one = _c(x, 0), _c(x, 1)
    conds = [
        (n < 0) | (x < zero), (x == zero) & (n < 2), (x == zero) & (n >= 2),
        (n == 0) & (x >= zero), n >= 5000, x > one,
    ]  # fmt: skip
    n1 = tnp.where(n == 1, n + n, n)
    funcs = [
        np.nan, np.inf, one / n1, lambda v, n: tnp.exp(-v) / v,
        _expn_large_n, _expn_fraction, _expn_series,
    ]  # fmt: skip
    return tnp.piecewise(x, conds, funcs, n=n)


_expn_vectorized = vectorize(_expn_scalar)


def _expn_impl(n: Any, x: Any) -> Any:
    return _expn_vectorized(n, x)


def _expn_jvp(n: Any, primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _expn_impl(n, x), -t * _expn_impl(n - 1, x)


_expn = custom_jvp(_expn_impl, nondiff_argnums=(0,))
_expn.defjvp(_expn_jvp)


def expn(n: ArrayLike, x: ArrayLike) -> Array:
    r"""The generalized exponential integral :math:`E_n(x) = \int_1^\infty e^{-xt} / t^n \, dt`.

    Args:
        n: the order (whole numbers, in ``x``'s dtype after promotion).
        x: real values.

    Returns:
        :math:`E_n(x)`; NaN for ``n < 0`` or ``x < 0``. Its derivative in
        ``x`` is ``-expn(n - 1, x)``; ``n`` is not differentiable.

    Raises:
        ValueError: complex inputs, as in JAX.

    Example:
        >>> print(expn(2, 1.0))
        0.14849555
    """
    n, x = _real_args("expn", n, x)
    return cast(Array, _expn(n, x))


def exp1(x: ArrayLike) -> Array:
    r"""The exponential integral :math:`E_1(x) = \int_x^\infty e^{-t} / t \, dt`.

    Args:
        x: real values.

    Returns:
        ``expn(1, x)``.

    Example:
        >>> print(exp1(1.0))
        0.21938425
    """
    (x,) = _real_args("exp1", x)
    return expn(_c(x, 1), x)


# ------------------------------------------------------------------ Spence, Bernoulli
_SPENCE_A = [
    4.65128586073990045278e-5, 7.31589045238094711071e-3, 1.33847639578309018650e-1,
    8.79691311754530315341e-1, 2.71149851196553469920e0, 4.25697156008121755724e0,
    3.29771340985225106936e0, 1.00000000000000000126e0,
]  # fmt: skip
_SPENCE_B = [
    6.90990488912553276999e-4, 2.54043763932544379113e-2, 2.82974860602568089943e-1,
    1.41172597751831069617e0, 3.63800533345137075418e0, 5.03278880143316990390e0,
    3.54771340985225096217e0, 9.99999999999999998740e-1,
]  # fmt: skip


def _spence_calc(x: Any) -> Any:
    above_two = x > 2.0
    x = tnp.piecewise(x, [above_two], [lambda v: 1.0 / v, lambda v: v])
    above_1_5, below_half = x > 1.5, x < 0.5
    flip = above_two | above_1_5
    w = tnp.piecewise(
        x, [above_1_5, below_half], [lambda v: 1.0 / v - 1.0, lambda v: -v, lambda v: v - 1.0]
    )
    y = -w * tnp.polyval(np.array(_SPENCE_A, w.dtype), w)
    y = y / tnp.polyval(np.array(_SPENCE_B, w.dtype), w)
    y = tnp.where(below_half, np.pi**2 / 6.0 - tnp.log(x) * tnp.log(1.0 - x) - y, y)
    return tnp.where(flip, -0.5 * tnp.log(x) ** 2 - y, y)


def spence(x: ArrayLike) -> Array:
    r"""Spence's function (the dilogarithm) :math:`\int_1^x \log t / (1 - t) \, dt`.

    Defined for non-negative real ``x``; NaN below zero, as in JAX.

    Args:
        x: a float32 or float64 array.

    Returns:
        ``spence(x)``, of ``x``'s dtype.

    Raises:
        TypeError: another dtype, as in JAX.

    Example:
        >>> print(spence(1.0))
        0.0
    """
    x = tnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return tnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0], [np.nan, 0, np.pi**2 / 6, _spence_calc])


def bernoulli(n: int) -> Array:
    """The first ``n + 1`` Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``).

    Computed with the Chowla-Hartung series, as JAX computes them.

    Args:
        n: a non-negative Python integer (a concrete value).

    Returns:
        An array of ``n + 1`` floats.

    Raises:
        ValueError: a negative ``n``.

    Example:
        >>> print(bernoulli(4))
        [ 1.         -0.5         0.16666667  0.         -0.03333325]
    """
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = tnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return b3[: n + 1]
    bn = tnp.zeros(n + 1).at[:3].set(b3)
    m = tnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = (1.0 / np.pi**2) * tnp.cumprod(-(m - 1) * m / 4 / np.pi**2)
    k = tnp.arange(2, 50, dtype=bn.dtype)
    q2 = tnp.sum(k[:, None] ** -m[None, :], axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))
