"""Binning and interpolation: ``digitize``, ``histogram``, ``interp``, ``polyval``.

All of them locate values among sorted break points with ``searchsorted`` and
have static output shapes (``histogram`` needs its number of bins to be
static; its edges may be traced).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    shape_of,
)
from ._eager import run_compiled
from ._ranges import linspace
from ._reductions import max as _max
from ._reductions import min as _min
from ._reductions import sum as _sum
from ._sequences import diff
from ._shape_ops import concatenate, ravel
from ._shapes import broadcast_shapes
from ._sorting import argsort, searchsorted
from ._ufuncs import abs as _abs
from ._ufuncs import (
    add,
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    multiply,
    remainder,
    subtract,
    true_divide,
)
from ._where import broadcast_to, clip, where

__all__ = ["Bins", "digitize", "histogram", "histogram_bin_edges", "interp", "polyval"]

Bins: TypeAlias = int | np.integer | Array | np.ndarray
"""A ``bins`` argument: a number of equal bins, or the bin edges."""


def digitize(
    x: ArrayLike, bins: Array | np.ndarray, right: bool = False, *, method: str | None = None
) -> Array:
    """The index of the bin each element of ``x`` falls in.

    Args:
      x: the values.
      bins: 1-D, monotonically increasing or decreasing bin edges.
      right: whether the intervals include their right edge instead of their left.
      method: the ``searchsorted`` method (default ``"scan"``).

    Returns:
      Integer indices of ``x``'s shape.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(digitize, S((2, 3), "f4"), S((4,), "f4")).dtype
    dtype('int32')
    """
    if method is None:
        out = run_compiled("digitize", digitize, (x, bins), right)  # eagerly: as JAX's jit
        if out is not None:
            return unchanged(out)
    check_arraylike("digitize", x, bins)
    if len(shape_of(bins)) != 1:
        raise ValueError(
            f"digitize: bins must be a 1-dimensional array; got bins of shape {shape_of(bins)}"
        )
    n = shape_of(bins)[0]
    idt = np.dtype(_dt.canonicalize_dtype(np.int64))
    if n == 0:
        return lax.full(shape_of(x), 0, idt)
    side = "left" if right else "right"
    kw: dict[str, Any] = {"method": method} if method is not None else {}
    rising = searchsorted(bins, x, side=side, **kw)
    falling = subtract(
        convert(n, aval_of(rising).dtype), searchsorted(bins[::-1], x, side=side, **kw)
    )
    return where(greater_equal(bins[-1], bins[0]), rising, falling)


def histogram_bin_edges(
    a: ArrayLike,
    bins: Bins = 10,
    range: Sequence[ArrayLike] | None = None,
    weights: ArrayLike | None = None,
) -> Array:
    """The bin edges ``histogram`` uses.

    Args:
      a: the data (flattened).
      bins: the number of equal-width bins (static), or the 1-D edges themselves.
      range: ``(lower, upper)``; by default the data's minimum and maximum.
      weights: unused; accepted as NumPy does.

    Returns:
      A 1-D floating array of ``bins + 1`` edges.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda a: histogram_bin_edges(a, 4), S((9,), "int32")).shape
    (5,)
    """
    del weights
    check_arraylike("histogram_bin_edges", a)
    if not isinstance(bins, int) and np.ndim(bins) == 1:
        check_arraylike("histogram_bin_edges", bins)
        (edges,) = promote_dtypes_inexact(bins)
        return unchanged(edges)
    nbins = operator.index(bins)
    if nbins < 1:
        raise ValueError(f"histogram: bins must be a positive integer; got bins={nbins}")
    (a,) = promote_dtypes_inexact(ravel(a))
    dt = aval_of(a).dtype
    lo: ArrayLike
    hi: ArrayLike
    if range is None:
        lo, hi = _min(a), _max(a)
    else:
        if len(range) != 2:
            raise ValueError(f"histogram: range must be a pair (lower, upper); got range={range}")
        lo, hi = convert(range[0], dt), convert(range[1], dt)
    same = equal(lo, hi)
    half = convert(0.5, dt)
    lo = where(same, subtract(lo, half), lo)
    hi = where(same, add(hi, half), hi)
    return unchanged(linspace(lo, hi, nbins + 1, dtype=dt))


def histogram(
    a: ArrayLike,
    bins: Bins = 10,
    range: Sequence[ArrayLike] | None = None,
    weights: ArrayLike | None = None,
    density: bool | None = None,
) -> tuple[Array, Array]:
    """A histogram of the flattened data.

    Args:
      a: the data.
      bins: the number of equal-width bins (static), or the 1-D edges.
      range: ``(lower, upper)``; by default the data's minimum and maximum.
      weights: per-element weights of ``a``'s shape.
      density: normalise the counts to a probability density.

    Returns:
      ``(counts, bin_edges)``; values outside the edges are not counted, the
      last bin includes its right edge.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> counts, edges = eval_shape(lambda a: histogram(a, 5), S((20,), "f4"))
    >>> counts.shape, edges.shape
    ((5,), (6,))
    """
    check_arraylike("histogram", a)
    edges = histogram_bin_edges(a, bins, range)
    flat = ravel(a)
    if weights is None:
        w = lax.full(shape_of(flat), 1, aval_of(edges).dtype)
    else:
        check_arraylike("histogram", weights)
        if shape_of(weights) != shape_of(a):
            raise ValueError("histogram: weights should have the same shape as a.")
        w = ravel(weights)
    n_edges = shape_of(edges)[0]
    idx = searchsorted(edges, flat, side="right")
    idx = where(equal(flat, edges[-1]), convert(n_edges - 1, aval_of(idx).dtype), idx)
    counts = lax.full((n_edges,), 0, aval_of(w).dtype).at[idx].add(w, mode="drop")[1:]
    if density:
        counts = true_divide(true_divide(counts, diff(edges)), _sum(counts))
    return counts, edges


def interp(
    x: ArrayLike,
    xp: ArrayLike,
    fp: ArrayLike,
    left: ArrayLike | str | None = None,
    right: ArrayLike | str | None = None,
    period: ArrayLike | None = None,
) -> Array:
    """One-dimensional piecewise-linear interpolation of ``(xp, fp)`` at ``x``.

    Args:
      x: where to evaluate.
      xp: increasing 1-D sample positions (any order when ``period`` is given).
      fp: 1-D sample values, ``xp``'s length.
      left: the value below ``xp[0]`` (default ``fp[0]``), or ``"extrapolate"``.
      right: the value above ``xp[-1]`` (default ``fp[-1]``), or ``"extrapolate"``.
      period: the period of periodic data; ``left`` and ``right`` must then be None.

    Returns:
      ``x``'s shape, of the inexact dtype promoted from the arguments.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(interp, S((7,), "f4"), S((4,), "f4"), S((4,), "int32")).dtype
    dtype('float32')
    """
    check_arraylike("interp", x, xp, fp)
    if len(shape_of(xp)) != 1 or len(shape_of(fp)) != 1 or shape_of(xp) != shape_of(fp):
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, str) and v != "extrapolate":
            raise ValueError(f"{name}={v!r} is not recognized; use None, a value or 'extrapolate'")
    if period is not None and (left is not None or right is not None):
        raise ValueError("interp: left and right must be None when period is given")
    # One compiled program, as JAX's (``None`` and string bounds and a ``None``
    # period static), so XLA fuses ``f_lo + step * df`` as JAX's program does.
    static = tuple(
        i for i, v in ((3, left), (4, right), (5, period)) if v is None or isinstance(v, str)
    )
    jitted = _INTERP_JITS.get(static)
    if jitted is None:
        jitted = _INTERP_JITS[static] = jit(_interp, static_argnums=static)
    return unchanged(jitted(x, xp, fp, left, right, period))


_INTERP_JITS: dict[tuple[int, ...], Any] = {}


def _interp(x: Any, xp: Any, fp: Any, left: Any, right: Any, period: Any) -> Any:
    x, xp, fp = promote_dtypes_inexact(x, xp, fp)
    dt = aval_of(x).dtype
    if period is not None:
        period = _abs(convert(period, dt))
        x = remainder(x, period)
        xp = remainder(xp, period)
        order = argsort(xp)
        xp, fp = xp[order], fp[order]
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = shape_of(xp)[0]
    i = clip(searchsorted(xp, x, side="right"), 1, n - 1)
    x_lo, x_hi, f_lo, f_hi = xp[i - 1], xp[i], fp[i - 1], fp[i]
    dx = subtract(x_hi, x_lo)
    tiny = convert(np.spacing(_dt.finfo(dt).eps), dt)
    flat = less_equal(_abs(dx), tiny)
    step = true_divide(subtract(x, x_lo), where(flat, convert(1, dt), dx))
    f = where(flat, f_lo, add(f_lo, multiply(step, subtract(f_hi, f_lo))))
    if period is None:
        if not isinstance(left, str):
            f = where(less(x, xp[0]), fp[0] if left is None else convert(left, dt), f)
        if not isinstance(right, str):
            f = where(greater(x, xp[-1]), fp[-1] if right is None else convert(right, dt), f)
    return f


def polyval(p: ArrayLike, x: ArrayLike, *, unroll: int = 16) -> Array:
    """Evaluate the polynomial with coefficients ``p`` (highest degree first) at ``x``.

    Horner's scheme, unrolled over the static number of coefficients.

    Args:
      p: the coefficients along the first axis.
      x: the points.
      unroll: accepted for compatibility (the loop is always unrolled).

    Returns:
      The values, of the promoted dtype and the broadcast of ``p.shape[1:]``
      and ``x.shape``.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(polyval, S((3,), "int32"), S((5,), "f4")).shape
    (5,)
    """
    del unroll
    check_arraylike("polyval", p, x)
    if not shape_of(p):
        raise ValueError("polyval: p must have at least one dimension")
    # One compiled program, as JAX's jitted polyval: XLA fuses each ``y * x + p``
    # step the same way, so the values are JAX's to the last bit.
    return unchanged(_polyval_jit(p, x))


def _polyval(p: Any, x: Any) -> Any:
    p, x = promote_dtypes(p, x)
    p_shape = shape_of(p)
    shape = broadcast_shapes(p_shape[1:], shape_of(x))
    y = lax.full(shape, 0, aval_of(x).dtype)
    for k in range(p_shape[0]):
        y = add(multiply(y, x), p[k])
    return broadcast_to(y, shape)


_polyval.__name__ = _polyval.__qualname__ = "polyval"
_polyval_jit = jit(_polyval)
