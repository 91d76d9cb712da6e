"""Reductions, cumulative reductions, sort, argmin/argmax and dot_general."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._config import config
from tessela_tracer._core import Primitive, register_abstract_eval
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


def _check_axes(name: str, x: ShapedArray, axes: tuple[int, ...]) -> None:
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ValueError(f"{name}: invalid axes {axes} for operand shape {x.shape}")


def _reduce_rule(name: str, kinds: tuple[Any, ...]) -> Any:
    def rule(x: ShapedArray, *, axes: tuple[int, ...], **params: Any) -> ShapedArray:
        _check_axes(name, x, axes)
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
        _check_axes(name, x, axes)
        if len(axes) != 1:
            raise ValueError(f"{name} takes exactly one axis, got axes={axes}")
        if not _dtypes.issubdtype(index_dtype, np.integer):
            raise TypeError(f"{name} index_dtype must be an integer type, got {index_dtype}")
        if x.shape[axes[0]] == 0:
            raise ValueError(f"{name} on an empty axis: axis {axes[0]} of shape {x.shape}")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, index_dtype, False)

    return rule


argmax_p = _prim("argmax", _arg_rule("argmax"))
argmin_p = _prim("argmin", _arg_rule("argmin"))


def _cumulative_rule(name: str) -> Any:
    def rule(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
        if not 0 <= axis < max(x.ndim, 1) or (x.ndim == 0):
            raise ValueError(f"{name}: axis {axis} is out of bounds for array of shape {x.shape}")
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
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"top_k k={k} must be between 0 and the axis size {x.shape[axis]}")
    shape = list(x.shape)
    shape[axis] = k
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32, False)]


top_k_p = _prim("top_k", _top_k_rule, multiple_results=True)


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
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise TypeError(
            "dot_general requires equal numbers of lhs and rhs contracting and batch "
            f"dimensions, got {dimension_numbers}."
        )
    for a, b in (*zip(lc, rc, strict=True), *zip(lb, rb, strict=True)):
        if not (0 <= a < lhs.ndim and 0 <= b < rhs.ndim) or lhs.shape[a] != rhs.shape[b]:
            raise TypeError(
                "dot_general requires contracting and batch dimensions to have the same shape, "
                f"got lhs shape {lhs.shape}, rhs shape {rhs.shape} and dimension_numbers "
                f"{dimension_numbers}."
            )
    if lhs.dtype != rhs.dtype and preferred_element_type is None:
        raise TypeError(
            "lax.dot_general requires arguments to have the same dtypes, got "
            f"{lhs.dtype.name}, {rhs.dtype.name}. (Tip: tessela_numpy.dot is a similar "
            "function that does automatic type promotion on inputs)."
        )
    batch = [lhs.shape[i] for i in lb]
    lfree = [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]
    dt = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray((*batch, *lfree, *rfree), dt, weak)


dot_general_p = _prim("dot_general", _dot_general_rule)


def _dot_general_pp_rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    params = {k: v for k, v in eqn.params.items() if v is not None and k != "out_sharding"}
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return pp_eqn_default(eqn.replace(params=params), ctx)


register_pp_rule(dot_general_p, _dot_general_pp_rule)
