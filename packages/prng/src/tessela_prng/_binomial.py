"""Binomial and multinomial samplers (inversion and BTRS rejection)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import DTypeLike

from ._config import canonical_shape
from ._continuous import shape_or_params
from ._keys import KeyLike, check_key
from ._namespace import ArrayLike, Namespace, PrngArray, backend_ops, namespace_of
from ._sampling import (
    as_param,
    broadcast_shapes,
    float_dtype,
    float_param,
    param_dtype,
    quiet,
    uniform_data,
    xdtype,
)
from ._threefry import split_data

__all__ = ["binomial", "multinomial"]

Array: TypeAlias = PrngArray
Shape = Sequence[int]


_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.010411265261972,
    0.00925546218271273,
    0.00833056343336287,
)


def _typed(xp: Namespace, like: Array) -> Callable[[float], Array]:
    # Python constants as 0-d arrays of ``like``'s dtype: JAX takes a Python
    # float weakly (rounded to the array's dtype), where NumPy promotes the
    # mix of an ml_dtypes array (bfloat16) and a Python float to float32.
    dt = like.dtype
    return lambda v: xp.asarray(v, dtype=dt)


def _stirling_tail(xp: Namespace, k: Array) -> Array:
    c = _typed(xp, k)
    table = xp.asarray(_STIRLING_TAIL, dtype=k.dtype)
    use_table = k <= c(9.0)
    kc = xp.clip(k, c(0.0), c(9.0))
    one = c(1.0)
    kp1sq = (kc + one) * (kc + one)
    approx = (c(1.0 / 12) - (c(1.0 / 360) - c(1.0 / 1260) / kp1sq) / kp1sq) / (kc + one)
    # Only the rows that use the table read it: a NaN k (a narrow float's
    # overflow) indexes row 0, where XLA's gather clamps whatever index it gets.
    idx = xp.reshape(xp.astype(xp.floor(xp.where(use_table, kc, c(0.0))), xp.int32), (-1,))
    looked = xp.reshape(xp.take(table, idx), k.shape)
    return xp.where(use_table, looked, approx)


def _binomial_inversion(data: Array, count: Array, prob: Array, shape: tuple[int, ...]) -> Array:
    xp = namespace_of(data)
    ops = backend_ops(data)
    dt = param_dtype(prob)
    c = _typed(xp, prob)
    log1mp = xp.log1p(-prob)

    def cond(state: tuple[Array, ...]) -> Array:
        return xp.any(state[2] <= count)

    def body(state: tuple[Array, ...]) -> tuple[Array, ...]:
        i, num_geom, geom_sum, rng = state
        keys = split_data(rng, (2,))
        num_geom = xp.where(geom_sum <= count, num_geom + c(1.0), num_geom)
        u = uniform_data(keys[0, ...], shape, dt)
        geom = xp.ceil(xp.log(u) / log1mp)
        return (i + 1, num_geom, geom_sum + geom, keys[1, ...])

    zeros = xp.zeros(shape, dtype=prob.dtype)
    k = ops.while_loop(cond, body, (0, zeros, zeros, data))[1]
    return k - c(1.0)


def _btrs(data: Array, count: Array, prob: Array, shape: tuple[int, ...]) -> Array:
    xp = namespace_of(data)
    ops = backend_ops(data)
    dt = param_dtype(prob)
    c = _typed(xp, prob)
    one, half = c(1.0), c(0.5)
    stddev = xp.sqrt(count * prob * (one - prob))
    b = c(1.15) + c(2.53) * stddev
    a = c(-0.0873) + c(0.0248) * b + c(0.01) * prob
    cc = count * prob + half
    v_r = c(0.92) - c(4.2) / b
    r = prob / (one - prob)
    alpha = (c(2.83) + c(5.1) / b) * stddev
    m = xp.floor((count + one) * prob)

    def cond(state: tuple[Array, ...]) -> Array:
        return xp.any(~state[2])

    def body(state: tuple[Array, ...]) -> tuple[Array, ...]:
        i, k_out, accepted, rng = state
        keys = split_data(rng, (3,))
        u = uniform_data(keys[1, ...], shape, dt)
        v = uniform_data(keys[2, ...], shape, dt)
        u = u - half
        us = half - xp.abs(u)
        accept1 = (us >= c(0.07)) & (v <= v_r)
        k = xp.floor((c(2.0) * a / us + b) * u + cc)
        reject = (k < c(0.0)) | (k > count)
        v = xp.log(v * alpha / (a / (us * us) + b))
        ub = (
            (m + half) * xp.log((m + one) / (r * (count - m + one)))
            + (count + one) * xp.log((count - m + one) / (count - k + one))
            + (k + half) * xp.log(r * (count - k + one) / (k + one))
            + _stirling_tail(xp, m)
            + _stirling_tail(xp, count - m)
            - _stirling_tail(xp, k)
            - _stirling_tail(xp, count - k)
        )
        accept = accept1 | (~reject & (v <= ub))
        return (i + 1, xp.where(accept, k, k_out), accepted | accept, keys[0, ...])

    init = (0, xp.full(shape, -1.0, dtype=prob.dtype), xp.zeros(shape, dtype=xp.bool), data)
    return ops.while_loop(cond, body, init)[1]


def binomial_data(
    data: Array, n: Array, p: Array, shape: tuple[int, ...], dt: np.dtype[Any]
) -> Array:
    xp = namespace_of(data)
    work = shape if shape else (1,)
    count = xp.reshape(xp.broadcast_to(xp.astype(n, p.dtype), shape), work)
    prob = xp.reshape(xp.broadcast_to(p, shape), work)
    c = _typed(xp, prob)
    zero, one = c(0.0), c(1.0)
    p_lt_half = prob < c(0.5)
    q = xp.where(p_lt_half, prob, one - prob)
    count_bad = xp.isnan(count) | (count < zero)
    count_inf = xp.isinf(count)
    q_nan = xp.isnan(q)
    q_neg = q < zero
    q = xp.where(q_nan | q_neg, c(0.01), q)
    use_inv = count_bad | (count * q <= c(10.0))
    count = xp.floor(count)
    count_inv = xp.where(use_inv, count, zero)
    count_btrs = xp.where(use_inv, c(10000.0), count)
    q_btrs = xp.where(use_inv, c(0.5), q)
    odt = xdtype(xp, dt)
    inv = xp.astype(_binomial_inversion(data, count_inv, q, work), odt)
    btrs = xp.astype(_btrs(data, count_btrs, q_btrs, work), odt)
    samples = xp.where(use_inv, inv, btrs)
    out = _typed(xp, samples)
    invalid = q_neg | q_nan | count_bad
    samples = xp.where(invalid, out(math.nan), samples)
    samples = xp.where(count_inf & ~invalid, out(math.inf), samples)
    keep = p_lt_half | count_bad | q_nan | count_inf
    samples = xp.where(keep, samples, xp.astype(count, odt) - samples)
    return xp.reshape(samples, shape)


@quiet
def binomial(
    key: KeyLike,
    /,
    n: ArrayLike,
    p: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample binomial counts of ``n`` trials with success probability ``p``.

    Args:
        key: a single typed or raw key.
        n: numbers of trials.
        p: success probabilities.
        shape: the result shape; default the parameters' broadcast shape.
        dtype: a float dtype; default ``float32``.

    Returns:
        Counts (as floats) of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, binomial
        >>> x = binomial(key(0), 10, 0.5, (4,))
        >>> bool(((x >= 0) & (x <= 10)).all())
        True
    """
    data, _ = check_key("binomial", key)
    dt = float_dtype("binomial", dtype)
    shp = shape_or_params("binomial", shape, n, p)
    xp = namespace_of(data)
    parr, pdt = float_param(xp, p)
    narr = as_param(xp, n, pdt)
    return binomial_data(data, narr, parr, shp, dt)


@quiet
def multinomial(
    key: KeyLike,
    /,
    n: ArrayLike,
    p: ArrayLike,
    *,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
    unroll: int | bool = 1,
) -> Array:
    """Sample multinomial counts of ``n`` trials over categories with probabilities ``p``.

    Args:
        key: a single typed or raw key.
        n: numbers of trials.
        p: category probabilities along the last axis.
        shape: the result shape (ending with the number of categories).
        dtype: a float dtype; default ``float32``.
        unroll: accepted for signature compatibility; has no effect.

    Returns:
        Counts of ``shape`` whose last axis sums to ``n``.

    Example:
        >>> from tessela_prng import key, multinomial
        >>> float(multinomial(key(0), 20, [0.2, 0.3, 0.5]).sum())
        20.0
    """
    del unroll
    data, _ = check_key("multinomial", key)
    dt = float_dtype("multinomial", dtype)
    xp = namespace_of(data)
    parr, pdt = float_param(xp, p)
    narr = as_param(xp, n, pdt)
    shp = tuple(parr.shape) if shape is None else canonical_shape("multinomial", shape)
    remainder = xp.broadcast_to(narr, shp[:-1])
    probs = xp.moveaxis(xp.broadcast_to(parr, shp), -1, 0)
    remaining = xp.flip(xp.cumulative_sum(xp.flip(probs, axis=0), axis=0), axis=0)
    ratios = probs / xp.where(remaining == 0, 1.0, remaining)
    keys = split_data(data, (shp[-1],))
    counts = []
    for i in range(shp[-1]):
        ratio = xp.clip(ratios[i, ...], 0.0, 1.0)
        cshape = broadcast_shapes("multinomial", tuple(remainder.shape), tuple(ratio.shape))
        count = binomial_data(keys[i, ...], remainder, ratio, cshape, param_dtype(remainder))
        remainder = remainder - count
        counts.append(count)
    return xp.astype(xp.stack(counts, axis=-1), xdtype(xp, dt))
