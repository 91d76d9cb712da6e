"""Ranges: ``arange`` and ``linspace``.

``arange`` of concrete bounds binds ``iota`` (scaled and shifted for float
steps); ``linspace`` computes its samples as ``start * (1 - t) + stop * t``
in one staged program, as JAX does, so integer samples are floored from the
same values.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import ArrayOps, jit, lax
from tessela_tracer import dtypes as _dt
from tessela_tracer.errors import ConcretizationTypeError, JAXTypeError
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import aval_of, check_arraylike, convert, dtype_or, to_inexact_dtype
from ._creation import full, place_result

__all__ = ["arange", "linspace"]


def _concrete_number(x: Any, name: str) -> Any:
    if isinstance(x, ArrayOps):
        try:
            return float(x) if _dt.issubdtype(x.dtype, np.inexact) else operator.index(x)
        except JAXTypeError:
            raise ConcretizationTypeError(
                x,
                f"It arose in the tessela_numpy.arange argument {name!r}: the length of the "
                "result depends on it. Pass a concrete number (mark the argument static with "
                "static_argnums), or build the range from a static bound and mask it.",
            ) from None
    if isinstance(x, np.ndarray | np.generic):
        return x.item()
    return x


def arange(
    start: ArrayLike,
    stop: ArrayLike | None = None,
    step: ArrayLike | None = None,
    dtype: DTypeLike | None = None,
    *,
    device: object = None,
) -> Array:
    """Evenly spaced values in ``[start, stop)``; the bounds must be concrete.

    Args:
      start: the start (or the stop when ``stop`` is None).
      stop: the end, excluded.
      step: the spacing (default 1).
      dtype: the dtype; by default int32 for integer bounds, else float32.
      device: the device to place the result on.

    Returns:
      The 1-D array.

    Raises:
      ConcretizationTypeError: a bound is traced.
      ZeroDivisionError: ``step`` is zero (as in JAX).

    >>> from tessela_tracer import make_jaxpr
    >>> jaxpr = make_jaxpr(lambda: arange(2, 11, 3))()
    >>> [str(e.primitive) for e in jaxpr.eqns], jaxpr.out_avals[0].shape
    (['iota', 'mul', 'add'], (3,))
    """
    # The default dtype comes from the bounds given (``arange(np.int8(5))`` is int8).
    given = [v for v in (start, stop, step) if v is not None]
    if stop is None:  # arange(stop) and arange(stop, None, step), as JAX's
        start, stop = 0, start
    step = 1 if step is None else step
    for v, n in ((start, "start"), (stop, "stop"), (step, "step")):
        if isinstance(v, complex) or (
            isinstance(v, ArrayOps | np.ndarray | np.generic) and v.dtype.kind == "c"
        ):
            raise ValueError(f"arange: {n}={v!r} is complex; the bounds must be real, as JAX's")
    lo, hi, by = (
        _concrete_number(v, n) for v, n in ((start, "start"), (stop, "stop"), (step, "step"))
    )
    check_arraylike("arange", lo, hi, by)
    if by == 0:
        raise ZeroDivisionError(
            "arange: step=0 gives no sequence (the length divides by the step); pass a nonzero step"
        )
    out_dt = np.dtype(dtype_or(dtype, _dt.result_type(*given)))
    if out_dt == np.bool_:  # JAX's class: iota has no boolean form
        raise TypeError(
            "arange: the bounds give a boolean range, which has no meaning; pass numbers or a dtype"
        )
    size = max(0, math.ceil((hi - lo) / by))
    # As JAX: half-precision ranges compute in float32, then convert once, and
    # integer bounds wrap into an unsigned dtype (a step of -1 is 255 in uint8).
    comp = np.dtype(np.float32) if out_dt in _HALF else out_dt

    def bound(v: Any) -> Any:
        if comp.kind in "iu" and isinstance(v, int):
            return np.asarray(v).astype(comp)[()]
        return convert(v, comp)

    out = lax.iota(comp, size)
    if by != 1:
        out = lax.mul(bound(by), out)
    if lo != 0 or by != 1:
        out = lax.add(bound(lo), out)
    out = convert(out, out_dt)
    return out if device is None else place_result(out, device)


_HALF = frozenset({np.dtype(np.float16), np.dtype(_dt.bfloat16)})


@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: Literal[False] = False,
    dtype: DTypeLike | None = None,
    axis: int = 0,
    *,
    device: object = None,
) -> Array: ...
@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    *,
    retstep: Literal[True],
    dtype: DTypeLike | None = None,
    axis: int = 0,
    device: object = None,
) -> tuple[Array, Array]: ...
@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: DTypeLike | None = None,
    axis: int = 0,
    *,
    device: object = None,
) -> Array | tuple[Array, Array]: ...
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: DTypeLike | None = None,
    axis: int = 0,
    *,
    device: object = None,
) -> Array | tuple[Array, Array]:
    """``num`` evenly spaced samples from ``start`` to ``stop``.

    Args:
      start: the first value.
      stop: the last value (included when ``endpoint``).
      num: the number of samples (a concrete int).
      endpoint: whether ``stop`` is the last sample.
      retstep: also return the spacing.
      dtype: the dtype (by default the bounds' promoted inexact dtype: float32
        for Python numbers, float16 or complex64 bounds keep theirs). Integer
        dtypes take the floor of the samples, as JAX's and NumPy's.
      axis: where the samples go when the bounds are arrays (only 0).
      device: the device to place the samples on.

    Returns:
      The samples (and the step when ``retstep``).

    >>> from tessela_tracer import eval_shape
    >>> eval_shape(lambda: linspace(0, 10, 5)).shape
    (5,)
    """
    check_arraylike("linspace", start, stop)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if axis != 0:
        raise NotImplementedError("linspace: only axis=0 is supported")
    if aval_of(start).shape or aval_of(stop).shape:
        raise NotImplementedError("linspace: only scalar start and stop are supported")
    out_dt = dtype_or(dtype, to_inexact_dtype(_dt.result_type(start, stop)))
    out = _linspace_jit(start, stop, num, bool(endpoint), bool(retstep), out_dt)
    if device is None:
        return unchanged(out)
    return (place_result(out[0], device), out[1]) if retstep else place_result(out, device)


def _linspace(
    start: Any, stop: Any, num: int, endpoint: bool, retstep: bool, out_dt: np.dtype[Any]
) -> Any:
    out, step = _linspace_parts(start, stop, num, endpoint, out_dt)
    return (out, step) if retstep else out


def _linspace_parts(
    start: Any, stop: Any, num: int, endpoint: bool, out_dt: np.dtype[Any]
) -> tuple[Any, Any]:
    comp = to_inexact_dtype(out_dt)
    # The fractions ``t`` are real, in the real dtype of a complex ``comp``.
    real = _dt.canonicalize_dtype(_dt.finfo(comp).dtype)
    lo = convert(start, comp)
    hi = convert(stop, comp)
    div = (num - 1) if endpoint else num
    if num == 0:
        return full((0,), 0, out_dt), convert(np.nan, comp)
    if div <= 0:
        return _to_out(lax.broadcast_in_dim(lo, (1,), ()), out_dt), convert(np.nan, comp)
    step = lax.div(lax.sub(hi, lo), convert(div, comp))
    t = convert(lax.div(lax.iota(real, div), convert(div, real)), comp)
    lo1 = lax.reshape(lo, (1,))
    part = lax.mul(lo1, lax.sub(convert(1, comp), t))
    hi1 = lax.reshape(hi, (1,))
    out = lax.add(part, lax.mul(hi1, t))
    if endpoint:
        out = lax.concatenate([out, lax.broadcast_in_dim(hi, (1,), ())], 0)
    return _to_out(out, out_dt), step


def _to_out(samples: Any, out_dt: np.dtype[Any]) -> Any:
    # Integer samples are floored, not truncated toward zero (JAX and NumPy 2).
    if out_dt.kind in "iu" and aval_of(samples).dtype.kind == "f":
        samples = lax.floor(samples)
    return convert(samples, out_dt)


_linspace_jit = jit(_linspace, static_argnums=(2, 3, 4, 5))
