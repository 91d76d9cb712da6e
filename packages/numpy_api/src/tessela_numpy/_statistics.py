"""Weighted statistics: ``average``, ``cov`` and ``corrcoef``.

The quantile family (``quantile``, ``percentile``, ``median`` and their NaN
forms) lives in ``_quantiles``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import get_current_trace, jit, lax
from tessela_tracer.extend import JaxprTrace
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, promote_dtypes_inexact, shape_of
from ._eager import run_compiled
from ._matrix_ops import diag
from ._moments import mean
from ._products import dot
from ._reductions import sum as _sum
from ._shape_ops import atleast_2d, concatenate, expand_dims, squeeze
from ._shapes import Axis, canonicalize_axis, normalize_reduction_axes
from ._ufuncs import (
    conj,
    multiply,
    real,
    sqrt,
    subtract,
    true_divide,
)
from ._where import broadcast_to, clip

__all__ = ["average", "corrcoef", "cov"]


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
    if fweights is None and aweights is None:  # eagerly: one program, as JAX's jit
        operands = (m,) if y is None else (m, y)
        out = run_compiled("cov", _COV_BODIES[len(operands)], operands, rowvar, bias, ddof, dtype)
        if out is not None:
            return unchanged(out)
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
    operands = (x,) if y is None else (x, y)
    out = run_compiled("corrcoef", _CORRCOEF_BODIES[len(operands)], operands, rowvar, dtype)
    if out is not None:  # eagerly: one program, as JAX's jit
        return unchanged(out)
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


# Program bodies of cov and corrcoef run eagerly: ``m`` (and ``y``) are
# operands, the other arguments static.
_COV_BODIES: dict[int, Callable[..., Any]] = {
    1: lambda m, rowvar, bias, ddof, dtype: cov(m, None, rowvar, bias, ddof, dtype=dtype),
    2: lambda m, y, rowvar, bias, ddof, dtype: cov(m, y, rowvar, bias, ddof, dtype=dtype),
}
_CORRCOEF_BODIES: dict[int, Callable[..., Any]] = {
    1: lambda x, rowvar, dtype: corrcoef(x, None, rowvar, dtype),
    2: lambda x, y, rowvar, dtype: corrcoef(x, y, rowvar, dtype),
}
