"""Reductions (``sum``, ``mean``, ``argmax``, ...) and cumulative reductions.

Every reduction normalises ``axis`` and ``keepdims`` the NumPy way, masks with
``where`` (``select_n`` against the reduction's identity) and binds one
``reduce_*`` primitive; ``keepdims`` restores the reduced axes with
``broadcast_in_dim``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
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
    dtype_or,
    outside_traces,
    shape_of,
)
from ._eager import EAGER_PROGRAMS as _EAGER  # noqa: F401  (the cache tests read)
from ._eager import FAST, RUNNING, fast_program, program_for, remember_fast
from ._shapes import Axis, canonicalize_axis, normalize_reduction_axes, reduced_shape
from ._where import where

__all__ = [
    "all", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "min", "prod", "ptp", "sum",
]  # fmt: skip


def _expand(x: Any, shape: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    out_shape = reduced_shape(shape, axes, keepdims=True)
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return lax.broadcast_in_dim(x, out_shape, kept)


def _upcast_small_ints(dt: np.dtype[Any]) -> np.dtype[Any]:
    if dt == np.bool_:
        return _dt.canonicalize_dtype(np.int64)
    if _dt.issubdtype(dt, np.unsignedinteger) and dt.itemsize < 4:
        return _dt.canonicalize_dtype(np.uint64)
    if _dt.issubdtype(dt, np.signedinteger) and dt.itemsize < 4:
        return _dt.canonicalize_dtype(np.int64)
    return dt


def _reduce(
    name: str,
    a: Any,
    axis: Any,
    dtype: Any,
    keepdims: bool,
    initial: Any,
    where_: Any,
    *,
    prim: Callable[..., Any],
    identity: Callable[[np.dtype[Any]], Any],
    binop: Callable[[Any, Any], Any],
    upcast: bool,
    to_bool: bool = False,
    has_identity: bool = True,
    fast: dict[Any, Any] | None = None,
) -> Any:
    check_arraylike(name, a)
    if where_ is None and initial is None and _eager_call(a, axis):
        program = program_for(
            name, _reduce_program, axis, dtype, keepdims,
            name=name, prim=prim, identity=identity, binop=binop, upcast=upcast,
            to_bool=to_bool, has_identity=has_identity,
        )  # fmt: skip
        if program is not None:
            out = program(a)
            if fast is not None and dtype is None:
                remember_fast(fast, a, axis, keepdims, program)
            return out
    shape = shape_of(a)
    axes = normalize_reduction_axes(axis, len(shape))
    in_dt = aval_of(a).dtype
    out_dt: np.dtype[Any]
    if to_bool:
        out_dt = np.dtype(np.bool_)
    else:
        out_dt = dtype_or(dtype, _upcast_small_ints(in_dt) if upcast else in_dt)
    if to_bool:
        a = convert(a, out_dt)
    elif in_dt != out_dt:
        if upcast and in_dt == np.bool_:
            a = convert(a, _dt.canonicalize_dtype(np.int64))
        a = convert(a, out_dt)
    comp_dt: np.dtype[Any] = out_dt
    if out_dt == np.bool_ and prim in _BOOL_FORMS:
        # ``sum``/``prod`` with ``dtype=bool``: OR/AND of the nonzero tests, as JAX's.
        prim, binop = _BOOL_FORMS[prim]
    if upcast and out_dt in _HALF:
        comp_dt = np.dtype(np.float32)
        a = convert(a, comp_dt)
    if where_ is not None:
        if initial is None and not has_identity:
            raise ValueError(
                f"reduction operation {name} does not have an identity, so to use a "
                "where mask one has to specify 'initial'"
            )
        a = where(where_, a, np.asarray(identity(out_dt), dtype=out_dt)[()])
    if not has_identity and initial is None:
        for ax in axes:
            if shape[ax] == 0:
                raise ValueError(
                    f"zero-size array to reduction operation {name} which has no identity"
                )
    out = prim(a, axes) if axes else a
    if initial is not None:
        out = binop(convert(initial, comp_dt), out)
    if keepdims and axes:
        out = _expand(out, shape, axes)
    return convert(out, out_dt)


_HALF = frozenset({np.dtype(np.float16), np.dtype(_dt.bfloat16)})
# The boolean forms of the arithmetic reductions (and their ``initial`` operations).
_BOOL_FORMS: dict[Any, tuple[Any, Any]] = {
    lax.reduce_sum: (lax.reduce_or, lax.bitwise_or),
    lax.reduce_prod: (lax.reduce_and, lax.bitwise_and),
}


def _eager_call(a: object, axis: object) -> bool:
    # Outside any trace, on a concrete operand, with an axis that can key a
    # program (a list takes the op-by-op path, with its own checks).
    return (
        (axis is None or type(axis) is int or type(axis) is tuple)
        and not RUNNING[0]
        and outside_traces(a)
    )


def _reduce_program(
    a: Any, axis: Any, dtype: Any, keepdims: bool, /, *, name: str, **rule: Any
) -> Any:
    return _reduce(name, a, axis, dtype, keepdims, None, None, **rule)


def _dt_min(dt: np.dtype[Any]) -> Any:
    if dt == np.bool_:
        return False
    if _dt.issubdtype(dt, np.integer):
        return _dt.iinfo(dt).min
    return -np.inf


def _dt_max(dt: np.dtype[Any]) -> Any:
    if dt == np.bool_:
        return True
    if _dt.issubdtype(dt, np.integer):
        return _dt.iinfo(dt).max
    return np.inf


def _doc(fn: Callable[..., Any], what: str, example: str, result: str) -> Callable[..., Any]:
    fn.__doc__ = f"""{what}.

    Args:
      a: an array-like (not a list).
      axis: ``None`` (all axes), an int or a tuple of ints.
      dtype: dtype of the result and the accumulation, where accepted.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.
      initial: a starting value combined with the result, where accepted.
      where: a boolean mask of the elements to include, where accepted.

    Returns:
      The reduced array.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> x = ShapeDtypeStruct((2, 3), "float32")
    >>> eval_shape(lambda x: {example}, x).shape
    {result}
    """
    return fn


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise NotImplementedError(
            f"{name}: the out argument is not supported; arrays are immutable"
        )


def sum(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    if dtype is None and initial is None and where is None and out is None:
        program = fast_program(FAST["sum"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "sum")
    return unchanged(
        _reduce(
            "sum",
            a,
            axis,
            dtype,
            keepdims,
            initial,
            where,
            prim=lax.reduce_sum,
            identity=lambda d: 0,
            binop=lax.add,
            upcast=True,
            fast=FAST["sum"],
        )
    )


def prod(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    if dtype is None and initial is None and where is None and out is None:
        program = fast_program(FAST["prod"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "prod")
    return unchanged(
        _reduce(
            "prod",
            a,
            axis,
            dtype,
            keepdims,
            initial,
            where,
            prim=lax.reduce_prod,
            identity=lambda d: 1,
            binop=lax.mul,
            upcast=True,
            fast=FAST["prod"],
        )
    )


def max(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    if initial is None and where is None and out is None:
        program = fast_program(FAST["max"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "max")
    return unchanged(
        _reduce(
            "max",
            a,
            axis,
            None,
            keepdims,
            initial,
            where,
            prim=lax.reduce_max,
            identity=_dt_min,
            binop=lax.max,
            upcast=False,
            fast=FAST["max"],
            has_identity=False,
        )
    )


def min(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    if initial is None and where is None and out is None:
        program = fast_program(FAST["min"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "min")
    return unchanged(
        _reduce(
            "min",
            a,
            axis,
            None,
            keepdims,
            initial,
            where,
            prim=lax.reduce_min,
            identity=_dt_max,
            binop=lax.min,
            upcast=False,
            fast=FAST["min"],
            has_identity=False,
        )
    )


def all(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    *,
    where: ArrayLike | None = None,
) -> Array:
    if where is None and out is None:
        program = fast_program(FAST["all"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "all")
    return unchanged(
        _reduce(
            "all",
            a,
            axis,
            None,
            keepdims,
            None,
            where,
            prim=lax.reduce_and,
            identity=lambda d: True,
            binop=lax.bitwise_and,
            upcast=False,
            fast=FAST["all"],
            to_bool=True,
        )
    )


def any(
    a: ArrayLike,
    axis: Axis = None,
    out: None = None,
    keepdims: bool = False,
    *,
    where: ArrayLike | None = None,
) -> Array:
    if where is None and out is None:
        program = fast_program(FAST["any"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "any")
    return unchanged(
        _reduce(
            "any",
            a,
            axis,
            None,
            keepdims,
            None,
            where,
            prim=lax.reduce_or,
            identity=lambda d: False,
            binop=lax.bitwise_or,
            upcast=False,
            fast=FAST["any"],
            to_bool=True,
        )
    )


def _axis_key(axis: Any) -> Any:
    if axis is None or isinstance(axis, int):
        return axis
    if isinstance(axis, np.integer):  # a NumPy integer axis, as JAX takes it
        return int(axis)
    return tuple(axis)


def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    """Peak to peak: the maximum minus the minimum over the given axes.

    Args:
      a: an array-like (not a list).
      axis: ``None`` (all axes), an int or a tuple of ints.
      out: unsupported; must be ``None``.
      keepdims: keep reduced axes as size-1 axes.

    Returns:
      ``max(a, axis) - min(a, axis)``, in ``a``'s dtype.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape(lambda x: ptp(x, axis=1, keepdims=True), ShapeDtypeStruct((2, 3), "f4")).shape
    (2, 1)
    """
    _no_out(out, "ptp")
    check_arraylike("ptp", a)
    return unchanged(_ptp_jit(a, _axis_key(axis), bool(keepdims)))


def _ptp(a: Any, axis: Any, keepdims: bool) -> Any:
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


_ptp_jit = jit(_ptp, static_argnums=(1, 2))


def _arg(name: str, prim: Callable[..., Any], a: Any, axis: Any, keepdims: bool) -> Any:
    check_arraylike(name, a)
    shape = shape_of(a)
    if axis is None:
        if any_zero(shape):
            raise ValueError(f"attempt to get {name} of an empty sequence")
        flat = lax.reshape(a, (math.prod(shape),)) if len(shape) != 1 else a
        out = prim(flat, 0, _dt.canonicalize_dtype(np.int64))
        if keepdims:
            out = lax.broadcast_in_dim(out, (1,) * len(shape), ())
        return out
    ax = canonicalize_axis(axis, len(shape))
    if shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out = prim(a, ax, _dt.canonicalize_dtype(np.int64))
    return _expand(out, shape, (ax,)) if keepdims else out


def any_zero(shape: tuple[int, ...]) -> bool:
    """Whether a shape has no elements."""
    return 0 in shape


def _arg_program(a: Any, axis: Any, keepdims: bool, /, *, name: str, prim: Any) -> Any:
    return _arg(name, prim, a, axis, keepdims)


def _arg_entry(name: str, prim: Callable[..., Any], a: Any, axis: Any, keepdims: bool) -> Any:
    check_arraylike(name, a)
    if _eager_call(a, axis):
        program = program_for(name, _arg_program, axis, bool(keepdims), name=name, prim=prim)
        if program is not None:
            remember_fast(FAST[name], a, axis, keepdims, program)
            return program(a)
    return _arg(name, prim, a, axis, keepdims)


def argmax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    if out is None:
        program = fast_program(FAST["argmax"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "argmax")
    return unchanged(_arg_entry("argmax", lax.argmax, a, axis, keepdims))


def argmin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    if out is None:
        program = fast_program(FAST["argmin"], a, axis, keepdims)
        if program is not None:
            result: Array = program(a)
            return result
    _no_out(out, "argmin")
    return unchanged(_arg_entry("argmin", lax.argmin, a, axis, keepdims))


def _int_axis(axis: Any) -> Any:
    # An int axis or None, as JAX's (``1.0`` would share the program of ``1``).
    return None if axis is None else operator.index(axis)


def _cumulative(name: str, prim: Callable[..., Any], a: Any, axis: Any, dtype: Any) -> Any:
    check_arraylike(name, a)
    shape = shape_of(a)
    if axis is None:
        a = lax.reshape(a, (math.prod(shape),))
        shape = shape_of(a)
        axis = 0
    ax = canonicalize_axis(axis, len(shape))
    in_dt = aval_of(a).dtype
    int_dt = _dt.canonicalize_dtype(np.int64)
    out_dt = dtype_or(dtype, (int_dt if in_dt == np.bool_ else in_dt))
    if out_dt == np.bool_:
        # As JAX: the nonzero tests accumulate as integers, then become booleans.
        acc = prim(convert(convert(a, out_dt), int_dt), axis=ax, reverse=False)
        return convert(acc, out_dt)
    a = convert(a, out_dt)
    return prim(a, axis=ax, reverse=False)


def cumsum(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    _no_out(out, "cumsum")
    check_arraylike("cumsum", a)
    return unchanged(_cumsum_jit(a, _int_axis(axis), dtype_arg(dtype)))


def cumprod(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    _no_out(out, "cumprod")
    check_arraylike("cumprod", a)
    return unchanged(_cumprod_jit(a, _int_axis(axis), dtype_arg(dtype)))


def _cumsum(a: Any, axis: Any, dtype: Any) -> Any:
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype)


def _cumprod(a: Any, axis: Any, dtype: Any) -> Any:
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype)


_cumsum.__name__ = _cumsum.__qualname__ = "cumsum"
_cumprod.__name__ = _cumprod.__qualname__ = "cumprod"
_cumsum_jit = jit(_cumsum, static_argnums=(1, 2))
_cumprod_jit = jit(_cumprod, static_argnums=(1, 2))


_doc(sum, "Sum of array elements over the given axes", "sum(x, axis=0)", "(3,)")
_doc(prod, "Product of array elements over the given axes", "prod(x, axis=1)", "(2,)")
_doc(max, "Maximum over the given axes", "max(x, axis=1, keepdims=True)", "(2, 1)")
_doc(min, "Minimum over the given axes", "min(x)", "()")
_doc(all, "Whether all elements are true", "all(x, axis=0)", "(3,)")
_doc(any, "Whether any element is true", "any(x, axis=(0, 1))", "()")
_doc(
    argmax,
    "Index of the maximum (of the flattened array when axis is None)",
    "argmax(x, axis=1)",
    "(2,)",
)
_doc(argmin, "Index of the minimum (of the flattened array when axis is None)", "argmin(x)", "()")
_doc(
    cumsum,
    "Cumulative sum along an axis (of the flattened array when axis is None)",
    "cumsum(x, axis=1)",
    "(2, 3)",
)
_doc(
    cumprod,
    "Cumulative product along an axis (of the flattened array when axis is None)",
    "cumprod(x)",
    "(6,)",
)
