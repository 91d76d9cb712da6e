"""``tessela.scipy.special``: JAX's special functions, composed from ``lax`` primitives.

Every function is written with ``tessela_numpy`` and ``tessela_tracer.lax``,
so it traces, batches, differentiates and compiles. Arguments are promoted to
a common inexact dtype as JAX promotes them (integers become the default
float). The normal CDF family (``ndtr``, ``ndtri``, ``log_ndtr``) is in
:mod:`tessela._scipy_ndtr`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, cast, overload

import numpy as np
import tessela_numpy as tnp
from tessela_tracer import custom_jvp, lax
from tessela_tracer import dtypes as _dtypes
from tessela_tracer.typing import Array, ArrayLike

from . import _nn_reduce
from ._scipy_promote import _arr, promote_inexact

__all__ = [
    "beta", "betaln", "comb", "digamma", "entr", "erf", "erfc", "erfinv", "expit", "factorial",
    "gamma", "gammaln", "gammasgn", "kl_div", "log_softmax", "logit", "logsumexp",
    "multigammaln", "polygamma", "rel_entr", "softmax", "xlog1py", "xlogy",
    "zeta",
]  # fmt: skip

Axis = int | Sequence[int] | None


def _reduction_dims(ndim: int, axis: Axis) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    norm = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise ValueError(
                f"logsumexp: axis {ax} is out of bounds for an array of rank {ndim}; "
                f"use an axis in [{-ndim}, {ndim})."
            )
        norm.append(ax % ndim if ndim else ax)
    return tuple(sorted(norm))


@overload
def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
              return_sign: Literal[False] = False, where: ArrayLike | None = None) -> Array: ...  # fmt: skip
@overload
def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False, *,
              return_sign: Literal[True], where: ArrayLike | None = None) -> tuple[Array, Array]: ...  # fmt: skip
@overload
def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None, keepdims: bool = False,
              return_sign: bool = False, where: ArrayLike | None = None) -> Array | tuple[Array, Array]: ...  # fmt: skip


def logsumexp(
    a: ArrayLike,
    axis: Axis = None,
    b: ArrayLike | None = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: ArrayLike | None = None,
) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(a)))`` along ``axis``, computed stably.

    Args:
        a: the exponents.
        axis: the axes to reduce (all by default).
        b: optional scaling factors broadcastable to ``a``; may be negative.
        keepdims: keep reduced axes with length one.
        return_sign: return ``(log|sum|, sign(sum))`` instead of NaN for a
            negative sum.
        where: a boolean mask; only its true entries are summed.

    Returns:
        The reduced array, or the pair ``(value, sign)`` with ``return_sign``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(logsumexp(tnp.array([0.0, 0.0]), b=tnp.array([1.0, -2.0]), return_sign=True))
        (Array(0., dtype=float32), Array(-1., dtype=float32))
    """
    if where is not None:
        a = tnp.where(where, a, 0)
    if b is not None:
        a_arr, b_arr = promote_inexact("logsumexp", a, b)
        a_arr, b_arr = _arr(a_arr), _arr(b_arr)
        a_arr = tnp.where(b_arr != 0, a_arr, -np.inf)
    else:
        (a_arr,) = promote_inexact("logsumexp", a)
        a_arr = _arr(a_arr)
    dims = _reduction_dims(a_arr.ndim, axis)
    amax = tnp.max(tnp.real(a_arr), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(tnp.where(tnp.isfinite(amax), amax, tnp.zeros_like(amax)))
    amax_dims = amax if keepdims else tnp.expand_dims(amax, dims)
    exp_a = tnp.exp(a_arr - amax_dims.astype(a_arr.dtype))
    if b is not None:
        exp_a = exp_a * b_arr
    sumexp = tnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = tnp.sign(sumexp)
    complex_out = _dtypes.issubdtype(a_arr.dtype, np.complexfloating)
    if return_sign or not complex_out:
        sumexp = tnp.abs(sumexp)
    out = tnp.log(sumexp) + amax.astype(sumexp.dtype)
    if return_sign:
        return out, sign
    if b is not None and not complex_out:
        out = tnp.where(sign < 0, _arr(np.nan, dtype=out.dtype), out)
    return out


def softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """SciPy's softmax: ``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default).

    Args:
        x: an array.
        axis: the axes normalised over; ``None`` (SciPy's default) means all.

    Returns:
        Probabilities summing to one over ``axis``.

    Example:
        >>> import tessela.numpy as tnp
        >>> print(softmax(tnp.zeros((2, 2))))
        [[0.25 0.25]
         [0.25 0.25]]
    """
    return _nn_reduce.softmax(x, axis=axis)


def log_softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """SciPy's log-softmax: ``x - logsumexp(x)`` over ``axis`` (all axes by default).

    Args:
        x: an array.
        axis: the axes normalised over; ``None`` (SciPy's default) means all.

    Returns:
        Log-probabilities.
    """
    return _nn_reduce.log_softmax(x, axis=axis)


def expit(x: ArrayLike) -> Array:
    """The logistic sigmoid ``1 / (1 + exp(-x))``.

    Args:
        x: an array.

    Returns:
        Values in ``[0, 1]``.
    """
    (x,) = promote_inexact("expit", x)
    return lax.logistic(_arr(x))


def _logit(x: Any) -> Any:
    (x,) = promote_inexact("logit", x)
    return tnp.log(x / (1 - _arr(x)))


def _logit_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _logit(x), t / (x * (1 - x))


logit: Callable[[Any], Any] = custom_jvp(_logit)
logit.defjvp(_logit_jvp)  # type: ignore[attr-defined]
logit.__doc__ = """The inverse of ``expit``: ``log(x / (1 - x))``.

Args:
    x: values in ``[0, 1]``.

Returns:
    The log-odds; its derivative is ``1 / (x (1 - x))``.

Example:
    >>> print(logit(0.5))
    0.0
"""


def _unary(name: str, op: Callable[[Any], Any], doc: str) -> Callable[[Any], Any]:
    def fn(x: ArrayLike) -> Array:
        (x,) = promote_inexact(name, x)
        return cast(Array, op(_arr(x)))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""{doc}

Args:
    x: a real array (integers are promoted to the default float).

Returns:
    The values, elementwise.
"""
    return fn


erf = _unary("erf", lax.erf, "The error function.")
erfc = _unary("erfc", lax.erfc, "The complementary error function ``1 - erf(x)``.")
erfinv = _unary("erfinv", lax.erf_inv, "The inverse error function.")
gammaln = _unary("gammaln", lax.lgamma, "``log|Gamma(x)|``.")
digamma = _unary("digamma", lax.digamma, "The digamma function ``d/dx log Gamma(x)``.")


def gammasgn(x: ArrayLike) -> Array:
    """The sign of the gamma function (NaN at poles and for NaN or ``-inf``).

    Args:
        x: a real array.

    Returns:
        ``+1`` or ``-1`` elementwise (``-1`` at ``-0.0``).
    """
    (x,) = promote_inexact("gammasgn", x)
    x = _arr(x)
    floor_x = tnp.floor(x)
    negative = x < 0
    nan_mask = (negative & (x == floor_x)) | tnp.isnan(x)
    minus_mask = (negative & (tnp.remainder(floor_x, 2) != 0)) | ((x == 0) & tnp.signbit(x))
    one = tnp.ones_like(x)
    return tnp.where(nan_mask, tnp.full_like(x, np.nan), tnp.where(minus_mask, -one, one))


def gamma(x: ArrayLike) -> Array:
    """The gamma function, as ``gammasgn(x) * exp(gammaln(x))`` for real ``x``.

    Args:
        x: a real array.

    Returns:
        ``Gamma(x)``; NaN at the poles (non-positive integers), ``+-inf`` at ``+-0``.

    Example:
        >>> print(round(float(gamma(5.0)), 3))
        24.0
    """
    (x,) = promote_inexact("gamma", x)
    x = _arr(x)
    if _dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError("gamma: complex inputs are not supported; pass real values.")
    return gammasgn(x) * tnp.exp(lax.lgamma(x))


def _algdiv(a: Any, b: Any) -> Any:
    # log(Gamma(b) / Gamma(a + b)) for b >= 8 (cdflib's algdiv, a <= b).
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * tnp.log1p(a / b)
    v = a * (tnp.log(b) - 1.0)
    return tnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """``log|B(a, b)|``, accurate for large arguments (cdflib's ``algdiv`` when ``b >= 8``).

    Args:
        a: a real array.
        b: a real array broadcastable with ``a``.

    Returns:
        The log of the beta function's magnitude.

    Example:
        >>> print(round(float(betaln(2.0, 3.0)), 5))
        -2.48491
    """
    a, b = (_arr(v) for v in promote_inexact("betaln", a, b))
    lo, hi = tnp.minimum(a, b), tnp.maximum(a, b)
    small_b = lax.lgamma(lo) + (lax.lgamma(hi) - lax.lgamma(lo + hi))
    large_b = lax.lgamma(lo) + _algdiv(lo, hi)
    return tnp.where(hi < 8, small_b, large_b)


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``.

    Args:
        a: a real array.
        b: a real array broadcastable with ``a``.

    Returns:
        ``B(a, b)``.
    """
    a, b = (_arr(v) for v in promote_inexact("beta", a, b))
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * tnp.exp(betaln(a, b))


def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """``n!`` as ``exp(gammaln(n + 1))``; 0 for negative ``n``.

    Args:
        n: a real array.
        exact: must be False (exact integer factorials are not provided, as in JAX).

    Returns:
        Floating-point factorials.

    Example:
        >>> print(round(float(factorial(4)), 3))
        24.0
    """
    if exact:
        raise NotImplementedError("factorial with exact=True; pass exact=False for floats.")
    (n,) = promote_inexact("factorial", n)
    n = _arr(n)
    return tnp.where(n < 0, 0, tnp.exp(lax.lgamma(n + 1)))


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:
    """The number of combinations ``N choose k``, in floating point.

    Args:
        N: the number of things.
        k: the number taken.
        repetition: count combinations with repetition.

    Returns:
        ``N! / (k! (N - k)!)``; 0 outside ``0 <= k <= N``.
    """
    N, k = (_arr(v) for v in promote_inexact("comb", N, k))
    if repetition:
        return tnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    cond = (k <= N) & (N >= 0) & (k >= 0)
    safe_n, safe_k = tnp.where(cond, N, 0.0), tnp.where(cond, k, 0.0)
    result = tnp.exp(gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k))
    return tnp.where(cond, result, 0.0)


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """The ``n``-th derivative of the digamma function.

    Args:
        n: a non-negative integer array (its dtype must be an integer dtype).
        x: a real array.

    Returns:
        ``psi^(n)(x)``.

    Raises:
        ValueError: when ``n`` is not of an integer dtype.
    """
    if not _dtypes.issubdtype(_dtypes.dtype(n), np.integer):
        raise ValueError(
            f"Argument `n` to polygamma must be of integer type. Got dtype {_dtypes.dtype(n)}; "
            "pass an int or an integer array."
        )
    n_arr, x_arr = (_arr(v) for v in promote_inexact("polygamma", n, x))
    return lax.polygamma(*tnp.broadcast_arrays(n_arr, x_arr))


def zeta(x: ArrayLike, q: ArrayLike | None = None) -> Array:
    """The Hurwitz zeta function ``sum_k (k + q)^(-x)``.

    Args:
        x: the exponent (> 1).
        q: the shift; required (the Riemann form ``q=None`` is not provided, as in JAX).

    Returns:
        ``zeta(x, q)``.
    """
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the "
            "Hurwitz Zeta function (q=1 gives the Riemann function)."
        )
    x, q = (_arr(v) for v in promote_inexact("zeta", x, q))
    return lax.zeta(*tnp.broadcast_arrays(x, q))


def _xlogy(x: Any, y: Any) -> Any:
    x, y = (_arr(v) for v in promote_inexact("xlogy", x, y))
    return tnp.where((x != 0) | tnp.isnan(y), x * tnp.log(y), tnp.zeros_like(x * y))


def _xlogy_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x, y), (tx, ty) = primals, tangents
    out = _arr(_xlogy(x, y))
    return out, _arr(tx * tnp.log(y) + ty * x / y, out.dtype)


xlogy: Callable[[Any, Any], Any] = custom_jvp(_xlogy)
xlogy.defjvp(_xlogy_jvp)  # type: ignore[attr-defined]
xlogy.__doc__ = """``x * log(y)``, taken as 0 where ``x == 0`` (unless ``y`` is NaN).

Args:
    x: a real array.
    y: a real array broadcastable with ``x``.

Returns:
    The products.

Example:
    >>> print(xlogy(0.0, 0.0))
    0.0
"""


def _xlog1py(x: Any, y: Any) -> Any:
    x, y = (_arr(v) for v in promote_inexact("xlog1py", x, y))
    return tnp.where((x != 0) | tnp.isnan(y), x * tnp.log1p(y), tnp.zeros_like(x * y))


def _xlog1py_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x, y), (tx, ty) = primals, tangents
    out = _arr(_xlog1py(x, y))
    return out, _arr(tx * tnp.log1p(y) + ty * x / (1 + y), out.dtype)


xlog1py: Callable[[Any, Any], Any] = custom_jvp(_xlog1py)
xlog1py.defjvp(_xlog1py_jvp)  # type: ignore[attr-defined]
xlog1py.__doc__ = """``x * log1p(y)``, taken as 0 where ``x == 0`` (unless ``y`` is NaN).

Args:
    x: a real array.
    y: a real array broadcastable with ``x``.

Returns:
    The products.
"""


def _xlogx_impl(x: Any) -> Any:
    return xlogy(x, x)


def _xlogx_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _xlogx_impl(x), t * (tnp.log(x) + 1)


_xlogx = custom_jvp(_xlogx_impl)
_xlogx.defjvp(_xlogx_jvp)


def _real_only(name: str, x: Any) -> None:
    if _dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs; pass real values.")


def entr(x: ArrayLike) -> Array:
    """Elementwise entropy ``-x log x`` (0 at 0, ``-inf`` for negative ``x``).

    Args:
        x: a real array.

    Returns:
        The entropies.

    Example:
        >>> print(entr(1.0))
        -0.0
    """
    (x,) = promote_inexact("entr", x)
    x = _arr(x)
    _real_only("entr", x)
    return tnp.where(x < 0, tnp.full_like(x, -np.inf), -_xlogx(x))


def rel_entr(p: ArrayLike, q: ArrayLike) -> Array:
    """Relative entropy ``p log(p / q)`` (0 at ``p == 0, q >= 0``, ``inf`` elsewhere off-domain).

    Args:
        p: a real array.
        q: a real array broadcastable with ``p``.

    Returns:
        The elementwise relative entropies.
    """
    p, q = (_arr(v) for v in promote_inexact("rel_entr", p, q))
    _real_only("rel_entr", p)
    both = (p > 0) & (q > 0)
    one_zero = (p == 0) & (q >= 0)
    safe_p, safe_q = tnp.where(both, p, 1), tnp.where(both, q, 1)
    log_val = _xlogx(safe_p) - xlogy(safe_p, safe_q)
    zero = tnp.zeros_like(log_val)
    return tnp.where(both, log_val, tnp.where(one_zero, zero, zero + np.inf))


def kl_div(p: ArrayLike, q: ArrayLike) -> Array:
    """The elementwise Kullback-Leibler term ``rel_entr(p, q) - p + q``.

    Args:
        p: a real array.
        q: a real array broadcastable with ``p``.

    Returns:
        The elementwise divergences.

    Example:
        >>> print(kl_div(1.0, 1.0))
        0.0
    """
    p, q = (_arr(v) for v in promote_inexact("kl_div", p, q))
    _real_only("kl_div", p)
    return rel_entr(p, q) - p + q


def multigammaln(a: ArrayLike, d: int) -> Array:
    """The log of the multivariate gamma function of dimension ``d``.

    Args:
        a: a real array (each entry > ``(d - 1) / 2``).
        d: the dimension, a concrete Python integer.

    Returns:
        ``log Gamma_d(a)``.

    Example:
        >>> print(round(float(multigammaln(2.0, 1)), 6))
        0.0
    """
    try:
        d = int(d)
    except TypeError as err:
        raise TypeError(
            "multigammaln: the d argument must be a concrete integer (not a traced value); "
            "pass a Python int."
        ) from err
    a, d_ = (_arr(v) for v in promote_inexact("multigammaln", a, d))
    constant = 0.25 * d_ * (d_ - 1) * math.log(math.pi)
    b = tnp.arange(d, dtype=d_.dtype) / 2
    res = tnp.sum(gammaln(tnp.expand_dims(a, -1) - b), axis=-1)
    return res + constant
