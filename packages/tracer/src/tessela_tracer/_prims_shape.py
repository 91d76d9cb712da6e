"""The shape family: broadcast, reshape, squeeze, transpose, rev, concatenate, pad, slice, iota."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._jaxpr import JaxprEqn
from tessela_tracer._pp import Doc, JaxprPpContext, pp_eqn_default, register_pp_rule

__all__: list[str] = []


def _prim(name: str, rule: Any) -> Primitive:
    p = Primitive(name)
    register_abstract_eval(p, rule)
    return p


_MAX_BYTES = (1 << 63) - 1


def _check_new_shape(name: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
    """Refuse negative sizes (as JAX) and sizes XLA cannot address (it would abort)."""
    if any(d < 0 for d in shape):
        raise TypeError(
            f"{name} shape must have every element be nonnegative, got {tuple(shape)}; "
            "pass sizes >= 0"
        )
    dtype = _dtypes.dtype(dtype)  # key dtypes included
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > _MAX_BYTES:
        raise ValueError(
            f"array is too big: {name} of shape {tuple(shape)} and dtype {dtype.name} "
            f"needs {nbytes} bytes, more than 2**63 - 1 (the most XLA can address); use a "
            "smaller shape"
        )


def _broadcast_in_dim_rule(
    x: ShapedArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...], sharding: Any
) -> ShapedArray:
    _check_new_shape("broadcast_in_dim", shape, x.dtype)
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; "
            f"got broadcast_dimensions {broadcast_dimensions} for operand ndim {x.ndim}."
        )
    for i, d in enumerate(broadcast_dimensions):
        if not 0 <= d < len(shape) or x.shape[i] not in (1, shape[d]):
            raise TypeError(
                "broadcast_in_dim operand dimension sizes must either be 1, or be equal to "
                f"their corresponding dimensions in the target broadcast shape; got operand "
                f"of shape {x.shape}, target broadcast shape {shape}, broadcast_dimensions "
                f"{broadcast_dimensions}"
            )
    # Any order, as in JAX (an order other than increasing also transposes).
    if len(set(broadcast_dimensions)) != len(broadcast_dimensions):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
            f"broadcast_dimensions {broadcast_dimensions}"
        )
    return ShapedArray(shape, x.dtype, x.weak_type)


broadcast_in_dim_p = _prim("broadcast_in_dim", _broadcast_in_dim_rule)


def _broadcast_in_dim_pp_rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    params = {k: v for k, v in eqn.params.items() if k not in ("shape", "sharding")}
    if not params["broadcast_dimensions"]:
        del params["broadcast_dimensions"]
    return pp_eqn_default(eqn.replace(params=params), ctx)


register_pp_rule(broadcast_in_dim_p, _broadcast_in_dim_pp_rule)


def _reshape_rule(
    x: ShapedArray, *, new_sizes: tuple[int, ...], dimensions: Any, sharding: Any
) -> ShapedArray:
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(
            f"reshape total size must be unchanged, got new_sizes {new_sizes} (of total size "
            f"{int(np.prod(new_sizes, dtype=np.int64))}) for shape {x.shape} (of total size {x.size})."
        )
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


reshape_p = _prim("reshape", _reshape_rule)


def _squeeze_rule(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    if not all(0 <= d < x.ndim for d in dimensions):
        raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one, "
                f"got shape={x.shape} and dimensions={dimensions}"
            )
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


squeeze_p = _prim("squeeze", _squeeze_rule)


def _transpose_rule(x: ShapedArray, *, permutation: tuple[int, ...]) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, got "
            f"permutation {permutation} for operand shape {x.shape}."
        )
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p = _prim("transpose", _transpose_rule)


def _rev_rule(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions {dimensions} are invalid for operand shape {x.shape}")
    return x


rev_p = _prim("rev", _rev_rule)


def _concatenate_rule(*xs: ShapedArray, dimension: int) -> ShapedArray:
    if not xs:
        raise TypeError("concatenate requires a non-empty sequence of operands")
    first = xs[0]
    for x in xs[1:]:
        if x.dtype != first.dtype:
            raise TypeError(
                "lax.concatenate requires arguments to have the same dtypes, got "
                f"{', '.join(x.dtype.name for x in xs)}."
            )
        if x.ndim != first.ndim or any(
            a != b
            for i, (a, b) in enumerate(zip(x.shape, first.shape, strict=True))
            if i != dimension
        ):
            raise TypeError(
                "Cannot concatenate arrays with shapes that differ in dimensions other than "
                f"the one being concatenated: concatenating along dimension {dimension} for "
                f"shapes {', '.join(str(x.shape) for x in xs)}."
            )
    if not 0 <= dimension < first.ndim:
        raise TypeError(
            f"concatenate dimension out of bounds: dimension {dimension} for shapes {first.shape}"
        )
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, first.dtype, all(x.weak_type for x in xs))


concatenate_p = _prim("concatenate", _concatenate_rule)


def _pad_rule(
    x: ShapedArray, pad_value: ShapedArray, *, padding_config: tuple[tuple[int, int, int], ...]
) -> ShapedArray:
    if pad_value.shape:
        raise ValueError(
            f"padding_value must be a scalar; got np.shape(padding_value)={pad_value.shape}"
        )
    if pad_value.dtype != x.dtype:
        raise TypeError(
            "lax.pad requires arguments to have the same dtypes, got "
            f"{x.dtype.name}, {pad_value.dtype.name}."
        )
    if len(padding_config) != x.ndim:
        raise ValueError(
            f"length of padding_config must equal the number of axes of operand, got "
            f"padding_config {padding_config} for operand shape {x.shape}"
        )
    shape = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config, strict=True):
        if interior < 0:
            raise ValueError(
                f"interior padding in padding_config must be nonnegative, got {padding_config}"
            )
        shape.append(lo + hi + d + max(d - 1, 0) * interior)
    if any(d < 0 for d in shape):
        raise ValueError(
            f"Dimension size after padding is not at least 0, got result shape {tuple(shape)}, "
            f"for padding_config {padding_config} and operand shape {x.shape}"
        )
    return ShapedArray(shape, x.dtype, x.weak_type)


pad_p = _prim("pad", _pad_rule)


def _slice_rule(
    x: ShapedArray,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> ShapedArray:
    if len(start_indices) != x.ndim or len(limit_indices) != x.ndim:
        raise TypeError(
            f"slice start_indices {start_indices} and limit_indices {limit_indices} must have "
            f"length equal to the number of dimensions of operand shape {x.shape}."
        )
    st = strides or (1,) * x.ndim
    shape = []
    for d, lo, hi, s in zip(x.shape, start_indices, limit_indices, st, strict=True):
        if not 0 <= lo <= hi <= d:
            raise TypeError(
                f"slice indices must satisfy 0 <= start <= limit <= shape, got start_indices "
                f"{start_indices}, limit_indices {limit_indices} for operand shape {x.shape}."
            )
        shape.append(0 if hi == lo else (hi - lo + s - 1) // s)
    return ShapedArray(shape, x.dtype, x.weak_type)


slice_p = _prim("slice", _slice_rule)


def _iota_rule(
    *, dtype: np.dtype[Any], shape: tuple[int, ...], dimension: int, sharding: Any
) -> ShapedArray:
    if not 0 <= dimension < len(shape):
        raise ValueError(
            f"iota dimension must be between 0 and len(shape), got dimension={dimension} for shape {shape}"
        )
    if not any(_dtypes.issubdtype(dtype, k) for k in (np.integer, np.inexact)):
        raise TypeError(
            f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes are subtypes "
            "of integer, floating, complexfloating; build the values in one of those and "
            "convert the result"
        )
    _check_new_shape("iota", shape, dtype)
    return ShapedArray(shape, dtype, False)


iota_p = _prim("iota", _iota_rule)
