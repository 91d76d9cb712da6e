"""``jax.scipy.special``: ``hyp1f1``, ``hyp2f1`` and the spherical harmonics ``sph_harm_y``.

As JAX 0.10.2 computes them (Pearson, Olver and Porter, 2014): ``1F1`` sums
its Taylor series for ``|x| < 100`` and its asymptotic series beyond; ``2F1``
picks, per element, a closed form (``x = 0``, ``a`` or ``b`` zero, ``b = c``,
``a = c``, Gauss's value at ``x = 1``), a terminating polynomial (``a`` or
``b`` a non-positive integer), the digamma transformation near ``x = 1``
(AMS 55 15.3.10-12), Euler's transformation when ``c - a - b <= -1``, or the
Taylor series. Series stop at machine precision or after 250 terms. The
derivatives in ``a``, ``b`` and ``c`` are the series of the parameter
derivatives; in ``x`` the contiguous function. ``sph_harm_y`` builds the
normalized associated Legendre functions ``P[m, l](cos theta)`` up to
``n_max`` by three recurrences (the diagonal, the first off-diagonal, then one
sweep per distance ``l - m``) and returns ``P[|m|, n] exp(i |m| phi)``,
conjugated with the sign ``(-1)**m`` for negative orders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import custom_jvp, dtypes, lax
from tessela_tracer.typing import Array, ArrayLike

from ._scipy_promote import _arr, _c, promote_inexact
from ._scipy_special import gamma
from ._vectorize import vectorize

__all__ = ["hyp1f1", "hyp2f1", "sph_harm_y"]

_where: Callable[..., Any] = tnp.where  # the three-argument form: one array


def _eps(x: Any) -> Any:
    return _c(x, dtypes.finfo(x.dtype).eps)


def _series(term0: Any, ratio: Any, x: Any, weight: Any = None, start: float = 1.0) -> Any:
    # sum_k term_k (times weight(k) when given), term_{k+1} = term_k * ratio(k),
    # stopped when a term falls below eps relative to the sum or after 250 terms.
    eps = _eps(x)

    def cond(state: tuple[Array, Array, Array]) -> Array:
        total, k, term = state
        return cast(Array, (k < 250) & (lax.abs(term) / lax.abs(total) > eps))

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        total, k, term = state
        total = total + (term if weight is None else term * weight(k))
        return total, k + 1, term * ratio(k)

    init = (_c(x, start), tnp.asarray(1, dtype=np.int32), term0)
    return lax.while_loop(cond, body, init)[0]


def _hyp1f1_taylor(a: Any, b: Any, x: Any) -> Any:
    return _series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1), x)


def _hyp1f1_asymptotic(a: Any, b: Any, x: Any) -> Any:
    total = _series((b - a) * (1 - a) / x, lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x, x)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * total


def _hyp1f1_scalar(a: Any, b: Any, x: Any) -> Any:
    result = lax.cond(lax.abs(x) < 100, _hyp1f1_taylor, _hyp1f1_asymptotic, a, b, x)
    index = ((a == 0).astype(np.int32) + ((a == b) & (a != 0)).astype(np.int32) * 2
             + ((b == 0) & (a != 0)).astype(np.int32) * 3)  # fmt: skip
    return lax.select_n(index, result, _c(x, 1.0), lax.exp(x), _c(x, np.inf))


def _hyp1f1_da_scalar(a: Any, b: Any, x: Any) -> Any:
    return _series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1), x,
                   lambda k: lax.digamma(a + k) - lax.digamma(a), start=0.0)  # fmt: skip


def _hyp1f1_db_scalar(a: Any, b: Any, x: Any) -> Any:
    return _series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1), x,
                   lambda k: lax.digamma(b) - lax.digamma(b + k), start=0.0)  # fmt: skip


_hyp1f1 = custom_jvp(vectorize(_hyp1f1_scalar))
_hyp1f1_da = vectorize(_hyp1f1_da_scalar)
_hyp1f1_db = vectorize(_hyp1f1_db_scalar)
_hyp1f1.defjvps(
    lambda da, _, a, b, x: _hyp1f1_da(a, b, x) * da,
    lambda db, _, a, b, x: _hyp1f1_db(a, b, x) * db,
    lambda dx, _, a, b, x: a / b * _hyp1f1(a + 1, b + 1, x) * dx,
)


def hyp1f1(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """Kummer's confluent hypergeometric function ``1F1(a; b; x)``.

    Args:
        a: real values.
        b: real values.
        x: real values (all three broadcast together).

    Returns:
        ``sum_k (a)_k / (b)_k x**k / k!``; ``1`` when ``a = 0``, ``exp(x)`` when
        ``a = b``, ``inf`` when ``b = 0``, as JAX's.

    Raises:
        ValueError: complex input.

    Example:
        >>> print(hyp1f1(1.0, 1.0, 0.0))
        1.0
    """
    a, b, x = (_arr(v) for v in promote_inexact("hyp1f1", a, b, x))
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    return cast(Array, _hyp1f1(a, b, x))


def _near_int(v: Any, eps: Any) -> Any:
    return lax.abs(v - tnp.round(v)) < eps


def _hyp2f1_terminal(a: Any, b: Any, c: Any, x: Any) -> Any:
    # a or b a non-positive integer: the series stops after |a| terms. Use the
    # one of larger magnitude unless c would be a pole first.
    eps = _eps(x) * 50
    swap = (b < a) & _near_int(b, eps) & ~((c % 1 == 0) & (c <= 0) & (c > b))
    a, b = _where(swap, b, a), _where(swap, a, b)
    a = lax.abs(a)

    def cond(state: tuple[Array, Array, Array]) -> Array:
        return cast(Array, state[0] < a + 1)

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        i, total, term = state
        term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return i + 1, total + term, term

    one = _c(x, 1.0)
    return lax.while_loop(cond, body, (_c(a, 1.0), one, one))[1]


def _hyp2f1_taylor(a: Any, b: Any, c: Any, x: Any) -> Any:
    eps = _eps(x)

    def cond(state: tuple[Array, Array, Array]) -> Array:
        total, k, term = state
        return cast(Array, (k < 250) & (lax.abs(term) > eps * lax.abs(total)))

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        total, k, term = state
        return total + term, k + 1, term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)

    return lax.while_loop(cond, body, (_c(x, 0.0), _c(x, 1.0), _c(x, 1.0)))[0]


def _hyp2f1_digamma(a: Any, b: Any, c: Any, x: Any) -> Any:
    # x near 1 with c - a - b near an integer: AMS 55 15.3.10-12.
    eps = _eps(x)
    d = c - a - b
    s = 1 - x
    rd = tnp.round(d)
    nonneg = rd >= 0
    e = _where(nonneg, d, -d)
    d1 = _where(nonneg, d, _c(d, 0.0))
    d2 = _where(nonneg, _c(d, 0.0), d)
    ard = _where(nonneg, rd, -rd).astype(np.int32)
    log_s = tnp.log(s)
    psi = lax.digamma
    y = (psi(_c(x, 1.0)) + psi(1.0 + e) - psi(a + d1) - psi(b + d1) - log_s) / gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def cond(state: tuple[Array, Array, Array, Array]) -> Array:
        _, q, t, y = state
        return cast(Array, (t < 250) & (lax.abs(q) >= eps * lax.abs(y)))

    def body(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        p, q, t, y = state
        r = psi(1.0 + t) + psi(1.0 + t + e) - psi(a + t + d1) - psi(b + t + d1) - log_s
        q = p * r
        y = y + q
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y

    _, _, _, y = lax.while_loop(cond, body, (p, y, _c(x, 1.0), y))

    def finite_sum(i: Array, state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        p, t, y1 = state
        p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t))
        t = t + 1.0
        p = p / t
        return p, t, y1 + p

    y1 = lax.fori_loop(1, ard, finite_sum, (_c(x, 1.0), _c(x, 0.0), _c(x, 1.0)))[2]
    gc = gamma(c)
    y1 = y1 * (gamma(e) * gc / (gamma(a + d1) * gamma(b + d1)))
    y2 = y * (gc / (gamma(a + d2) * gamma(b + d2)))
    y2 = _where((ard & 1) != 0, -y2, y2)
    q = s**rd
    summed = _where(rd > 0, y2 * q + y1, y2 + y1 * q)
    return _where(rd == 0, y * gc / (gamma(a) * gamma(b)), summed)


def _hyp2f1_pick(a: Any, b: Any, c: Any, x: Any) -> Any:
    eps = _eps(x) * 50
    d = c - a - b
    terminating = ((a <= 0) & _near_int(a, eps)) | ((b <= 0) & _near_int(b, eps))
    index = _where(
        (x > 0.9) & ~terminating,
        _where(lax.abs(d - tnp.round(d)) >= eps, 0, 1),
        _where(terminating, 2, 0),
    )
    return lax.select_n(index.astype(np.int32), _hyp2f1_taylor(a, b, c, x),
                        _hyp2f1_digamma(a, b, c, x),
                        _hyp2f1_terminal(a, b, c, x))  # fmt: skip


def _hyp2f1_scalar(a: Any, b: Any, c: Any, x: Any) -> Any:
    eps = _eps(x) * 50
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    # The first condition that holds picks the branch (checked from the last).
    conditions = [
        ((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0),
        ((c == 0) | ((c < 0) & (c % 1 == 0)), 1),
        ((d <= -1) & ~((lax.abs(d - tnp.round(d)) >= eps) & (s < 0)), 2),
        ((d <= 0) & (x == 1), 1),
        ((x < 1) & (b == c), 3),
        ((x < 1) & (a == c), 4),
        (x > 1, 1),
        (x == 1, 5),
    ]
    index = tnp.full(x.shape, 6, np.int32)
    for condition, branch in reversed(conditions):
        index = _where(condition, np.int32(branch), index)
    return lax.select_n(
        index.astype(np.int32),
        _c(x, 1.0),
        _c(x, np.inf),
        s**d * _hyp2f1_pick(ca, cb, c, x),
        s ** (-a),
        s ** (-b),
        gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
        _hyp2f1_pick(a, b, c, x),
    )


def _hyp2f1_param_series(weight: Any) -> Any:
    def scalar(a: Array, b: Array, c: Array, x: Array) -> Array:
        return cast(Array, _series(a * b / c * x, lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x,
                                   x, lambda k: weight(a, b, c, k), start=0.0))  # fmt: skip

    return vectorize(scalar)


_hyp2f1 = custom_jvp(vectorize(_hyp2f1_scalar))
_hyp2f1_da = _hyp2f1_param_series(lambda a, b, c, k: lax.digamma(a + k) - lax.digamma(a))
_hyp2f1_db = _hyp2f1_param_series(lambda a, b, c, k: lax.digamma(b + k) - lax.digamma(b))
_hyp2f1_dc = _hyp2f1_param_series(lambda a, b, c, k: lax.digamma(c) - lax.digamma(c + k))
_hyp2f1.defjvps(
    lambda da, _, a, b, c, x: _hyp2f1_da(a, b, c, x) * da,
    lambda db, _, a, b, c, x: _hyp2f1_db(a, b, c, x) * db,
    lambda dc, _, a, b, c, x: _hyp2f1_dc(a, b, c, x) * dc,
    lambda dx, _, a, b, c, x: a * b / c * _hyp2f1(a + 1, b + 1, c + 1, x) * dx,
)


def hyp2f1(a: ArrayLike, b: ArrayLike, c: ArrayLike, x: ArrayLike) -> Array:
    """Gauss's hypergeometric function ``2F1(a, b; c; x)``.

    Args:
        a: real values.
        b: real values.
        c: real values.
        x: real values (all four broadcast together).

    Returns:
        ``sum_k (a)_k (b)_k / (c)_k x**k / k!`` (``inf`` for ``x > 1`` and at the
        poles of ``c``), as JAX's.

    Example:
        >>> print(hyp2f1(1.0, 1.0, 2.0, 0.0))
        1.0
    """
    a, b, c, x = (_arr(v) for v in promote_inexact("hyp2f1", a, b, c, x))
    return cast(Array, _hyp2f1(a, b, c, x))


def _recurrence_coefficients(l_max: int, dtype: Any) -> tuple[Any, Any]:
    # d0[m, l] multiplies x P[m, l-1], d1[m, l] multiplies P[m, l-2].
    m = tnp.arange(l_max + 1, dtype=dtype)[:, None]
    deg = tnp.arange(l_max + 1, dtype=dtype)[None, :]
    l2, m2 = deg * deg, m * m
    d0 = tnp.sqrt((4.0 * l2 - 1.0) / (l2 - m2))
    d1 = tnp.sqrt(((2.0 * deg + 1.0) * ((deg - 1.0) * (deg - 1.0) - m2))
                  / ((2.0 * deg - 3.0) * (l2 - m2)))  # fmt: skip
    above = deg - m
    zero = tnp.zeros((), dtype)
    return _where(above >= 1, d0, zero), _where(above >= 2, d1, zero)


def _normalized_legendre(l_max: int, x: Any) -> Any:
    # (order m, degree l, point) array of the orthonormal P[m, l](x).
    dtype = x.dtype
    n = x.shape[0]
    initial = 0.5 / np.sqrt(np.pi)
    a_idx = tnp.arange(1, l_max + 1, dtype=dtype)
    b_idx = tnp.arange(l_max, dtype=dtype)
    f_a = tnp.cumprod(-1 * tnp.sqrt(1.0 + 0.5 / a_idx))
    f_b = tnp.sqrt(2.0 * b_idx + 3.0)
    p = tnp.zeros((l_max + 1, l_max + 1, n), dtype).at[0, 0].set(initial)
    y = tnp.cumprod(tnp.broadcast_to(tnp.sqrt(1.0 - x * x), (l_max, n)), axis=0)
    idx = np.arange(l_max + 1)
    p = p.at[idx[1:], idx[1:]].set(initial * (f_a[:, None] * y))
    p = p.at[idx[:-1], idx[:-1] + 1].set((f_b[:, None] * x[None, :]) * p[idx[:-1], idx[:-1]])
    d0, d1 = _recurrence_coefficients(l_max, dtype)
    band = tnp.asarray(idx[None, :] - idx[:, None])  # l - m

    def sweep(i: Array, p: Array) -> Array:
        on_band = (band == i).astype(dtype)
        c0, c1 = (d0 * on_band)[:, :, None], (d1 * on_band)[:, :, None]
        return cast(Array, p + (c0 * (tnp.roll(p, 1, axis=1) * x) - c1 * tnp.roll(p, 2, axis=1)))

    if l_max > 1:
        p = lax.fori_loop(2, l_max + 1, sweep, p)
    return p


def sph_harm_y(n: ArrayLike, m: ArrayLike, theta: ArrayLike, phi: ArrayLike,
               diff_n: int | None = None, n_max: int | None = None) -> Array:  # fmt: skip
    """The spherical harmonics ``Y(n, m)(theta, phi)``, orthonormal on the sphere.

    Args:
        n: degrees (``n >= 0``), a 1-D integer array.
        m: orders (``|m| <= n``), one per degree.
        theta: polar angles in ``[0, pi]``, one per degree.
        phi: azimuths in ``[0, 2 pi]``, one per degree.
        diff_n: must be None (derivatives are not provided, as in JAX).
        n_max: the largest degree, static (default ``max(n)``, which needs a
            concrete ``n``); larger degrees are clipped to it.

    Returns:
        A complex 1-D array.

    Raises:
        NotImplementedError: ``diff_n`` given.

    Example:
        >>> import tessela.numpy as tnp
        >>> y = sph_harm_y(tnp.array([0]), tnp.array([0]), tnp.array([0.3]), tnp.array([0.1]))
        >>> print(round(float(y.real[0]), 6))
        0.282095
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported."
        )
    if tnp.isscalar(theta):
        theta = tnp.array([theta])
    if n_max is None:
        n_max = int(np.max(np.asarray(n)))
    n_max = int(n_max)
    n, m, theta, phi = (tnp.asarray(v) for v in (n, m, theta, phi))
    legendre = _normalized_legendre(n_max, tnp.cos(theta))
    value = legendre.at[tnp.abs(m), n, tnp.arange(n.shape[0])].get(mode="clip")
    angle = tnp.abs(m) * phi
    harmonics = lax.complex(value * tnp.cos(angle), value * tnp.sin(angle))
    return cast(Array, _where(m < 0, (-1.0) ** tnp.abs(m) * tnp.conjugate(harmonics), harmonics))
