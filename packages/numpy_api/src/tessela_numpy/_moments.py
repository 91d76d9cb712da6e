"""Moments: ``mean``, ``var`` and ``std``.

JAX runs ``mean`` as a ``jit`` with ``inline=True`` and ``var``/``std`` as
jitted functions; Tessela stages them the same way, and runs them eagerly as
one compiled program per (axis, dtype, keepdims) with ``ddof`` an operand,
so XLA turns divisions by constant counts into multiplications as in JAX.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import get_current_trace, jit, lax
from tessela_tracer.extend import JaxprTrace
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    dtype_arg,
    dtype_or,
    shape_of,
    to_inexact_dtype,
)
from ._eager import FAST, fast_program, program_for, remember_fast
from ._reductions import _HALF, _axis_key, _doc, _eager_call, _no_out, sum
from ._shapes import Axis, normalize_reduction_axes
from ._where import broadcast_to, where

__all__ = ["mean", "std", "var"]


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return math.prod(shape[i] for i in axes)


def mean(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    keepdims: bool = False,
    *,
    where: ArrayLike | None = None,
) -> Array:
    if dtype is None and where is None and out is None:
        program = fast_program(FAST["mean"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "mean")
    check_arraylike("mean", a)
    args = (a, _axis_key(axis), dtype_arg(dtype), bool(keepdims), where)
    # JAX's mean is a jit with inline=True: its body is emitted in place when a
    # jaxpr is staged, and it runs as one compiled program otherwise.
    if isinstance(get_current_trace(), JaxprTrace):
        return unchanged(_mean(*args))
    if where is None and _eager_call(a, args[1]):
        program = program_for("mean", _mean, *args[1:4], where_=None)
        if program is not None:
            if dtype is None:
                remember_fast(FAST["mean"], a, axis, keepdims, program)
            return unchanged(program(a))
    return unchanged(_mean_jit(*args))


def _mean(a: Any, axis: Any, dtype: Any, keepdims: bool, where_: Any) -> Any:
    # Compiled as one program the count is a constant, and XLA turns the
    # division by it into a multiplication by its reciprocal, as in JAX.
    shape = shape_of(a)
    axes = normalize_reduction_axes(axis, len(shape))
    out_dt = dtype_or(dtype, to_inexact_dtype(aval_of(a).dtype))
    comp = np.dtype(np.float32) if out_dt in _HALF else out_dt
    if where_ is None:
        total = sum(a, axis, dtype=comp, keepdims=keepdims)
        return convert(lax.div(total, convert(_count(shape, axes), comp)), out_dt)
    mask = where_ if shape_of(where_) == shape else broadcast_to(where_, shape)
    n = sum(mask, axis, dtype=comp, keepdims=keepdims)
    total = sum(a, axis, dtype=comp, keepdims=keepdims, where=where_)
    return convert(lax.div(total, n), out_dt)


_mean.__name__ = _mean.__qualname__ = "mean"
_mean_jit = jit(_mean, static_argnums=(1, 2, 3))


def _correction(name: str, ddof: int, correction: int | float | None) -> int | float:
    """The degrees-of-freedom correction: ``ddof`` or the array API's ``correction``."""
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"{name}: ddof and correction can't both be specified; pass one of them")
    return correction


def _moment(
    name: str,
    staged: Callable[..., Any],
    a: ArrayLike,
    axis: Axis,
    dtype: DTypeLike | None,
    out: None,
    ddof: int,
    keepdims: bool,
    where_: ArrayLike | None,
    mean: ArrayLike | None,
    correction: int | float | None,
) -> Any:
    # ``var``/``std``: the arguments checked, then one staged call; eagerly
    # without ``where``/``mean``, one program per (axis, dtype, keepdims) that
    # takes the correction as an operand, as the staged call does.
    _no_out(out, name)
    check_arraylike(name, a)
    if mean is not None:
        check_arraylike(name, mean)
    dof = _correction(name, ddof, correction)
    dt = dtype_arg(dtype)
    if where_ is None and mean is None and _eager_call(a, axis):
        body = _var_program if name == "var" else _std_program
        program = program_for(name, body, axis, dt, bool(keepdims))
        if program is not None:
            if dt is None and type(dof) is int:
                remember_fast(FAST[name], a, axis, keepdims, program)
            return program(a, dof)
    return staged(a, _axis_key(axis), dt, dof, bool(keepdims), where_, mean)


def _fast_moment(
    name: str,
    a: object,
    axis: object,
    dtype: object,
    out: object,
    ddof: object,
    keepdims: object,
    where_: object,
    mean: object,
    correction: object,
) -> Any:
    # The cached program of an eager ``var``/``std`` call with the default
    # options and an int ``ddof`` (an operand of the program), else None.
    if (
        dtype is None
        and where_ is None
        and mean is None
        and correction is None
        and out is None
        and type(ddof) is int
    ):
        program = fast_program(FAST[name], a, axis, keepdims)
        if program is not None:
            return program(a, ddof)
    return None


def _var_program(a: Any, ddof: Any, axis: Any, dtype: Any, keepdims: bool) -> Any:
    return _var(a, axis, dtype, ddof, keepdims, None)


def _std_program(a: Any, ddof: Any, axis: Any, dtype: Any, keepdims: bool) -> Any:
    return _std(a, axis, dtype, ddof, keepdims, None)


def var(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike | None = None,
    mean: ArrayLike | None = None,
    correction: int | float | None = None,
) -> Array:
    fast = _fast_moment("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if fast is not None:
        result: Array = fast
        return result
    return unchanged(
        _moment("var", _var_jit, a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    )


def _var(
    a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where_: Any, a_mean: Any = None
) -> Any:
    shape = shape_of(a)
    axes = normalize_reduction_axes(axis, len(shape))
    if where_ is not None and shape_of(where_) != shape:  # a mask that broadcasts
        where_ = broadcast_to(where_, shape)
    in_dt = aval_of(a).dtype
    out_dt = dtype_or(dtype, to_inexact_dtype(in_dt))
    comp = np.dtype(np.float32) if out_dt in _HALF else out_dt
    if _dt.issubdtype(in_dt, np.complexfloating):
        comp = in_dt
    a = convert(a, comp)
    a_mean = _mean(a, axis, comp, True, where_) if a_mean is None else convert(a_mean, comp)
    centered = lax.sub(a, a_mean)
    if _dt.issubdtype(comp, np.complexfloating):
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        sq = lax.square(centered)
    real_dt = aval_of(sq).dtype
    if where_ is None:
        count: Any = convert(_count(shape, axes), real_dt)
    else:
        count = sum(where_, axis, dtype=real_dt, keepdims=keepdims)
    norm = lax.sub(count, convert(ddof, real_dt))
    total = sum(sq, axis, dtype=real_dt, keepdims=keepdims, where=where_)
    result = lax.div(total, norm)
    if not _dt.issubdtype(in_dt, np.complexfloating):
        result = convert(result, out_dt)
    return where(lax.gt(norm, convert(0, real_dt)), result, np.nan)


_var_jit = jit(_var, static_argnums=(1, 2, 4))


def std(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike | None = None,
    mean: ArrayLike | None = None,
    correction: int | float | None = None,
) -> Array:
    fast = _fast_moment("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if fast is not None:
        result: Array = fast
        return result
    dt = dtype_arg(dtype)
    if dt is not None and not _dt.issubdtype(dt, np.inexact):
        # JAX's class; ``var`` takes such a dtype (and computes in floating point).
        raise ValueError(f"std: the dtype argument must be inexact (floating or complex), got {dt}")
    return unchanged(
        _moment("std", _std_jit, a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    )


def _std(
    a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where_: Any, a_mean: Any = None
) -> Any:
    return lax.sqrt(_var_jit(a, axis, dtype, ddof, keepdims, where_, a_mean))


_std_jit = jit(_std, static_argnums=(1, 2, 4))


_doc(mean, "Arithmetic mean (integers are averaged in floating point)", "mean(x, 0)", "(3,)")
_doc(var, "Variance, with ``ddof`` delta degrees of freedom", "var(x, 1, ddof=1)", "(2,)")
_doc(std, "Standard deviation, the square root of :func:`var`", "std(x, 0)", "(3,)")
