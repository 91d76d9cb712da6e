"""Integer-valued and index samplers: randint, choice, permutation, poisson, ..."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, SupportsIndex, TypeAlias, cast

import numpy as np
from numpy.typing import DTypeLike

from ._config import canonical_dtype, canonical_shape, default_int
from ._continuous import gumbel_data, shape_or_params
from ._keys import KeyLike, check_key
from ._namespace import ArrayLike, Namespace, PrngArray, backend_ops, namespace_of
from ._sampling import (
    as_param,
    bernoulli_data,
    check_shape,
    float_param,
    int_dtype,
    is_float,
    param_dtype,
    quiet,
    rademacher_data,
    shape_of,
    uniform_data,
    xdtype,
)
from ._threefry import random_bits_data, split_data

__all__ = [
    "bernoulli",
    "categorical",
    "choice",
    "geometric",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "shuffle",
]

Array: TypeAlias = PrngArray
Shape = Sequence[int]


def _clip_cast(xp: Namespace, val: Array, src: np.dtype[Any], dst: np.dtype[Any]) -> Array:
    lo = max(np.iinfo(dst).min, np.iinfo(src).min)
    hi = min(np.iinfo(dst).max, np.iinfo(src).max)
    return xp.astype(xp.clip(val, lo, hi), xdtype(xp, dst))


def randint_data(
    data: Array, shape: tuple[int, ...], minval: ArrayLike, maxval: ArrayLike, dt: np.dtype[Any]
) -> Array:
    xp = namespace_of(data)
    lo_dt = param_dtype(minval)
    hi_dt = param_dtype(maxval)
    lo_dt = lo_dt if lo_dt.kind in "iu" else default_int()
    hi_dt = hi_dt if hi_dt.kind in "iu" else default_int()
    lo = as_param(xp, minval, lo_dt)
    hi = as_param(xp, maxval, hi_dt)
    work = shape if shape else (1,)
    lo = xp.reshape(lo, (1,) * (len(work) - len(lo.shape)) + tuple(lo.shape))
    hi = xp.reshape(hi, (1,) * (len(work) - len(hi.shape)) + tuple(hi.shape))
    dmax = min(np.iinfo(dt).max, np.iinfo(hi_dt).max)
    dmax = max(dmax, np.iinfo(hi_dt).min)
    out_of_range = hi > dmax
    lo = _clip_cast(xp, lo, lo_dt, dt)
    hi = _clip_cast(xp, hi, hi_dt, dt)
    nbits = np.iinfo(dt).bits
    udt = xdtype(xp, np.dtype(f"uint{nbits}"))
    keys = split_data(data, (2,))
    higher = random_bits_data(keys[0, ...], nbits, work)
    lower = random_bits_data(keys[1, ...], nbits, work)
    span = xp.astype(hi, udt) - xp.astype(lo, udt)
    one = xp.asarray(1, dtype=udt)
    span = xp.where(hi <= lo, one, span)
    span = xp.where(out_of_range & (hi > lo), span + one, span)
    mult = xp.asarray(2 ** (nbits // 2), dtype=udt) % span
    mult = (mult * mult) % span
    offset = (higher % span) * mult + (lower % span)
    offset = offset % span
    out = xp.astype(xp.astype(lo, udt) + offset, xdtype(xp, dt))
    return xp.reshape(out, shape)


@quiet
def randint(
    key: KeyLike,
    /,
    shape: Shape,
    minval: ArrayLike,
    maxval: ArrayLike,
    dtype: DTypeLike | None = None,
) -> Array:
    """Sample integers uniformly from ``[minval, maxval)``.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        minval: inclusive lower bound(s), broadcastable to ``shape``.
        maxval: exclusive upper bound(s), broadcastable to ``shape``.
        dtype: an integer dtype; default ``int32`` (``int64`` with x64).

    Returns:
        An integer array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, randint
        >>> x = randint(key(0), (5,), 0, 10)
        >>> bool(((x >= 0) & (x < 10)).all())
        True
    """
    data, _ = check_key("randint", key)
    dt = int_dtype("randint", dtype, error=TypeError)
    shp = canonical_shape("randint", shape)
    check_shape("randint", shp, shape_of(minval), shape_of(maxval))
    if np.iinfo(dt).bits < 32:
        xp = namespace_of(data)
        info = np.iinfo(dt)
        i32 = np.dtype("int32")
        minval = xp.clip(as_param(xp, minval, i32), int(info.min), int(info.max))
        maxval = xp.clip(as_param(xp, maxval, i32), int(info.min), int(info.max) + 1)
        out = randint_data(data, shp, minval, maxval, i32)
        return xp.astype(out, xdtype(xp, dt))
    return randint_data(data, shp, minval, maxval, dt)


@quiet
def bernoulli(
    key: KeyLike, /, p: ArrayLike = 0.5, shape: Shape | None = None, mode: str = "low"
) -> Array:
    """Sample booleans that are True with probability ``p``.

    Args:
        key: a single typed or raw key.
        p: probabilities, of a float dtype.
        shape: the result shape; default ``p``'s shape.
        mode: ``"low"`` (default) or ``"high"`` (finer resolution for tiny ``p``).

    Returns:
        A boolean array.

    Example:
        >>> from tessela_prng import key, bernoulli
        >>> bernoulli(key(0), 0.5, (4,)).dtype
        dtype('bool')
    """
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = check_key("bernoulli", key)
    dt = param_dtype(p)
    if not is_float(dt):
        raise TypeError(
            f"bernoulli probability `p` must have a floating dtype, got {dt}; pass e.g. p=0.5."
        )
    shp = shape_or_params("bernoulli", shape, p)
    xp = namespace_of(data)
    return bernoulli_data(data, as_param(xp, p, dt), shp, mode)


@quiet
def rademacher(key: KeyLike, /, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Sample random signs, ``-1`` or ``+1`` with equal probability.

    Args:
        key: a single typed or raw key.
        shape: the result shape.
        dtype: the result dtype; default ``int32``.

    Returns:
        An array of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, rademacher
        >>> sorted(set(rademacher(key(0), (20,)).tolist()))
        [-1, 1]
    """
    data, _ = check_key("rademacher", key)
    dt = default_int() if dtype is None else canonical_dtype(dtype)
    return rademacher_data(data, canonical_shape("rademacher", shape), dt)


@quiet
def geometric(
    key: KeyLike, /, p: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample the number of Bernoulli(``p``) trials up to the first success.

    Args:
        key: a single typed or raw key.
        p: success probabilities.
        shape: the result shape; default ``p``'s shape.
        dtype: an integer dtype; default ``int32``.

    Returns:
        Positive integers of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, geometric
        >>> bool((geometric(key(0), 0.3, (10,)) >= 1).all())
        True
    """
    data, _ = check_key("geometric", key)
    dt = int_dtype("geometric", dtype)
    shp = shape_or_params("geometric", shape, p)
    xp = namespace_of(data)
    parr, pdt = float_param(xp, p)
    u = uniform_data(data, shp, pdt)
    u = xp.where(u == 0, xp.asarray(1.0, dtype=xdtype(xp, pdt)), u)
    g = xp.floor(xp.log(u) / xp.broadcast_to(xp.log1p(-parr), shp)) + 1.0
    return xp.astype(g, xdtype(xp, dt))


def _shuffle_data(data: Array, x: Array, axis: int) -> Array:
    xp = namespace_of(data)
    ops = backend_ops(data)
    size = math.prod(x.shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    shape = tuple(x.shape)
    x = xp.moveaxis(x, axis, -1)
    for _ in range(rounds):
        keys = split_data(data, (2,))
        data = keys[0, ...]
        sort_keys = xp.moveaxis(random_bits_data(keys[1, ...], 32, shape), axis, -1)
        x = ops.sort_key_val(sort_keys, x)
    return xp.moveaxis(x, -1, axis)


def _as_array(xp: Namespace, x: Any) -> Array:
    if hasattr(x, "__array_namespace__") and namespace_of(x) is xp:
        return cast(Array, x)
    return as_param(xp, x)


def _canonical_axis(name: str, axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}.")
    return axis % ndim


@quiet
def permutation(key: KeyLike, /, x: ArrayLike, axis: int = 0, independent: bool = False) -> Array:
    """Randomly permute ``range(x)`` or the entries of ``x`` along ``axis``.

    Args:
        key: a single typed or raw key.
        x: an integer ``n`` (permute ``arange(n)``) or an array.
        axis: the axis to permute.
        independent: permute each slice along ``axis`` independently.

    Returns:
        The permuted array.

    Example:
        >>> from tessela_prng import key, permutation
        >>> sorted(permutation(key(0), 5).tolist())
        [0, 1, 2, 3, 4]
    """
    data, _ = check_key("permutation", key)
    xp = namespace_of(data)
    if not shape_of(x):
        if param_dtype(x).kind not in "iu":
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = operator.index(cast(SupportsIndex, x))  # an integer scalar (checked above)
        return _shuffle_data(data, xp.arange(n, dtype=xdtype(xp, default_int())), 0)
    arr = _as_array(xp, x)
    axis = _canonical_axis("permutation", axis, len(arr.shape))
    if independent or len(arr.shape) == 1:
        return _shuffle_data(data, arr, axis)
    idx = _shuffle_data(data, xp.arange(arr.shape[axis], dtype=xdtype(xp, default_int())), 0)
    return xp.take(arr, idx, axis=axis)


@quiet
def shuffle(key: KeyLike, /, x: ArrayLike, axis: int = 0) -> Array:
    """Shuffle the entries of ``x`` along ``axis`` (each slice independently).

    Args:
        key: a single typed or raw key.
        x: an array.
        axis: the axis to shuffle.

    Returns:
        The shuffled array; equals ``permutation(key, x, axis, independent=True)``.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import key, shuffle
        >>> sorted(shuffle(key(0), np.arange(4)).tolist())
        [0, 1, 2, 3]
    """
    data, _ = check_key("shuffle", key)
    xp = namespace_of(data)
    arr = _as_array(xp, x)
    if not arr.shape:
        raise TypeError("shuffle: x must be at least 1-dimensional; use permutation(key, n).")
    return _shuffle_data(data, arr, _canonical_axis("shuffle", axis, len(arr.shape)))


@quiet
def choice(
    key: KeyLike,
    /,
    a: ArrayLike,
    shape: Shape = (),
    replace: bool = True,
    p: ArrayLike | None = None,
    axis: int = 0,
    mode: str | None = None,
) -> Array:
    """Sample from ``range(a)`` or from the entries of ``a`` along ``axis``.

    Args:
        key: a single typed or raw key.
        a: an integer population size or an array.
        shape: the number (shape) of draws.
        replace: draw with replacement.
        p: optional probabilities of each entry.
        axis: the axis of ``a`` to sample along.
        mode: the gumbel mode used for weighted sampling without replacement.

    Returns:
        The sampled entries.

    Example:
        >>> from tessela_prng import key, choice
        >>> choice(key(0), 10, (3,), replace=False).shape
        (3,)
    """
    data, _ = check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(
            f"shape argument of choice must be a sequence, got {shape!r}; pass e.g. shape=(3,)."
        )
    shp = canonical_shape("choice", shape)
    xp = namespace_of(data)
    arr = _as_array(xp, a)
    if not arr.shape:
        n_inputs = operator.index(cast(SupportsIndex, a))
    else:
        axis = _canonical_axis("choice", axis, len(arr.shape))
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shp)
    if n_draws == 0:
        return xp.zeros(shp, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
            "when 'replace=False'"
        )
    idt = xdtype(xp, default_int())
    if p is None:
        if replace:
            ind = randint_data(data, shp, 0, n_inputs, default_int())
        else:
            perm = _shuffle_data(data, xp.arange(n_inputs, dtype=idt), 0)
            ind = perm[:n_draws]
        ind = xp.reshape(ind, (n_draws,))
    else:
        parr, pdt = float_param(xp, p)
        if tuple(parr.shape) != (n_inputs,):
            raise ValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {tuple(parr.shape)} and a.shape[axis] is {n_inputs}."
            )
        if replace:
            cuml = xp.cumulative_sum(parr)
            r = cuml[-1] * (1.0 - uniform_data(data, shp, pdt))
            ind = xp.astype(xp.searchsorted(cuml, xp.reshape(r, (n_draws,))), idt)
        else:
            g = gumbel_data(data, (n_inputs,), pdt, mode or "low") + xp.log(parr)
            ind = xp.astype(backend_ops(data).top_k(g, n_draws), idt)
    if not arr.shape:
        return xp.reshape(ind, shp)
    out = xp.take(arr, ind, axis=axis)
    return xp.reshape(out, tuple(arr.shape[:axis]) + shp + tuple(arr.shape[axis + 1 :]))


@quiet
def categorical(
    key: KeyLike,
    /,
    logits: ArrayLike,
    axis: int = -1,
    shape: Shape | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> Array:
    """Sample category indices from unnormalized log-probabilities.

    Args:
        key: a single typed or raw key.
        logits: log-probabilities; categories run along ``axis``.
        axis: the category axis.
        shape: the result shape; must end with the batch shape of ``logits``.
        replace: sample with replacement.
        mode: the gumbel mode (``"low"`` by default).

    Returns:
        Integer indices of ``shape``.

    Example:
        >>> import numpy as np
        >>> from tessela_prng import key, categorical
        >>> categorical(key(0), np.log(np.array([0.1, 0.9])), shape=(4,)).shape
        (4,)
    """
    data, _ = check_key("categorical", key)
    xp = namespace_of(data)
    lg = _as_array(xp, logits)
    ndim = len(lg.shape)
    ax = _canonical_axis("categorical", axis, ndim)
    batch_shape = tuple(d for i, d in enumerate(lg.shape) if i != ax)
    if shape is None:
        shp = batch_shape
    else:
        shp = canonical_shape("categorical", shape)
        check_shape("categorical", shp, batch_shape)
    prefix = shp[: len(shp) - len(batch_shape)]
    dt = param_dtype(lg)
    gmode = mode or "low"
    idt = xdtype(xp, default_int())
    if replace:
        logits_shape = list(shp[len(shp) - len(batch_shape) :])
        logits_shape.insert(ax, lg.shape[ax])
        g = gumbel_data(data, (*prefix, *logits_shape), dt, gmode)
        full = g + xp.reshape(lg, (1,) * len(prefix) + tuple(lg.shape))
        return xp.astype(xp.argmax(full, axis=len(prefix) + ax), idt)
    noisy = lg + gumbel_data(data, tuple(lg.shape), dt, gmode)
    k = math.prod(prefix)
    if k > lg.shape[ax]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number of "
            f"categories ({lg.shape[ax]})."
        )
    top = backend_ops(data).top_k(xp.moveaxis(noisy, ax, -1), k)
    top = xp.moveaxis(xp.astype(top, idt), -1, 0)
    return xp.reshape(top, shp)


# ----------------------------------------------------------------------------
# poisson


def _max_iters(xp: Any, dt: np.dtype[Any]) -> Array:
    # The loops' bound, an array of the sample dtype (as JAX's): the loop counter
    # is a traced value under jit, so the bound is compared with it, never read
    # off it with int().
    bound: Array = xp.asarray(np.iinfo(dt).max, dtype=xdtype(xp, dt))
    return bound


def _poisson_knuth(data: Array, lam: Array, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    xp = namespace_of(data)
    f32 = np.dtype("float32")
    max_iters = _max_iters(xp, dt)

    def cond(state: tuple[Array, ...]) -> Array:
        i, _, _, log_prod = state
        return xp.any(log_prod > -lam) & (i < max_iters)

    def body(state: tuple[Array, ...]) -> tuple[Array, ...]:
        i, k, rng, log_prod = state
        keys = split_data(rng, (2,))
        k = xp.where(log_prod > -lam, k + 1, k)
        u = uniform_data(keys[1, ...], shape, f32)
        return (i + 1, k, keys[0, ...], log_prod + xp.log(u))

    init = (
        0,
        xp.zeros(shape, dtype=xdtype(xp, dt)),
        data,
        xp.zeros(shape, dtype=xp.float32),
    )
    k = backend_ops(data).while_loop(cond, body, init)[1]
    return xp.astype(k - 1, xdtype(xp, dt))


def _poisson_rejection(data: Array, lam: Array, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    xp = namespace_of(data)
    ops = backend_ops(data)
    f32 = np.dtype("float32")
    log_lam = xp.log(lam)
    b = 0.931 + 2.53 * xp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2.0)
    max_iters = _max_iters(xp, dt)

    def cond(state: tuple[Array, ...]) -> Array:
        i, _, accepted, _ = state
        return xp.any(~accepted) & (i < max_iters)

    def body(state: tuple[Array, ...]) -> tuple[Array, ...]:
        i, k_out, accepted, rng = state
        keys = split_data(rng, (3,))
        u = uniform_data(keys[1, ...], shape, f32) - 0.5
        v = uniform_data(keys[2, ...], shape, f32)
        us = 0.5 - xp.abs(u)
        k = xp.floor((2.0 * a / us + b) * u + lam + 0.43)
        s = xp.log(v * inv_alpha / (a / (us * us) + b))
        t = -lam + k * log_lam - ops.lgamma(k + 1.0)
        accept1 = (us >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        accept2 = s <= t
        accept = accept1 | (~reject & accept2)
        k_out = xp.where(accept, k, k_out)
        return (i + 1, k_out, accepted | accept, keys[0, ...])

    init = (
        0,
        xp.full(shape, -1.0, dtype=xp.float32),
        xp.zeros(shape, dtype=xp.bool),
        data,
    )
    k = ops.while_loop(cond, body, init)[1]
    return xp.astype(k, xdtype(xp, dt))


@quiet
def poisson(
    key: KeyLike, /, lam: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Sample Poisson counts with rate(s) ``lam``.

    Args:
        key: a single typed or raw key.
        lam: rate parameter(s).
        shape: the result shape; default ``lam``'s shape.
        dtype: an integer dtype; default ``int32``.

    Returns:
        Non-negative integers of ``shape`` and ``dtype``.

    Example:
        >>> from tessela_prng import key, poisson
        >>> bool((poisson(key(0), 3.0, (10,)) >= 0).all())
        True
    """
    data, _ = check_key("poisson", key)
    dt = int_dtype("poisson", dtype)
    xp = namespace_of(data)
    shp = canonical_shape("poisson", shape) if shape is not None else shape_of(lam)
    lam_arr = xp.broadcast_to(as_param(xp, lam, np.dtype("float32")), shp)
    work = shp if shp else (1,)
    lam_arr = xp.reshape(lam_arr, work)
    use_knuth = xp.isnan(lam_arr) | (lam_arr < 10.0)
    lam_knuth = xp.where(use_knuth, lam_arr, 0.0)
    lam_rej = xp.where(use_knuth, 100000.0, lam_arr)
    knuth = _poisson_knuth(data, lam_knuth, work, dt)
    rej = _poisson_rejection(data, lam_rej, work, dt)
    out = xp.where(use_knuth, knuth, rej)
    out = xp.where(lam_arr == 0, xp.zeros_like(out), out)
    return xp.reshape(out, shp)
