"""Quantiles, medians and weighted statistics (``average``, ``cov``, ``corrcoef``).

Quantiles sort along the reduced axis (NaNs sort last) and read the two
neighbouring order statistics of each position with ``take_along_axis``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import get_current_trace, jit, lax
from tessela_tracer.extend import JaxprTrace
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, promote_dtypes_inexact, shape_of
from ._matrix_ops import diag
from ._moments import mean
from ._products import dot
from ._reductions import any as _any
from ._reductions import sum as _sum
from ._shape_ops import atleast_2d, concatenate, expand_dims, moveaxis, reshape, squeeze
from ._shapes import Axis, canonicalize_axis, normalize_reduction_axes
from ._sorting import sort
from ._take import take_along_axis
from ._ufuncs import (
    add,
    ceil,
    conj,
    equal,
    floor,
    isnan,
    less_equal,
    logical_not,
    maximum,
    multiply,
    real,
    sqrt,
    subtract,
    true_divide,
)
from ._where import broadcast_to, clip
from ._where import where as _sel

__all__ = [
    "average", "corrcoef", "cov", "median", "nanmedian", "nanpercentile",
    "nanquantile", "percentile", "quantile",
]  # fmt: skip


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(
    name: str,
    a: Any,
    q: Any,
    axis: Any,
    out: Any,
    overwrite_input: bool,
    method: str,
    keepdims: bool,
    weights: Any,
    skip_nans: bool,
) -> Any:
    check_arraylike(name, a, q)
    if out is not None:
        raise NotImplementedError(f"{name}: the out argument is not supported")
    if overwrite_input:
        raise ValueError(f"{name}: overwrite_input=True is not supported; arrays are immutable")
    if method not in _METHODS:
        raise ValueError(
            "method can only be 'linear', 'lower', 'higher', 'midpoint' or 'nearest'; "
            f"got method={method!r}"
        )
    if weights is not None:
        raise NotImplementedError(f"{name}: weights are not supported (only weights=None)")
    # ``a`` first: a narrow integer (int4) has no promotion with ``q``'s float.
    a, q = promote_dtypes_inexact(*promote_dtypes_inexact(a), q)
    if _dt.issubdtype(aval_of(a).dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex input")
    q = convert(q, aval_of(a).dtype)
    shape = shape_of(a)
    q_shape = shape_of(q)
    if len(q_shape) > 1:
        raise ValueError(f"q must be a scalar or 1d, got shape {q_shape}")
    axes = normalize_reduction_axes(axis, len(shape))
    kept = [i for i in range(len(shape)) if i not in axes]
    moved = moveaxis(a, axes, tuple(range(len(shape) - len(axes), len(shape)))) if axes else a
    batch = tuple(shape[i] for i in kept)
    n = math.prod(shape[i] for i in axes)
    flat = reshape(moved, (*batch, n))
    srt = sort(flat, axis=-1)
    dt = aval_of(srt).dtype
    nan_in = isnan(flat)
    if skip_nans:
        count = _sum(logical_not(nan_in), axis=-1, dtype=dt)
    else:
        count = lax.broadcast_in_dim(np.asarray(n, dt), batch, ())
    qb = reshape(q, (*q_shape, *([1] * len(batch))))
    pos = multiply(qb, subtract(count, convert(1, dt)))
    pos = clip(pos, 0, maximum(subtract(count, convert(1, dt)), convert(0, dt)))
    low = floor(pos)
    high = ceil(pos)
    hi_w = subtract(pos, low)
    full = (*q_shape, *batch, n)
    srt_b = broadcast_to(srt, full)

    def read(idx: ArrayLike) -> Array:
        i = expand_dims(convert(idx, np.dtype(np.int32)), -1)
        return squeeze(take_along_axis(srt_b, broadcast_to(i, (*full[:-1], 1)), axis=-1), -1)

    lo_v, hi_v = read(low), read(high)
    if method == "linear":
        result = add(multiply(lo_v, subtract(convert(1, dt), hi_w)), multiply(hi_v, hi_w))
    elif method == "lower":
        result = lo_v
    elif method == "higher":
        result = hi_v
    elif method == "midpoint":
        result = multiply(add(lo_v, hi_v), convert(0.5, dt))
    else:
        result = _sel(less_equal(hi_w, convert(0.5, dt)), lo_v, hi_v)
    if skip_nans:
        result = _sel(equal(count, convert(0, dt)), convert(np.nan, dt), result)
    elif n == 0:  # an empty slice: NaN, as NumPy's (it read 0 from the empty sort)
        result = broadcast_to(convert(np.nan, dt), shape_of(result))
    else:
        result = _sel(_any(nan_in, axis=-1), convert(np.nan, dt), result)
    if keepdims:
        kd = tuple(1 if i in axes else d for i, d in enumerate(shape))
        result = reshape(result, (*q_shape, *kd))
    return result


def quantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
) -> Array:
    """The ``q``-th quantiles along the given axes (NaN where a slice holds a NaN).

    Args:
      a: an array-like.
      q: quantiles in ``[0, 1]``, a scalar or 1-D.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      overwrite_input: unsupported; must be ``False``.
      method: ``"linear"``, ``"lower"``, ``"higher"``, ``"midpoint"`` or
        ``"nearest"`` (ties go to the lower neighbour, as in JAX).
      keepdims: keep reduced axes as size-1 axes.
      weights: unsupported; must be ``None``.

    Returns:
      ``q``'s axes followed by the remaining axes, of a floating dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x, q: quantile(x, q, axis=1), S((2, 5), "int32"), S((3,), "f4")).shape
    (3, 2)
    """
    return unchanged(
        _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims, weights, False)
    )


def nanquantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
) -> Array:
    """The ``q``-th quantiles of the non-NaN elements (NaN where there are none).

    Args:
      a: an array-like.
      q: quantiles in ``[0, 1]``, a scalar or 1-D.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      overwrite_input: unsupported; must be ``False``.
      method: as for :func:`quantile`.
      keepdims: keep reduced axes as size-1 axes.
      weights: unsupported; must be ``None``.

    Returns:
      ``q``'s axes followed by the remaining axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanquantile(x, 0.25), S((2, 5), "float32")).shape
    ()
    """
    return unchanged(
        _quantile("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, weights, True)
    )


def percentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
) -> Array:
    """The ``q``-th percentiles: :func:`quantile` of ``q / 100``.

    Args:
      a: an array-like.
      q: percentiles in ``[0, 100]``, a scalar or 1-D.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      overwrite_input: unsupported; must be ``False``.
      method: as for :func:`quantile`.
      keepdims: keep reduced axes as size-1 axes.
      weights: unsupported; must be ``None``.

    Returns:
      ``q``'s axes followed by the remaining axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: percentile(x, 50.0, axis=0), S((4, 3), "float32")).shape
    (3,)
    """
    check_arraylike("percentile", a, q)
    # ``a`` first: a narrow integer (int4) has no promotion with ``q``'s float.
    a, q = promote_dtypes_inexact(*promote_dtypes_inexact(a), q)
    return unchanged(
        quantile(
            a, true_divide(q, 100.0), axis, out, overwrite_input, method, keepdims, weights=weights
        )
    )


def nanpercentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
) -> Array:
    """The ``q``-th percentiles of the non-NaN elements.

    Args:
      a: an array-like.
      q: percentiles in ``[0, 100]``, a scalar or 1-D.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      overwrite_input: unsupported; must be ``False``.
      method: as for :func:`quantile`.
      keepdims: keep reduced axes as size-1 axes.
      weights: unsupported; must be ``None``.

    Returns:
      ``q``'s axes followed by the remaining axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanpercentile(x, 90.0, axis=1), S((4, 3), "float32")).shape
    (4,)
    """
    check_arraylike("nanpercentile", a, q)
    # ``a`` first: a narrow integer (int4) has no promotion with ``q``'s float.
    a, q = promote_dtypes_inexact(*promote_dtypes_inexact(a), q)
    return nanquantile(
        a, true_divide(q, 100.0), axis, out, overwrite_input, method, keepdims, weights=weights
    )


def median(
    a: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> Array:
    """The median along the given axes (NaN where a slice holds a NaN).

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      overwrite_input: unsupported; must be ``False``.
      keepdims: keep reduced axes as size-1 axes.

    Returns:
      The medians, of a floating dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: median(x, axis=0), S((4, 3), "int32")).dtype
    dtype('float32')
    """
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def nanmedian(
    a: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> Array:
    """The median of the non-NaN elements.

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      overwrite_input: unsupported; must be ``False``.
      keepdims: keep reduced axes as size-1 axes.

    Returns:
      The medians.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanmedian(x, 1, keepdims=True), S((4, 3), "float32")).shape
    (4, 1)
    """
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def average(
    a: ArrayLike,
    axis: Axis = None,
    weights: ArrayLike | None = None,
    returned: bool = False,
    keepdims: bool = False,
) -> Array | tuple[Array, Array]:
    """The weighted mean along the given axes.

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      weights: weights of ``a``'s shape, or 1-D weights along a single ``axis``.
      returned: also return the sum of the weights.
      keepdims: keep reduced axes as size-1 axes.

    Returns:
      The averages, or ``(averages, weight sums)`` when ``returned``.

    Raises:
      ValueError: the weights' shape does not fit.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> avg, wsum = eval_shape(
    ...     lambda x, w: average(x, 1, w, returned=True), S((2, 3), "f4"), S((3,), "f4"))
    >>> avg.shape, wsum.shape
    ((2,), (2,))
    """
    check_arraylike("average", a)
    if weights is not None:
        check_arraylike("average", weights)
    key = axis if axis is None or isinstance(axis, int) else tuple(axis)
    args = (a, key, weights, bool(returned), bool(keepdims))
    # JAX's average is a jit with inline=True: in place when a jaxpr is staged,
    # one compiled program (fused as JAX's, so with JAX's last bits) otherwise.
    if isinstance(get_current_trace(), JaxprTrace):
        result: Array | tuple[Array, Array] = _average(*args)
    else:
        result = _average_jit(*args)
    return result


def _average(
    a: Any, axis: Any, weights: Any, returned: bool, keepdims: bool
) -> Array | tuple[Array, Array]:
    shape = shape_of(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        axes = normalize_reduction_axes(axis, len(shape))
        count = math.prod(shape[i] for i in axes)
        wsum = broadcast_to(convert(count, aval_of(avg).dtype), shape_of(avg))
    else:
        a, weights = promote_dtypes_inexact(a, weights)
        w_shape = shape_of(weights)
        if w_shape != shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            # As JAX and NumPy 2: weights of the reduced axes' shape, in the
            # order ``axis`` names them.
            given = axis if isinstance(axis, tuple) else (axis,)
            ax = tuple(canonicalize_axis(operator.index(i), len(shape)) for i in given)
            if w_shape != tuple(shape[i] for i in ax):
                raise ValueError(
                    f"average: weights of shape {w_shape} are not consistent with the shape "
                    f"{shape} of a along axis={axis}; give weights of shape "
                    f"{tuple(shape[i] for i in ax)} or {shape}"
                )
            order = sorted(range(len(ax)), key=lambda k: ax[k])
            if order != list(range(len(ax))):
                weights = lax.transpose(weights, tuple(order))
            weights = lax.broadcast_in_dim(weights, shape, tuple(sorted(ax)))
        wsum = _sum(weights, axis, keepdims=keepdims)
        avg = true_divide(_sum(lax.mul(a, weights), axis, keepdims=keepdims), wsum)
    if returned:
        if shape_of(wsum) != shape_of(avg):
            wsum = broadcast_to(wsum, shape_of(avg))
        return avg, wsum
    return avg


_average_jit = jit(_average, static_argnums=(1, 3, 4))


def cov(
    m: ArrayLike,
    y: ArrayLike | None = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: ArrayLike | None = None,
    aweights: ArrayLike | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """The covariance matrix of variables given as rows (or columns) of ``m``.

    Args:
      m: a 1-D or 2-D array of observations.
      y: more variables, joined to ``m``.
      rowvar: whether rows (``True``) or columns hold the variables.
      bias: normalise by ``N`` instead of ``N - 1``.
      ddof: overrides ``bias``: the divisor is ``N - ddof``.
      fweights: integer frequency weights of the observations.
      aweights: observation weights.
      dtype: the dtype of the computation.

    Returns:
      The ``(n, n)`` covariance matrix (a scalar for one variable).

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(cov, S((3, 10), "float32")).shape
    (3, 3)
    """
    check_arraylike("cov", m)
    if ddof is not None and ddof != operator.index(ddof):
        raise ValueError("ddof must be an integer")
    x = atleast_2d(m)
    if dtype is not None:
        x = convert(x, np.dtype(dtype))
    (x,) = promote_dtypes_inexact(x)
    if not rowvar and shape_of(x)[0] != 1:
        x = lax.transpose(x, (1, 0))
    if y is not None:
        check_arraylike("cov", y)
        yy = atleast_2d(y)
        if not rowvar and shape_of(yy)[0] != 1:
            yy = lax.transpose(yy, (1, 0))
        x = concatenate([x, yy], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w: Any = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else multiply(*promote_dtypes_inexact(w, aweights))
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    dt = aval_of(avg).dtype
    if w is None:
        fact: Any = convert(shape_of(x)[1] - ddof, dt)
    elif ddof == 0:
        fact = w_sum[0]
    elif aweights is None:
        fact = subtract(w_sum[0], convert(ddof, dt))
    else:
        (aw,) = promote_dtypes_inexact(aweights)
        fact = subtract(
            w_sum[0],
            true_divide(
                multiply(convert(ddof, dt), _sum(multiply(convert(w, dt), convert(aw, dt)))),
                w_sum[0],
            ),
        )
    xc = subtract(x, expand_dims(avg, 1))
    xt = (
        lax.transpose(xc, (1, 0))
        if w is None
        else lax.transpose(multiply(xc, convert(w, dt)), (1, 0))
    )
    c = true_divide(dot(xc, conj(xt)), fact)
    return unchanged(squeeze(c))


def corrcoef(
    x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, dtype: DTypeLike | None = None
) -> Array:
    """Pearson correlation coefficients: :func:`cov` normalised by the standard deviations.

    Args:
      x: a 1-D or 2-D array of observations.
      y: more variables, joined to ``x``.
      rowvar: whether rows (``True``) or columns hold the variables.
      dtype: the dtype of the computation.

    Returns:
      The ``(n, n)`` correlation matrix, clipped to ``[-1, 1]`` for real input.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(corrcoef, S((3, 10), "float32")).shape
    (3, 3)
    """
    check_arraylike("corrcoef", x)
    c = cov(x, y, rowvar, dtype=dtype)
    if len(shape_of(c)) == 0:
        return unchanged(true_divide(c, c))
    d = diag(c)
    std = sqrt(real(d))
    c = true_divide(true_divide(c, expand_dims(std, 1)), expand_dims(std, 0))
    if not _dt.issubdtype(aval_of(c).dtype, np.complexfloating):
        c = clip(c, -1, 1)
    return c
