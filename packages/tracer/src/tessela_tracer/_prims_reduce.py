"""Reductions, cumulative reductions, sort, argmin/argmax and dot_general."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._config import config
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._dot_algorithm import DotAlgorithm, DotAlgorithmPreset
from tessela_tracer._jaxpr import JaxprEqn
from tessela_tracer._pp import Doc, JaxprPpContext, pp_eqn_default, register_pp_rule

__all__ = ["DotDimensionNumbers"]

DotDimensionNumbers: TypeAlias = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]
"""``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` of ``dot_general``."""


def _prim(name: str, rule: Any, *, multiple_results: bool = False) -> Primitive:
    p = Primitive(name, multiple_results=multiple_results)
    register_abstract_eval(p, rule)
    return p


_AXES_FIX = "lax takes each axis in [0, ndim): write a negative axis as axis + ndim."


def check_reduction_axes(name: str, x: ShapedArray, axes: Sequence[int], *, by_index: bool) -> None:
    """Refuse reduction axes outside ``[0, ndim)`` or repeated, as JAX does.

    ``by_index`` is for the primitives whose JAX shape rule deletes the axes
    with NumPy (the logical reductions and the general ``reduce``): an axis
    outside ``[-ndim, ndim)`` is an ``IndexError`` there, and a negative or
    repeated one a ``ValueError`` (raised by JAX when the program is lowered).
    The others (``reduce_sum``, ``reduce_max``, ...) raise ``ValueError`` for
    every bad axis, with JAX's text and a fix.

    Args:
      name: the primitive's name, for the message.
      x: the operand's abstract value.
      axes: the axes to reduce.
      by_index: raise ``IndexError`` for an axis outside ``[-ndim, ndim)``.

    Returns:
      None; raises ``ValueError`` (or ``IndexError``) for bad axes.

    Example:
        >>> import numpy as np
        >>> x = ShapedArray((2, 3), np.dtype(np.float32))
        >>> check_reduction_axes("reduce_sum", x, (1,), by_index=False)
        >>> check_reduction_axes("reduce_sum", x, (-1,), by_index=False)
        Traceback (most recent call last):
        ...
        ValueError: reduce_sum: reduction axes (-1,) contains out-of-bounds indices for float32[2,3]. lax takes each axis in [0, ndim): write a negative axis as axis + ndim.
    """
    nd = x.ndim
    if by_index:
        for a in axes:
            if not -nd <= a < nd:
                raise IndexError(
                    f"{name}: axis {a} of axes {tuple(axes)} is out of bounds for {x}. {_AXES_FIX}"
                )
    if len(set(axes)) != len(axes):
        raise ValueError(
            f"{name}: duplicate value in 'axes' of reduction: {tuple(axes)}. Name each axis once."
        )
    if not all(0 <= a < nd for a in axes):
        raise ValueError(
            f"{name}: reduction axes {tuple(axes)} contains out-of-bounds indices for {x}. "
            f"{_AXES_FIX}"
        )


def _reduce_rule(name: str, kinds: tuple[Any, ...]) -> Any:
    logical = bool in kinds

    def rule(x: ShapedArray, *, axes: tuple[int, ...], **params: Any) -> ShapedArray:
        check_reduction_axes(name, x, axes, by_index=logical)
        if kinds and not any(
            (x.dtype == _dtypes.bool_) if k is bool else _dtypes.issubdtype(x.dtype, k)
            for k in kinds
        ):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}.")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type)

    return rule


_NUMERIC = (np.number,)
_sum_rule = _reduce_rule("reduce_sum", _NUMERIC)
_allow_f16_reductions = config.state("jax_allow_f16_reductions")
_HALF = np.dtype(np.float16)


def _reduce_sum_rule(x: ShapedArray, *, axes: tuple[int, ...], **params: Any) -> ShapedArray:
    # ``jax_allow_f16_reductions=False`` refuses half-precision sums over axes
    # longer than one, with JAX's text (``jnp.sum`` accumulates in float32).
    if (
        not _allow_f16_reductions.value
        and x.dtype in (_HALF, _dtypes.bfloat16)
        and any(x.shape[a] != 1 for a in axes if 0 <= a < x.ndim)
    ):
        raise ValueError(
            f"reduce_sum on operand {x.str_short(short_dtypes=True)} is not allowed when "
            "jax_allow_f16_reductions=False."
        )
    return _sum_rule(x, axes=axes, **params)  # type: ignore[no-any-return]


reduce_sum_p = _prim("reduce_sum", _reduce_sum_rule)
reduce_prod_p = _prim("reduce_prod", _reduce_rule("reduce_prod", _NUMERIC))
reduce_max_p = _prim("reduce_max", _reduce_rule("reduce_max", ()))
reduce_min_p = _prim("reduce_min", _reduce_rule("reduce_min", ()))
reduce_and_p = _prim("reduce_and", _reduce_rule("reduce_and", (bool, np.integer)))
reduce_or_p = _prim("reduce_or", _reduce_rule("reduce_or", (bool, np.integer)))
reduce_xor_p = _prim("reduce_xor", _reduce_rule("reduce_xor", (bool, np.integer)))


def _arg_rule(name: str) -> Any:
    def rule(x: ShapedArray, *, axes: tuple[int, ...], index_dtype: np.dtype[Any]) -> ShapedArray:
        if len(axes) != 1:
            raise ValueError(f"{name} takes exactly one axis, got axes={axes}")
        (axis,) = axes
        if not 0 <= axis < x.ndim:
            raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
        if x.shape[axis] == 0:
            raise ValueError(
                f"argmin and argmax require non-empty reduced dimension. operand.shape={x.shape} "
                f"axis={axis}"
            )
        if not _dtypes.issubdtype(index_dtype, np.integer):
            raise TypeError(f"{name} index_dtype must be an integer type, got {index_dtype}")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, index_dtype, False)

    return rule


argmax_p = _prim("argmax", _arg_rule("argmax"))
argmin_p = _prim("argmin", _arg_rule("argmin"))


def _cumulative_rule(name: str) -> Any:
    def rule(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
        # JAX's checks and texts: no negative axis, numbers only (no bool).
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        if not _dtypes.issubdtype(x.dtype, np.number):
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                "of number."
            )
        return x

    return rule


cumsum_p = _prim("cumsum", _cumulative_rule("cumsum"))
cumprod_p = _prim("cumprod", _cumulative_rule("cumprod"))
cummax_p = _prim("cummax", _cumulative_rule("cummax"))
cummin_p = _prim("cummin", _cumulative_rule("cummin"))
cumlogsumexp_p = _prim("cumlogsumexp", _cumulative_rule("cumlogsumexp"))


def _sort_rule(
    *xs: ShapedArray, dimension: int, is_stable: bool, num_keys: int
) -> list[ShapedArray]:
    if not xs:
        raise TypeError("sort requires at least one operand")
    if any(x.shape != xs[0].shape for x in xs):
        raise TypeError(f"sort operands must have the same shape, got {[x.shape for x in xs]}")
    if not 1 <= num_keys <= len(xs):
        raise ValueError(
            f"sort num_keys={num_keys} must be between 1 and the number of operands {len(xs)}"
        )
    if not 0 <= dimension < xs[0].ndim:
        raise ValueError(f"sort dimension {dimension} is out of bounds for shape {xs[0].shape}")
    return list(xs)


sort_p = _prim("sort", _sort_rule, multiple_results=True)


def _top_k_rule(x: ShapedArray, *, k: int, axis: int) -> list[ShapedArray]:
    if x.dtype.kind == "c":
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {x.str_short()}")
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for operand.shape={x.shape}")
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"top_k k={k} must be between 0 and the axis size {x.shape[axis]}")
    shape = list(x.shape)
    shape[axis] = k
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32, False)]


top_k_p = _prim("top_k", _top_k_rule, multiple_results=True)


def _dot_type_rank(dt: np.dtype[Any]) -> tuple[bool, int, int, int, bool]:
    # XLA's HigherPrecisionType order, as JAX compares operand dtypes.
    complex_ = dt.kind == "c"
    c = _dtypes.finfo(dt).dtype if complex_ else dt
    floating = _dtypes.issubdtype(c, np.floating)
    fi = _dtypes.finfo(c) if floating else None
    return (
        complex_,
        fi.maxexp if fi is not None else -1,
        fi.nmant if fi is not None else -1,
        _bit_width(c),
        not _dtypes.issubdtype(c, np.unsignedinteger),
    )


def _bit_width(dt: np.dtype[Any]) -> int:
    if dt == np.bool_:
        return 1
    if _dtypes.issubdtype(dt, np.inexact):
        return int(_dtypes.finfo(dt).bits)
    return int(_dtypes.iinfo(dt).bits)


def _dot_result_dtype(
    lhs: np.dtype[Any], rhs: np.dtype[Any], preferred: Any, precision: Any
) -> np.dtype[Any]:
    """JAX's ``dot_general`` dtype: the higher of two operand dtypes, then ``preferred``."""
    lp, rp = _dot_type_rank(lhs), _dot_type_rank(rhs)
    if lp == rp and lhs != rhs:
        raise TypeError(f"lax.dot_general argument type error: {lhs}, {rhs}")
    result = lhs if lp >= rp else rhs
    if preferred is None or result == np.dtype(preferred):
        return result
    pref: np.dtype[Any] = np.dtype(preferred)
    has_algorithm = isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))
    if (
        not has_algorithm
        and not _dtypes.issubdtype(result, np.floating)
        and _bit_width(pref) < _bit_width(result)
    ):
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {pref} for result type of {result}."
        )
    return pref


def _dot_general_rule(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    dimension_numbers: Any,
    precision: Any,
    preferred_element_type: Any,
    out_sharding: Any,
) -> ShapedArray:
    (lc, rc), (lb, rb) = dimension_numbers
    # JAX's checks, in its order and with its texts.
    for side, x, c, b in (("lhs", lhs, lc, lb), ("rhs", rhs, rc, rb)):
        if not all(0 <= d < x.ndim for d in (*c, *b)):
            raise TypeError(
                f"dot_general requires {side} dimension numbers to be nonnegative and less "
                f"than the number of axes of the {side} value, got {side}_batch of {tuple(b)} "
                f"and {side}_contracting of {tuple(c)} for {side} of rank {x.ndim}"
            )
    if len(lb) != len(rb):
        raise TypeError(
            "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got "
            f"lhs_batch {tuple(lb)} and rhs_batch {tuple(rb)}."
        )
    for side, c, b in (("lhs", lc, lb), ("rhs", rc, rb)):
        if len(set(b)) != len(b):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be distinct, got "
                f"{side}_batch {tuple(b)}."
            )
        if len(set(c)) != len(c):
            raise TypeError(
                f"dot_general requires {side} contracting dimensions to be distinct, got "
                f"{side}_contracting {tuple(c)}."
            )
    for side, c, b in (("lhs", lc, lb), ("rhs", rc, rb)):
        if set(c) & set(b):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be disjoint from contracting "
                f"dimensions, got {side}_batch {tuple(b)} and {side}_contracting {tuple(c)}."
            )
    lbs, rbs = tuple(lhs.shape[i] for i in lb), tuple(rhs.shape[i] for i in rb)
    if lbs != rbs:
        raise TypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
            f"same shape, got {lbs} and {rbs}."
        )
    lcs, rcs = tuple(lhs.shape[i] for i in lc), tuple(rhs.shape[i] for i in rc)
    if lcs != rcs:
        raise TypeError(
            "dot_general requires contracting dimensions to have the same shape, got "
            f"{lcs} and {rcs}."
        )
    dt = _dot_result_dtype(lhs.dtype, rhs.dtype, preferred_element_type, precision)
    batch = [lhs.shape[i] for i in lb]
    lfree = [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray((*batch, *lfree, *rfree), dt, weak)


dot_general_p = _prim("dot_general", _dot_general_rule)


def _dot_general_pp_rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    params = {k: v for k, v in eqn.params.items() if v is not None and k != "out_sharding"}
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return pp_eqn_default(eqn.replace(params=params), ctx)


register_pp_rule(dot_general_p, _dot_general_pp_rule)
