"""Reductions (``sum``, ``mean``, ``argmax``, ...) and cumulative reductions.

Every reduction normalises ``axis`` and ``keepdims`` the NumPy way, masks with
``where`` (``select_n`` against the reduction's identity) and binds one
``reduce_*`` primitive; ``keepdims`` restores the reduced axes with
``broadcast_in_dim``.
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
    outside_traces,
    shape_of,
    to_inexact_dtype,
)
from ._shapes import Axis, canonicalize_axis, normalize_reduction_axes, reduced_shape
from ._where import broadcast_to, where

__all__ = [
    "all", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "mean", "min", "prod", "ptp",
    "std", "sum", "var",
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
) -> Any:
    check_arraylike(name, a)
    if where_ is None and initial is None and _eager_call(a, axis):
        out = eager_program(
            name, _reduce_program, (a,), axis, dtype, keepdims,
            name=name, prim=prim, identity=identity, binop=binop, upcast=upcast,
            to_bool=to_bool, has_identity=has_identity,
        )  # fmt: skip
        if out is not UNHASHABLE:
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
_EAGER: dict[tuple[Any, ...], Callable[..., Any]] = {}
"""Eager NumPy functions as jitted programs, per (name, static arguments)."""
UNHASHABLE = object()
"""What :func:`eager_program` returns when its static arguments cannot key a program."""


def _eager_call(a: object, axis: object) -> bool:
    # Outside any trace, on a concrete operand, with an axis that can key a
    # program (a list takes the op-by-op path, with its own checks).
    return (axis is None or type(axis) is int or type(axis) is tuple) and outside_traces(a)


def eager_program(
    name: str, body: Callable[..., Any], operands: tuple[Any, ...], /, *static: Any, **fixed: Any
) -> Any:
    """``body(*operands, *static, **fixed)`` as one compiled program per (name, ``static``).

    Eager NumPy functions that JAX compiles (reductions, ``matmul``) run so,
    instead of one dispatch per step (upcast, reduce, expand, divide).
    ``fixed`` is the same for every call with the same name and is not part
    of the key; it is bound when the program is first made.

    Returns:
      The result, or :data:`UNHASHABLE` when ``static`` cannot key a program.
    """
    key = (name, *static)
    try:
        program = _EAGER.get(key)
    except TypeError:
        return UNHASHABLE
    if program is None:
        if len(_EAGER) >= 4096:
            _EAGER.clear()

        def run(*xs: Any) -> Any:
            return body(*xs, *static, **fixed)

        run.__name__ = run.__qualname__ = name
        program = _EAGER[key] = jit(run)
    return program(*operands)


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
            to_bool=True,
        )
    )


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
    _no_out(out, "mean")
    check_arraylike("mean", a)
    args = (a, _axis_key(axis), dtype_arg(dtype), bool(keepdims), where)
    # JAX's mean is a jit with inline=True: its body is emitted in place when a
    # jaxpr is staged, and it runs as one compiled program otherwise.
    if isinstance(get_current_trace(), JaxprTrace):
        return unchanged(_mean(*args))
    if where is None and _eager_call(a, args[1]):
        out = eager_program("mean", _mean, (a,), *args[1:4], where_=None)
        if out is not UNHASHABLE:
            return unchanged(out)
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


def _axis_key(axis: Any) -> Any:
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(axis)


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
    # ``var``/``std``: the arguments checked, then one staged call.
    _no_out(out, name)
    check_arraylike(name, a)
    if mean is not None:
        check_arraylike(name, mean)
    dof = _correction(name, ddof, correction)
    return staged(a, _axis_key(axis), dtype_arg(dtype), dof, bool(keepdims), where_, mean)


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
    return unchanged(
        _moment("var", _var_jit, a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    )


def _var(
    a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where_: Any, a_mean: Any = None
) -> Any:
    shape = shape_of(a)
    axes = normalize_reduction_axes(axis, len(shape))
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
    return unchanged(
        _moment("std", _std_jit, a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    )


def _std(
    a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool, where_: Any, a_mean: Any = None
) -> Any:
    return lax.sqrt(_var_jit(a, axis, dtype, ddof, keepdims, where_, a_mean))


_std_jit = jit(_std, static_argnums=(1, 2, 4))


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
        out = eager_program(name, _arg_program, (a,), axis, bool(keepdims), name=name, prim=prim)
        if out is not UNHASHABLE:
            return out
    return _arg(name, prim, a, axis, keepdims)


def argmax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    _no_out(out, "argmax")
    return unchanged(_arg_entry("argmax", lax.argmax, a, axis, keepdims))


def argmin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    _no_out(out, "argmin")
    return unchanged(_arg_entry("argmin", lax.argmin, a, axis, keepdims))


def _cumulative(name: str, prim: Callable[..., Any], a: Any, axis: Any, dtype: Any) -> Any:
    check_arraylike(name, a)
    shape = shape_of(a)
    if axis is None:
        a = lax.reshape(a, (math.prod(shape),))
        shape = shape_of(a)
        axis = 0
    ax = canonicalize_axis(axis, len(shape))
    in_dt = aval_of(a).dtype
    out_dt = dtype_or(dtype, (_dt.canonicalize_dtype(np.int64) if in_dt == np.bool_ else in_dt))
    a = convert(a, out_dt)
    return prim(a, axis=ax, reverse=False)


def cumsum(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    _no_out(out, "cumsum")
    check_arraylike("cumsum", a)
    return unchanged(_cumsum_jit(a, axis, dtype_arg(dtype)))


def cumprod(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    _no_out(out, "cumprod")
    check_arraylike("cumprod", a)
    return unchanged(_cumprod_jit(a, axis, dtype_arg(dtype)))


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
_doc(mean, "Arithmetic mean (integers are averaged in floating point)", "mean(x, 0)", "(3,)")
_doc(var, "Variance, with ``ddof`` delta degrees of freedom", "var(x, 1, ddof=1)", "(2,)")
_doc(std, "Standard deviation, the square root of :func:`var`", "std(x, 0)", "(3,)")
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
