"""Quantiles and medians: ``quantile``, ``percentile``, ``median`` and their NaN forms.

Each sorts the reduced axes, flattened into one trailing axis (NaNs sort
last), and reads order statistics with ``take_along_axis``: the two
neighbours of each position for the interpolating methods, and for
``"inverted_cdf"`` the first value whose running weight reaches ``q`` of the
slice's total weight (each weight 1 when ``weights`` is None).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, promote_dtypes_inexact, shape_of
from ._eager import run_compiled
from ._reductions import any as _any
from ._reductions import sum as _sum
from ._shape_ops import expand_dims, moveaxis, reshape, squeeze
from ._shapes import canonicalize_axis, normalize_reduction_axes
from ._sorting import sort
from ._take import take_along_axis
from ._ufuncs import (
    add,
    ceil,
    equal,
    floor,
    isnan,
    less,
    less_equal,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    subtract,
    true_divide,
)
from ._where import broadcast_to, clip
from ._where import where as _sel

__all__ = ["median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")
_INT = np.dtype(np.int32)


def _check_arguments(
    name: str, a: Any, q: Any, out: Any, overwrite_input: bool, method: str, weights: Any
) -> None:
    # The checks and exception classes of JAX 0.10.2, in its order.
    check_arraylike(name, a, q)
    if weights is not None:
        check_arraylike(name, weights)
    if out is not None or overwrite_input:
        raise ValueError(
            f"{name}: out and overwrite_input=True are not supported (arrays are immutable); "
            "leave them at their defaults and use the returned array"
        )
    if method not in _METHODS:
        raise ValueError(
            "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
            f"'inverted_cdf'; got method={method!r}"
        )
    if weights is not None:
        if _dt.issubdtype(aval_of(weights).dtype, np.complexfloating):
            raise ValueError(f"{name}: weights cannot be complex; pass real weights")
        if method != "inverted_cdf":
            raise NotImplementedError(
                f"{name}: method={method!r} does not take weights; only "
                "method='inverted_cdf' supports weights"
            )


def _weights_like(name: str, a: Any, weights: Any, axis: Any) -> Any:
    # Weights of a's shape, or of the reduced axes' shape in the order ``axis``
    # names them (broadcast along the other axes), as JAX's.
    shape = shape_of(a)
    w_shape = shape_of(weights)
    if w_shape == shape:
        return weights
    if axis is None:
        raise ValueError(
            f"{name}: weights of shape {w_shape} must have a's shape {shape} when axis is None"
        )
    given = axis if isinstance(axis, tuple) else (axis,)
    ax = tuple(canonicalize_axis(operator.index(i), len(shape)) for i in given)
    want = tuple(shape[i] for i in ax)
    if w_shape != want:
        raise ValueError(
            f"{name}: weights of shape {w_shape} must match the reduction axes {want} "
            f"(or a's shape {shape})"
        )
    order = sorted(range(len(ax)), key=lambda k: ax[k])
    if order != list(range(len(ax))):
        weights = lax.transpose(weights, tuple(order))
    return lax.broadcast_in_dim(weights, shape, tuple(sorted(ax)))


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
    _check_arguments(name, a, q, out, overwrite_input, method, weights)
    # ``a`` first: a narrow integer (int4) has no promotion with ``q``'s float.
    (a,) = promote_dtypes_inexact(a)
    if weights is not None:
        a, weights = promote_dtypes_inexact(a, *promote_dtypes_inexact(weights))
    a, q = promote_dtypes_inexact(a, q)
    if _dt.issubdtype(aval_of(a).dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex input")
    q = convert(q, aval_of(a).dtype)
    shape = shape_of(a)
    axes = normalize_reduction_axes(axis, len(shape))
    if weights is not None:
        weights = convert(_weights_like(name, a, weights, axis), aval_of(a).dtype)
    q_shape = shape_of(q)
    if len(q_shape) > 1:
        raise ValueError(f"q must be a scalar or 1d, got shape {q_shape}")
    kept = [i for i in range(len(shape)) if i not in axes]
    batch = tuple(shape[i] for i in kept)
    n = math.prod(shape[i] for i in axes)
    tail = tuple(range(len(shape) - len(axes), len(shape)))

    def flatten(x: Any) -> Any:
        return reshape(moveaxis(x, axes, tail) if axes else x, (*batch, n))

    flat = flatten(a)
    dt = aval_of(flat).dtype
    nan_in = isnan(flat)
    # NaNs of either sign sort last.
    flat = _sel(nan_in, convert(np.nan, dt), flat)
    if weights is not None:
        srt, w_srt = lax.sort((flat, flatten(weights)), dimension=len(batch), num_keys=1)
    else:
        srt, w_srt = sort(flat, axis=-1), None
    if skip_nans:
        count = _sum(logical_not(nan_in), axis=-1, dtype=dt)
    else:
        count = lax.broadcast_in_dim(np.asarray(n, dt), batch, ())
    qb = reshape(q, (*q_shape, *([1] * len(batch))))
    full = (*q_shape, *batch, n)
    srt_b = broadcast_to(srt, full)

    def read(idx: ArrayLike) -> Array:
        i = expand_dims(convert(idx, _INT), -1)
        return squeeze(take_along_axis(srt_b, broadcast_to(i, (*full[:-1], 1)), axis=-1), -1)

    if n == 0:  # an empty slice: NaN, as NumPy's (the sort holds nothing to read)
        return _finish(broadcast_to(convert(np.nan, dt), (*q_shape, *batch)), shape, axes,
                       q_shape, keepdims)  # fmt: skip
    if method == "inverted_cdf":
        result = _inverted_cdf(srt, w_srt, qb, count, full, read, skip_nans)
        return _finish(result, shape, axes, q_shape, keepdims)
    last = subtract(count, convert(1, dt))
    pos = clip(multiply(qb, last), 0, maximum(last, convert(0, dt)))
    low = floor(pos)
    high = ceil(pos)
    hi_w = subtract(pos, low)
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
    else:
        result = _sel(_any(nan_in, axis=-1), convert(np.nan, dt), result)
    return _finish(result, shape, axes, q_shape, keepdims)


def _inverted_cdf(
    srt: Any, w_srt: Any, qb: Any, count: Any, full: tuple[int, ...], read: Any, skip: bool
) -> Any:
    # The first sorted value whose running weight reaches q times the total
    # (strictly below it for all before). Negative or NaN weights make the
    # slice NaN; NaN values weigh nothing (and make the slice NaN unless skipped).
    dt = aval_of(srt).dtype
    zero = convert(0, dt)
    if w_srt is None:
        w_srt = broadcast_to(convert(1, dt), shape_of(srt))
    bad = logical_or(less(w_srt, zero), isnan(w_srt))
    nan_data = isnan(srt)
    clean = _sel(logical_or(bad, nan_data), zero, w_srt)
    last_axis = len(shape_of(srt)) - 1
    running = lax.cumsum(clean, axis=last_axis)
    total = lax.index_in_dim(running, shape_of(srt)[-1] - 1, last_axis, keepdims=False)
    target = multiply(qb, total)
    below = less(broadcast_to(running, full), expand_dims(target, -1))
    idx = _sum(below, axis=-1, dtype=_INT)
    limit = convert(subtract(count, convert(1, dt)), _INT)
    idx = maximum(minimum(idx, limit), 0)
    result = read(idx)
    if skip:
        force_nan = logical_or(_any(bad, axis=-1), equal(count, zero))
    else:
        force_nan = logical_or(_any(bad, axis=-1), _any(nan_data, axis=-1))
    return _sel(force_nan, convert(np.nan, dt), result)


def _finish(
    result: Any, shape: tuple[int, ...], axes: tuple[int, ...], q_shape: Any, keepdims: bool
) -> Any:
    if keepdims:
        kd = tuple(1 if i in axes else d for i, d in enumerate(shape))
        result = reshape(result, (*q_shape, *kd))
    return result


def _eagerly(
    fn: Any,
    a: Any,
    q: Any,
    axis: Any,
    out: Any,
    overwrite_input: Any,
    method: Any,
    keepdims: Any,
    weights: Any,
) -> Any:
    # Run eagerly, a quantile function is one jitted program per signature, as
    # JAX's (instead of a dispatch per step); None under a trace, or for
    # arguments such a program does not take (the function's checks then run).
    if out is not None or overwrite_input is not False:
        return None
    if weights is None:
        return run_compiled(fn.__name__, fn, (a, q), axis, None, False, method, keepdims)
    return run_compiled(fn.__name__, _WEIGHTED[fn], (a, q, weights), axis, method, keepdims)


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
        ``"nearest"`` (ties go to the lower neighbour, as in JAX), or
        ``"inverted_cdf"`` (the first value whose cumulative weight reaches
        ``q`` of the total).
      keepdims: keep reduced axes as size-1 axes.
      weights: None, or non-negative weights of ``a``'s shape or of the
        reduced axes' shape (in the order ``axis`` names them); only
        ``method="inverted_cdf"`` takes them. A negative or NaN weight makes
        its slice NaN.

    Returns:
      ``q``'s axes followed by the remaining axes, of a floating dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x, q: quantile(x, q, axis=1), S((2, 5), "int32"), S((3,), "f4")).shape
    (3, 2)
    """
    out_ = _eagerly(quantile, a, q, axis, out, overwrite_input, method, keepdims, weights)
    if out_ is not None:
        return unchanged(out_)
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
      weights: as for :func:`quantile` (``method="inverted_cdf"`` only).

    Returns:
      ``q``'s axes followed by the remaining axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanquantile(x, 0.25), S((2, 5), "float32")).shape
    ()
    """
    out_ = _eagerly(nanquantile, a, q, axis, out, overwrite_input, method, keepdims, weights)
    if out_ is not None:
        return unchanged(out_)
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
      weights: as for :func:`quantile` (``method="inverted_cdf"`` only).

    Returns:
      ``q``'s axes followed by the remaining axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: percentile(x, 50.0, axis=0), S((4, 3), "float32")).shape
    (3,)
    """
    out_ = _eagerly(percentile, a, q, axis, out, overwrite_input, method, keepdims, weights)
    if out_ is not None:
        return unchanged(out_)
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
      weights: as for :func:`quantile` (``method="inverted_cdf"`` only).

    Returns:
      ``q``'s axes followed by the remaining axes.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanpercentile(x, 90.0, axis=1), S((4, 3), "float32")).shape
    (4,)
    """
    out_ = _eagerly(nanpercentile, a, q, axis, out, overwrite_input, method, keepdims, weights)
    if out_ is not None:
        return unchanged(out_)
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


def _weighted(fn: Any) -> Any:
    def body(a: Any, q: Any, weights: Any, axis: Any, method: Any, keepdims: Any) -> Any:
        return fn(a, q, axis, None, False, method, keepdims, weights=weights)

    return body


# Each function's program body when ``weights`` are given (an operand).
_WEIGHTED = {fn: _weighted(fn) for fn in (quantile, nanquantile, percentile, nanpercentile)}
