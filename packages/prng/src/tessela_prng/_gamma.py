"""Gamma-family, binomial-family and multivariate samplers.

Gamma uses Marsaglia and Tsang's rejection method with one key per element;
the per-element loops run as masked whole-array loops through the backend's
``while_loop``, which gives exactly the per-element results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import DTypeLike

from ._config import canonical_shape, default_float
from ._continuous import exponential_data, float_start, shape_or_params
from ._keys import KeyLike, check_key
from ._namespace import ArrayLike, PrngArray, backend_ops, namespace_of
from ._sampling import (
    as_param,
    broadcast_shapes,
    check_shape,
    float_dtype,
    is_float,
    narrow_result,
    normal_data,
    param_dtype,
    quiet,
    rademacher_data,
    shape_of,
    uniform_data,
)
from ._threefry import split_data

__all__ = [
    "ball",
    "beta",
    "chisquare",
    "dirichlet",
    "f",
    "gamma",
    "generalized_normal",
    "loggamma",
    "multivariate_normal",
    "orthogonal",
    "t",
]

Array: TypeAlias = PrngArray
Shape = Sequence[int]


def _gamma_one(keys: Array, alpha: Array, dt: np.dtype[Any], log_space: bool) -> Array:
    xp = namespace_of(keys)
    ops = backend_ops(keys)
    third = float(np.array(1.0 / 3.0, dt))
    boost = alpha >= 1.0
    alpha_orig = alpha
    alpha = xp.where(boost, alpha, alpha + 1.0)
    d = alpha - third
    c = third / xp.sqrt(d)
    pair = split_data(keys, (2,))
    key, subkey = pair[..., 0, :], pair[..., 1, :]

    def active(x2: Array, v: Array, u: Array) -> Array:
        lhs = u >= 1.0 - 0.0331 * (x2 * x2)
        return lhs & (xp.log(u) >= x2 * 0.5 + d * ((1.0 - v) + xp.log(v)))

    def cond(state: tuple[Array, ...]) -> Array:
        return xp.any(active(state[1], state[2], state[3]))

    def inner_cond(state: tuple[Array, ...]) -> Array:
        return xp.any(state[2] <= 0.0)

    def inner_body(state: tuple[Array, ...]) -> tuple[Array, ...]:
        k, x, v = state
        todo = v <= 0.0
        nk = split_data(k, (2,))
        x_new = normal_data(nk[..., 1, :], (), dt)
        v_new = 1.0 + x_new * c
        k = xp.where(todo[..., None], nk[..., 0, :], k)
        return (k, xp.where(todo, x_new, x), xp.where(todo, v_new, v))

    def body(state: tuple[Array, ...]) -> tuple[Array, ...]:
        k, x2, v, u = state
        todo = active(x2, v, u)
        k3 = split_data(k, (3,))
        zero = xp.zeros(alpha.shape, dtype=alpha.dtype)
        _, x, vv = ops.while_loop(inner_cond, inner_body, (k3[..., 1, :], zero, zero - 1.0))
        u_new = uniform_data(k3[..., 2, :], (), dt)
        return (
            xp.where(todo[..., None], k3[..., 0, :], k),
            xp.where(todo, x * x, x2),
            xp.where(todo, vv * vv * vv, v),
            xp.where(todo, u_new, u),
        )

    zeros = xp.zeros(alpha.shape, dtype=alpha.dtype)
    init = (key, zeros, zeros + 1.0, zeros + 2.0)
    v = ops.while_loop(cond, body, init)[2]
    if log_space:
        log_samples = -exponential_data(subkey, (), dt)
        log_boost = xp.where(boost | (log_samples == 0.0), 0.0, log_samples * (1.0 / alpha_orig))
        return xp.log(d) + xp.log(v) + log_boost
    samples = 1.0 - uniform_data(subkey, (), dt)
    boost_f = xp.where(boost, 1.0, xp.pow(samples, 1.0 / alpha_orig))
    return d * v * boost_f


def gamma_data(data: Array, a: Array, dt: np.dtype[Any], log_space: bool) -> Array:
    """Gamma(``a``) samples of ``a``'s shape from a single key."""
    xp = namespace_of(data)
    shape = tuple(a.shape)
    n = math.prod(shape)
    keys = split_data(data, (n,))
    out = _gamma_one(keys, xp.reshape(a, (n,)), dt, log_space)
    return xp.reshape(out, shape)


def _gamma_public(
    name: str,
    key: KeyLike,
    a: ArrayLike,
    shape: Shape | None,
    dtype: DTypeLike | None,
    log_space: bool,
) -> Array:
    data, _ = check_key(name, key)
    dt = float_dtype("gamma", dtype)
    shp = shape_or_params(name, shape, a)
    xp = namespace_of(data)
    alpha = xp.broadcast_to(as_param(xp, a, dt), shp)
    return gamma_data(data, alpha, dt, log_space)


@narrow_result
@quiet
def gamma(
    key: KeyLike, /, a: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the Gamma distribution with shape parameter(s) ``a`` and unit scale.

    Args:
        key: a single typed or raw key.
        a: shape parameter(s), positive.
        shape: the result shape; default ``a``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Positive samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, gamma
        >>> bool((gamma(key(0), 2.0, (5,)) > 0).all())
        True
    """
    return _gamma_public("gamma", key, a, shape, dtype, False)


@narrow_result
@quiet
def loggamma(
    key: KeyLike, /, a: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the log of Gamma(``a``) variates, accurate for small ``a``.

    Args:
        key: a single typed or raw key.
        a: shape parameter(s), positive.
        shape: the result shape; default ``a``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, loggamma
        >>> loggamma(key(0), 0.1, (3,)).shape
        (3,)
    """
    return _gamma_public("loggamma", key, a, shape, dtype, True)


@narrow_result
@quiet
def beta(
    key: KeyLike,
    /,
    a: ArrayLike,
    b: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample the Beta(``a``, ``b``) distribution.

    Args:
        key: a single typed or raw key.
        a: first shape parameter(s).
        b: second shape parameter(s).
        shape: the result shape; default the parameters' broadcast shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Samples in ``[0, 1]`` of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, beta
        >>> x = beta(key(0), 2.0, 3.0, (4,))
        >>> bool(((x >= 0) & (x <= 1)).all())
        True
    """
    data, dt, xp = float_start("beta", key, dtype)
    shp = shape_or_params("beta", shape, a, b)
    keys = split_data(data, (2,))
    aa = xp.broadcast_to(as_param(xp, a, dt), shp)
    bb = xp.broadcast_to(as_param(xp, b, dt), shp)
    lga = gamma_data(keys[0, ...], aa, dt, True)
    lgb = gamma_data(keys[1, ...], bb, dt, True)
    log_max = xp.maximum(lga, lgb)
    ga = xp.exp(lga - log_max)
    gb = xp.exp(lgb - log_max)
    return ga / (ga + gb)


@narrow_result
@quiet
def dirichlet(
    key: KeyLike, /, alpha: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the Dirichlet distribution with concentrations ``alpha``.

    Args:
        key: a single typed or raw key.
        alpha: concentrations; the last axis indexes categories.
        shape: the batch shape; default ``alpha.shape[:-1]``.
        dtype: a float dtype; default ``float32``.

    Returns:
        Samples of shape ``shape + alpha.shape[-1:]`` summing to 1 on the last axis.

    Example:
        >>> from tessela_prng import key, dirichlet
        >>> round(float(dirichlet(key(0), [1.0, 2.0, 3.0]).sum()), 5)
        1.0
    """
    data, dt, xp = float_start("dirichlet", key, dtype)
    ashape = shape_of(alpha)
    if len(ashape) < 1:
        raise ValueError(
            f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(ashape)}; "
            "pass one concentration per category."
        )
    if shape is None:
        shp = ashape[:-1]
    else:
        shp = canonical_shape("dirichlet", shape)
        check_shape("dirichlet", shp, ashape[:-1])
    full = (*shp, ashape[-1])
    a = xp.broadcast_to(as_param(xp, alpha, dt), full)
    lg = gamma_data(data, a, dt, True)
    z = xp.exp(lg - xp.max(lg, axis=-1, keepdims=True))
    return z / xp.sum(z, axis=-1, keepdims=True)


@narrow_result
@quiet
def chisquare(
    key: KeyLike, /, df: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the chi-square distribution with ``df`` degrees of freedom.

    Args:
        key: a single typed or raw key.
        df: degrees of freedom.
        shape: the result shape; default ``df``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Positive samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, chisquare
        >>> chisquare(key(0), 3.0, (2,)).shape
        (2,)
    """
    data, dt, xp = float_start("chisquare", key, dtype)
    shp = shape_or_params("chisquare", shape, df)
    return _chisquare_data(data, as_param(xp, df, dt), shp, dt)


def _chisquare_data(data: Array, df: Array, shp: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    xp = namespace_of(data)
    half = xp.broadcast_to(df / 2.0, shp)
    return xp.exp(gamma_data(data, half, dt, True)) * 2.0


@narrow_result
@quiet
def f(
    key: KeyLike,
    /,
    dfnum: ArrayLike,
    dfden: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample the F distribution.

    Args:
        key: a single typed or raw key.
        dfnum: numerator degrees of freedom.
        dfden: denominator degrees of freedom.
        shape: the result shape; default the parameters' broadcast shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Positive samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, f
        >>> f(key(0), 3.0, 4.0, (2,)).shape
        (2,)
    """
    data, dt, xp = float_start("f", key, dtype)
    shp = shape_or_params("f", shape, dfnum, dfden)
    num_df = as_param(xp, dfnum, dt)
    den_df = as_param(xp, dfden, dt)
    keys = split_data(data, (2,))
    chi_num = _chisquare_data(keys[1, ...], num_df, shp, dt)
    chi_den = _chisquare_data(keys[0, ...], den_df, shp, dt)
    return (chi_num / num_df) / (chi_den / den_df)


@narrow_result
@quiet
def t(
    key: KeyLike, /, df: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample Student's t distribution with ``df`` degrees of freedom.

    Args:
        key: a single typed or raw key.
        df: degrees of freedom.
        shape: the result shape; default ``df``'s shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, t
        >>> t(key(0), 5.0, (3,)).shape
        (3,)
    """
    data, dt, xp = float_start("t", key, dtype)
    shp = shape_or_params("t", shape, df)
    keys = split_data(data, (2,))
    n = normal_data(keys[0, ...], shp, dt)
    half = as_param(xp, df, dt) / 2.0
    g = gamma_data(keys[1, ...], xp.broadcast_to(half, shp), dt, False)
    return n * xp.sqrt(half / g)


@narrow_result
@quiet
def generalized_normal(
    key: KeyLike, /, p: float, shape: Shape = (), dtype: DTypeLike | None = None
) -> Array:
    """Sample the generalized normal distribution with exponent ``p``.

    Args:
        key: a single typed or raw key.
        p: the shape exponent (``2`` is a scaled normal, ``1`` a Laplace).
        shape: the result shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Samples of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, generalized_normal
        >>> generalized_normal(key(0), 1.5, (3,)).shape
        (3,)
    """
    data, dt, _ = float_start("generalized_normal", key, dtype)
    return _generalized_normal_data(data, p, canonical_shape("generalized_normal", shape), dt)


def _generalized_normal_data(
    data: Array, p: Any, shape: tuple[int, ...], dt: np.dtype[Any]
) -> Array:
    xp = namespace_of(data)
    keys = split_data(data, (2,))
    inv = as_param(xp, 1 / p, dt) if isinstance(p, (int, float)) else 1.0 / as_param(xp, p, dt)
    g = gamma_data(keys[0, ...], xp.broadcast_to(inv, shape), dt, False)
    r = rademacher_data(keys[1, ...], shape, dt)
    return r * xp.pow(g, inv)


@narrow_result
@quiet
def ball(
    key: KeyLike, /, d: int, p: float = 2, shape: Shape = (), dtype: DTypeLike | None = None
) -> Array:
    """Sample uniformly from the unit ``p``-norm ball in ``d`` dimensions.

    Args:
        key: a single typed or raw key.
        d: the dimension.
        p: the norm exponent.
        shape: the batch shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Points of shape ``(*shape, d)`` inside the ball.

    Example:
        >>> from tessela_prng import key, ball
        >>> x = ball(key(0), 3, shape=(5,))
        >>> bool(((x ** 2).sum(-1) <= 1).all())
        True
    """
    data, dt, xp = float_start("ball", key, dtype)
    shp = canonical_shape("ball", shape)
    keys = split_data(data, (2,))
    g = _generalized_normal_data(keys[0, ...], p, (*shp, int(d)), dt)
    e = exponential_data(keys[1, ...], shp, dt)
    pp = as_param(xp, p, dt)
    inv = as_param(xp, 1 / p, dt) if isinstance(p, (int, float)) else 1.0 / pp
    norm = xp.pow(xp.sum(xp.pow(xp.abs(g), pp), axis=-1) + e, inv)
    return g / norm[..., None]


# ----------------------------------------------------------------------------
# linear-algebra samplers


@narrow_result
@quiet
def multivariate_normal(
    key: KeyLike,
    /,
    mean: ArrayLike,
    cov: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
    method: str = "cholesky",
) -> Array:
    """Sample the multivariate normal distribution.

    Args:
        key: a single typed or raw key.
        mean: means, shape ``(..., n)``.
        cov: covariances, shape ``(..., n, n)``.
        shape: the batch shape; default the broadcast of the parameters' batch shapes.
        dtype: a float dtype; default ``mean``'s dtype.
        method: ``"cholesky"``, ``"eigh"`` or ``"svd"`` factorization of ``cov``.

    Returns:
        Samples of shape ``shape + mean.shape[-1:]``.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import key, multivariate_normal
        >>> multivariate_normal(key(0), np.zeros(2), np.eye(2), (3,)).shape
        (3, 2)
    """
    data, _ = check_key("multivariate_normal", key)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    xp = namespace_of(data)
    mdt = param_dtype(mean)
    mdt = np.result_type(mdt if is_float(mdt) else default_float(), param_dtype(cov))
    mdt = mdt if is_float(mdt) else default_float()
    dt = mdt if dtype is None else float_dtype("multivariate_normal", dtype)
    mu = as_param(xp, mean, mdt)
    sigma = as_param(xp, cov, mdt)
    if len(mu.shape) < 1:
        raise ValueError(
            f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {len(mu.shape)}"
        )
    if len(sigma.shape) < 2:
        raise ValueError(
            f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {len(sigma.shape)}"
        )
    n = mu.shape[-1]
    if tuple(sigma.shape[-2:]) != (n, n):
        raise ValueError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
            f"cov.shape == {tuple(sigma.shape)}."
        )
    if shape is None:
        shp = broadcast_shapes("multivariate_normal", tuple(mu.shape[:-1]), tuple(sigma.shape[:-2]))
    else:
        shp = canonical_shape("multivariate_normal", shape)
        check_shape("normal", shp, tuple(mu.shape[:-1]), tuple(sigma.shape[:-2]))
    if method == "svd":
        u, s, _ = xp.linalg.svd(sigma)
        factor = u * xp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = xp.linalg.eigh(sigma)
        factor = v * xp.sqrt(w[..., None, :])
    else:
        factor = xp.linalg.cholesky(sigma)
    z = normal_data(data, (*shp, n), dt)
    return mu + xp.matmul(factor, z[..., None])[..., 0]


@narrow_result
@quiet
def orthogonal(
    key: KeyLike, /, n: int, shape: Shape = (), dtype: DTypeLike | None = None, m: int | None = None
) -> Array:
    """Sample uniformly (Haar) from the orthogonal matrices.

    Args:
        key: a single typed or raw key.
        n: the number of rows.
        shape: the batch shape.
        dtype: a float dtype; default ``float32``.
        m: the number of columns; default ``n``.

    Returns:
        Matrices of shape ``(*shape, n, m)`` with orthonormal columns (or rows).

    Example:
        >>> import numpy as np
        >>> from tessela_prng import key, orthogonal
        >>> q = orthogonal(key(0), 3)
        >>> bool(np.allclose(q @ q.T, np.eye(3), atol=1e-5))
        True
    """
    data, dt, xp = float_start("orthogonal", key, dtype, allow_complex=True)
    shp = canonical_shape("orthogonal", shape)
    rows = int(n)
    cols = rows if m is None else int(m)
    z = normal_data(data, (*shp, max(rows, cols), min(rows, cols)), dt)
    q, r = xp.linalg.qr(z)
    d = xp.linalg.diagonal(r)
    x = q * xp.sign(d)[..., None, :]
    return xp.matrix_transpose(x) if rows < cols else x
