"""NaN-ignoring reductions: ``nansum`` ... ``nancumprod``.

NaNs are replaced with the reduction's identity before reducing (integer
inputs have no NaNs and reduce as they are); ``nanmax``/``nanmin`` give NaN
where a slice holds only NaNs, ``nanvar`` where the divisor is not positive.

Run eagerly (outside any trace), each function is one compiled program per
signature, as JAX's ``jit`` makes it: ``axis``, ``dtype`` and ``keepdims``
are static; the arrays, ``initial``, ``ddof``, ``where`` and ``mean`` are
its operands (:func:`._eager.run_compiled`; ``nanvar`` is such a program
already). Other arguments (``out``, lists) take the checked path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import dtypes as _dt
from tessela_tracer import jit, lax
from tessela_tracer.typing import Array, ArrayLike, unchanged

from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    dtype_arg,
    promote_dtypes_inexact,
    shape_of,
    to_inexact_dtype,
)
from ._eager import run_compiled
from ._moments import mean
from ._reductions import _axis_key, cumprod, cumsum
from ._reductions import any as _any
from ._reductions import max as _max
from ._reductions import min as _min
from ._reductions import prod as _prod
from ._reductions import sum as _sum
from ._shapes import Axis
from ._ufuncs import (
    conj,
    isnan,
    logical_not,
    real,
    sqrt,
)
from ._where import broadcast_to
from ._where import where as _sel

__all__ = [
    "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmin",
    "nanprod", "nanstd", "nansum", "nanvar",
]  # fmt: skip


def _inexact(a: Any) -> bool:
    return bool(_dt.issubdtype(aval_of(a).dtype, np.inexact))


def _nan_replaced(a: Any, value: Any) -> Any:
    return _sel(isnan(a), convert(value, aval_of(a).dtype), a) if _inexact(a) else a


_UNSTAGED = object()
"""What :func:`_static_dtype` gives for a ``dtype`` that cannot key a program."""


def _static_dtype(dtype: Any) -> Any:
    # ``dtype`` as a program's static argument: None, a dtype or a string as
    # given; a scalar type as its dtype (the functions read both alike: they
    # canonicalise ``np.dtype(t)`` as they do ``t``); anything else unstaged.
    if dtype is None or isinstance(dtype, (np.dtype, str)):
        return dtype
    if dtype in _PYTHON_SCALARS:  # ``float``: the default float dtype either way
        return np.dtype(dtype)
    if isinstance(dtype, type):
        spec = getattr(dtype, "dtype", None)  # ``tessela_numpy.float32``
        if isinstance(spec, np.dtype):
            return spec
        if issubclass(dtype, np.generic) and not dtype.__subclasses__():  # not np.floating
            dt = np.dtype(dtype)
            if dt.kind in "biufc" or (dt.kind == "V" and dt.type is not np.void):  # bfloat16
                return dt
    return _UNSTAGED  # its error, if any, comes from the function's own checks


_PYTHON_SCALARS = (bool, int, float, complex)


def _eagerly(
    fn: Any, out: Any, required: tuple[Any, ...], optional: dict[str, Any], *static: Any
) -> Any:
    # ``fn(*required, **optional, <static>)`` as one jitted program when the
    # call runs eagerly (its checks then run in the program's first trace);
    # None under a trace, with ``out``, or for arguments such a program does
    # not take (the function's own path then runs, with its errors). The
    # optional operands given (not None) are named by a static string.
    if out is not None or any(v is _UNSTAGED for v in static):
        return None
    names = " ".join(k for k, v in optional.items() if v is not None)
    xs = (*required, *(v for v in optional.values() if v is not None))
    return run_compiled(fn.__name__, _BODIES[fn], xs, names, *static)


def _body(fn: Any, required: tuple[str, ...], static: tuple[str, ...]) -> Any:
    # ``fn``'s program body: the operands ``required`` names, then the
    # optional ones the first static argument names, then ``static``.
    def body(*args: Any) -> Any:
        k = len(args) - len(static)
        names = (*required, *args[k - 1].split(), *static)
        return fn(**dict(zip(names, (*args[: k - 1], *args[k:]), strict=True)))

    body.__name__ = body.__qualname__ = fn.__name__
    return body


def nansum(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    """Sum treating NaNs as zero.

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      dtype: the accumulation and result dtype.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.
      initial: a starting value added to the sum.
      where: a boolean mask of the elements to include.

    Returns:
      The sums.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nansum(x, axis=0), S((2, 3), "float32")).shape
    (3,)
    """
    opts = {"initial": initial, "where": where}
    res = _eagerly(nansum, out, (a,), opts, axis, _static_dtype(dtype), keepdims)
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    check_arraylike("nansum", a)
    return unchanged(_sum(_nan_replaced(a, 0), axis, dtype, out, keepdims, initial, where))


def nanprod(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    """Product treating NaNs as one.

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      dtype: the accumulation and result dtype.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.
      initial: a starting value multiplied in.
      where: a boolean mask of the elements to include.

    Returns:
      The products.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanprod(x, axis=1), S((2, 3), "float32")).shape
    (2,)
    """
    opts = {"initial": initial, "where": where}
    res = _eagerly(nanprod, out, (a,), opts, axis, _static_dtype(dtype), keepdims)
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    check_arraylike("nanprod", a)
    return unchanged(_prod(_nan_replaced(a, 1), axis, dtype, out, keepdims, initial, where))


def _nan_extreme(
    name: str, a: Any, axis: Any, out: Any, keepdims: bool, initial: Any, where_: Any
) -> Any:
    check_arraylike(name, a)
    fn = _max if name == "nanmax" else _min
    if not _inexact(a):
        return fn(a, axis, out, keepdims, initial, where_)
    fill = -np.inf if name == "nanmax" else np.inf
    result = fn(_nan_replaced(a, fill), axis, out, keepdims, initial, where_)
    nan_mask = isnan(a)
    if where_ is not None:  # a mask that broadcasts, as for the reduction itself
        nan_mask = lax.bitwise_or(nan_mask, logical_not(broadcast_to(where_, shape_of(a))))
    all_nan = logical_not(_any(logical_not(nan_mask), axis=axis, keepdims=keepdims))
    if initial is not None:
        return result
    return _sel(all_nan, convert(np.nan, aval_of(result).dtype), result)


def nanmax(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    """Maximum ignoring NaNs (NaN where a slice holds only NaNs).

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.
      initial: a lower bound of the result.
      where: a boolean mask of the elements to include.

    Returns:
      The maxima.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanmax(x, axis=1, keepdims=True), S((2, 3), "float32")).shape
    (2, 1)
    """
    res = _eagerly(nanmax, out, (a,), {"initial": initial, "where": where}, axis, keepdims)
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    return unchanged(_nan_extreme("nanmax", a, axis, out, keepdims, initial, where))


def nanmin(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    """Minimum ignoring NaNs (NaN where a slice holds only NaNs).

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.
      initial: an upper bound of the result.
      where: a boolean mask of the elements to include.

    Returns:
      The minima.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(nanmin, S((2, 3), "float32")).shape
    ()
    """
    res = _eagerly(nanmin, out, (a,), {"initial": initial, "where": where}, axis, keepdims)
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    return unchanged(_nan_extreme("nanmin", a, axis, out, keepdims, initial, where))


def _valid(a: Any, where_: Any) -> Any:
    valid = logical_not(isnan(a))
    if where_ is not None:
        valid = lax.bitwise_and(valid, broadcast_to(where_, shape_of(a)))
    return valid


def nanmean(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    keepdims: bool = False,
    where: ArrayLike | None = None,
) -> Array:
    """Mean of the non-NaN elements (NaN where there are none).

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      dtype: the result dtype.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.
      where: a boolean mask of the elements to include.

    Returns:
      The means, of a floating dtype.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanmean(x, 0), S((2, 3), "int32")).dtype
    dtype('float32')
    """
    res = _eagerly(nanmean, out, (a,), {"where": where}, axis, _static_dtype(dtype), keepdims)
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    check_arraylike("nanmean", a)
    if out is not None:
        raise NotImplementedError("nanmean: the out argument is not supported")
    if not _inexact(a):
        return unchanged(mean(a, axis, dtype, keepdims=keepdims, where=where))
    valid = _valid(a, where)
    (a,) = promote_dtypes_inexact(a)
    dt = aval_of(a).dtype if dtype is None else np.dtype(dtype)
    count = _sum(valid, axis, dtype=dt, keepdims=keepdims)
    total = _sum(_nan_replaced(a, 0), axis, dtype=dt, keepdims=keepdims, where=where)
    # Both in ``dt``: an integer ``dtype`` divides as integers, as JAX's does.
    return unchanged(lax.div(total, count))


def nanvar(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    where: ArrayLike | None = None,
    mean: ArrayLike | None = None,
) -> Array:
    """Variance of the non-NaN elements, with ``ddof`` delta degrees of freedom.

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      dtype: the result dtype.
      out: unsupported; must be ``None``.
      ddof: subtracted from the count of non-NaN elements in the divisor.
      keepdims: keep reduced axes as size-1 axes.
      where: a boolean mask of the elements to include.
      mean: a precomputed :func:`nanmean` with ``keepdims=True``.

    Returns:
      The variances; NaN where the divisor is not positive.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nanvar(x, 1, ddof=1), S((2, 3), "float32")).shape
    (2,)
    """
    check_arraylike("nanvar", a)
    if out is not None:
        raise NotImplementedError("nanvar: the out argument is not supported")
    if mean is not None:
        check_arraylike("nanvar", mean)
    key = _axis_key(axis)
    return unchanged(_nanvar_jit(a, key, dtype_arg(dtype), ddof, bool(keepdims), where, mean))


def _nanvar(
    a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where_: Any, a_mean: Any
) -> Any:
    # One compiled program, in JAX's order of operations, so that the values are
    # JAX's to the last bit.
    in_dt = aval_of(a).dtype
    if dtype is not None:
        comp = out_dt = dtype
    elif not _dt.issubdtype(in_dt, np.inexact):
        comp = out_dt = to_inexact_dtype(in_dt)
    else:
        comp = in_dt
        out_dt = _REAL_OF.get(in_dt, in_dt)
    if comp in _HALF:
        comp = np.dtype(np.float32)
    a = convert(a, comp)
    if a_mean is None:
        a_mean = nanmean(a, axis, dtype=comp, keepdims=True, where=where_)
    else:
        a_mean = convert(a_mean, comp)
    nan = isnan(a)
    centered = _sel(nan, convert(0, comp), lax.sub(a, a_mean))
    if _dt.issubdtype(comp, np.complexfloating):
        centered = real(lax.mul(centered, conj(centered)))
    else:
        centered = lax.square(centered)
    count = _sum(logical_not(nan), axis, keepdims=keepdims, where=where_)
    cdt = aval_of(count).dtype
    count = lax.sub(count, convert(ddof, cdt))
    empty = lax.le(count, convert(0, cdt))
    result = _sum(centered, axis, keepdims=keepdims, where=where_)
    rdt = aval_of(result).dtype
    # An integer ``dtype`` gives 0 for an empty slice (XLA's NaN to integer), as JAX's.
    result = _sel(empty, convert(np.nan if rdt.kind in "fc" else 0, rdt), result)
    divisor = _sel(empty, convert(1, cdt), count)
    return convert(lax.div(result, convert(divisor, rdt)), out_dt)


_nanvar.__name__ = _nanvar.__qualname__ = "nanvar"
_nanvar_jit = jit(_nanvar, static_argnums=(1, 2, 4))
_HALF = frozenset({np.dtype(np.float16), np.dtype(_dt.bfloat16)})
_REAL_OF = {
    np.dtype(np.complex64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.float64),
}


def nanstd(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    where: ArrayLike | None = None,
    mean: ArrayLike | None = None,
) -> Array:
    """Standard deviation of the non-NaN elements: the square root of :func:`nanvar`.

    Args:
      a: an array-like.
      axis: ``None`` (all axes), an int or a tuple of ints.
      dtype: the result dtype.
      out: unsupported; must be ``None``.
      ddof: subtracted from the count of non-NaN elements in the divisor.
      keepdims: keep reduced axes as size-1 axes.
      where: a boolean mask of the elements to include.
      mean: a precomputed :func:`nanmean` with ``keepdims=True``.

    Returns:
      The standard deviations.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(nanstd, S((2, 3), "float32")).shape
    ()
    """
    if ddof is not None:  # ``ddof`` is an operand, as in JAX's jit
        opts = {"where": where, "mean": mean}
        res = _eagerly(nanstd, out, (a, ddof), opts, axis, _static_dtype(dtype), keepdims)
        if res is not None:  # eagerly: one program, as JAX's jit
            return unchanged(res)
    dt = dtype_arg(dtype)
    if dt is not None and not _dt.issubdtype(dt, np.inexact):
        # JAX's class (its square root refuses the integer variance).
        raise TypeError(
            f"nanstd: the dtype argument must be inexact (floating or complex), got {dt}"
        )
    return unchanged(sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where, mean)))


def nancumsum(
    a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    """Cumulative sum treating NaNs as zero.

    Args:
      a: an array-like.
      axis: the axis (``None`` flattens first).
      dtype: the accumulation and result dtype.
      out: unsupported; must be ``None``.

    Returns:
      The running sums.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(nancumsum, S((2, 3), "float32")).shape
    (6,)
    """
    res = _eagerly(nancumsum, out, (a,), {}, axis, _static_dtype(dtype))
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    check_arraylike("nancumsum", a)
    return unchanged(cumsum(_nan_replaced(a, 0), axis, dtype, out))


def nancumprod(
    a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    """Cumulative product treating NaNs as one.

    Args:
      a: an array-like.
      axis: the axis (``None`` flattens first).
      dtype: the accumulation and result dtype.
      out: unsupported; must be ``None``.

    Returns:
      The running products.

    >>> from tessela_tracer import ShapeDtypeStruct as S, eval_shape
    >>> eval_shape(lambda x: nancumprod(x, 1), S((2, 3), "float32")).shape
    (2, 3)
    """
    res = _eagerly(nancumprod, out, (a,), {}, axis, _static_dtype(dtype))
    if res is not None:  # eagerly: one program, as JAX's jit
        return unchanged(res)
    check_arraylike("nancumprod", a)
    return unchanged(cumprod(_nan_replaced(a, 1), axis, dtype, out))


_REDUCE = ("axis", "dtype", "keepdims")
# Each staged function's program body (:func:`_eagerly`).
_BODIES = {
    nansum: _body(nansum, ("a",), _REDUCE),
    nanprod: _body(nanprod, ("a",), _REDUCE),
    nanmax: _body(nanmax, ("a",), ("axis", "keepdims")),
    nanmin: _body(nanmin, ("a",), ("axis", "keepdims")),
    nanmean: _body(nanmean, ("a",), _REDUCE),
    nanstd: _body(nanstd, ("a", "ddof"), _REDUCE),
    nancumsum: _body(nancumsum, ("a",), ("axis", "dtype")),
    nancumprod: _body(nancumprod, ("a",), ("axis", "dtype")),
}
