"""The standard normal CDF family of ``tessela.scipy.special``: ``ndtr``, ``ndtri``, ``log_ndtr``.

``ndtri`` uses Cephes' piecewise rational approximations and ``log_ndtr`` an
asymptotic series in the lower tail, with JAX's constants and branch points,
so float32 results agree with JAX's to rounding.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import custom_jvp, lax
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr

__all__ = ["log_ndtr", "ndtr", "ndtri"]


def _check_float(name: str, x: ArrayLike) -> Array:
    arr: Array = _arr(x)
    if arr.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"{name}: x.dtype={arr.dtype} is not supported; pass a float32 or float64 array."
        )
    return arr


def _ndtr(x: Any) -> Any:
    dt = x.dtype.type
    half_sqrt_2 = dt(0.5 * np.sqrt(2.0))
    w = x * half_sqrt_2
    z = tnp.abs(w)
    y = tnp.where(
        z < half_sqrt_2,
        dt(1.0) + lax.erf(w),
        tnp.where(w > 0, dt(2.0) - lax.erfc(z), lax.erfc(z)),
    )
    return dt(0.5) * y


def ndtr(x: ArrayLike) -> Array:
    """The standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2``.

    Args:
        x: a float32 or float64 array.

    Returns:
        ``P(X <= x)`` for ``X ~ N(0, 1)``.

    Raises:
        TypeError: for other dtypes (integers included, as in JAX).

    Example:
        >>> import tessela.numpy as tnp
        >>> print(ndtr(tnp.array([0.0])))
        [0.5]
    """
    return cast(Array, _ndtr(_check_float("ndtr", x)))


# Cephes' ndtri coefficients (highest degree first).
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
       1.39312609387279679503e1, -1.23916583867381258016e0)  # fmt: skip
_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
       -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
       1.59056225126211695515e1, -1.18331621121330003142e0)  # fmt: skip
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
       4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
       -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)  # fmt: skip
_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
       1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
       -3.80806407691578277194e-2, -9.33259480895457427372e-4)  # fmt: skip
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
       1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
       3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)  # fmt: skip
_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
       2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
       2.89247864745380683936e-6, 6.79019408009981274425e-9)  # fmt: skip


def _polyval(coeffs: tuple[float, ...], x: Any) -> Any:
    dt = x.dtype.type
    acc = tnp.zeros_like(x)
    for c in coeffs:
        acc = acc * x + dt(c)
    return acc


def ndtri(p: ArrayLike) -> Array:
    """The inverse of ``ndtr``: the ``x`` with ``ndtr(x) == p``.

    Args:
        p: a float32 or float64 array of probabilities.

    Returns:
        The quantiles; ``-inf`` at 0, ``inf`` at 1, NaN outside ``[0, 1]``.

    Example:
        >>> print(ndtri(0.5))
        0.0
    """
    p = _check_float("ndtri", p)
    dt = p.dtype.type
    maybe_complement = tnp.where(p > dt(-np.expm1(-2.0)), dt(1.0) - p, p)
    sanitized = tnp.where(maybe_complement == 0, tnp.full_like(p, 0.5), maybe_complement)
    w = sanitized - dt(0.5)
    ww = w * w
    x_big = w + w * ww * (_polyval(_P0, ww) / _polyval(_Q0, ww))
    x_big = x_big * -dt(np.sqrt(2.0 * np.pi))
    z = tnp.sqrt(dt(-2.0) * tnp.log(sanitized))
    first = z - tnp.log(z) / z
    inv_z = 1 / z
    x_small = first - _polyval(_P2, inv_z) / _polyval(_Q2, inv_z) / z
    x_other = first - _polyval(_P1, inv_z) / _polyval(_Q1, inv_z) / z
    x = tnp.where(sanitized > dt(np.exp(-2.0)), x_big, tnp.where(z >= 8, x_small, x_other))
    x = tnp.where(p > dt(1.0 - np.exp(-2.0)), x, -x)
    inf = tnp.full_like(p, np.inf)
    return tnp.where(p == 0, -inf, tnp.where(p == 1, inf, x))


# log_ndtr switches to its asymptotic series below LOWER and to -ndtr(-x) above UPPER.
_LOG_NDTR_BOUNDS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}


def _log_ndtr_series(x: Any, series_order: int) -> Any:
    dt = x.dtype.type
    x_2 = x * x
    even = tnp.zeros_like(x)
    odd = tnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = dt(np.prod(np.arange(2 * n - 1, 1, -2))) / x_2n
        if n % 2:
            odd = odd + y
        else:
            even = even + y
        x_2n = x_2n * x_2
    return dt(1.0) + even - odd


def _log_ndtr_lower(x: Any, series_order: int) -> Any:
    dt = x.dtype.type
    log_scale = -dt(0.5) * (x * x) - tnp.log(-x) - dt(0.5 * np.log(2.0 * np.pi))
    return log_scale + tnp.log(_log_ndtr_series(x, series_order))


def _log_ndtr_impl(x: Any, series_order: int) -> Any:
    x = _check_float("log_ndtr", x)
    lower, upper = _LOG_NDTR_BOUNDS[x.dtype]
    above = x > upper
    ndtr_res = _ndtr(tnp.where(above, -x, tnp.maximum(x, lower)))
    return tnp.where(
        above,
        -ndtr_res,
        tnp.where(
            x > lower, tnp.log(ndtr_res), _log_ndtr_lower(tnp.minimum(x, lower), series_order)
        ),
    )


@functools.cache
def _log_ndtr_fn(series_order: int) -> Any:
    def impl(x: Array) -> Array:
        return cast(Array, _log_ndtr_impl(x, series_order))

    def jvp(primals: tuple[Array, ...], tangents: tuple[Array, ...]) -> tuple[Array, Array]:
        (x,), (t,) = primals, tangents
        x = _arr(x)
        ans = impl(x)
        norm_logpdf = -0.5 * (x * x) - x.dtype.type(np.log(np.sqrt(2 * np.pi)))
        return ans, t * tnp.exp(norm_logpdf - ans)

    fn = custom_jvp(impl)
    fn.defjvp(jvp)
    return fn


def log_ndtr(x: ArrayLike, series_order: int = 3) -> Array:
    """``log(ndtr(x))``, accurate far into both tails.

    Below -20 (float64) or -10 (float32) an asymptotic series of
    ``series_order`` terms is used; above 8 (5) the value is ``-ndtr(-x)``.
    The derivative is ``exp(norm.logpdf(x) - log_ndtr(x))``.

    Args:
        x: a float32 or float64 array.
        series_order: terms of the asymptotic series, a Python int in ``[0, 30]``.

    Returns:
        ``log(P(X <= x))`` for ``X ~ N(0, 1)``.

    Example:
        >>> print(round(float(log_ndtr(-20.0)), 3))
        -203.917
    """
    if not isinstance(series_order, int):
        raise TypeError("log_ndtr: series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("log_ndtr: series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("log_ndtr: series_order must be <= 30.")
    return cast(Array, _log_ndtr_fn(series_order)(_check_float("log_ndtr", x)))
