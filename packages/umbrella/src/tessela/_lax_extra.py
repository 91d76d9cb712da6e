"""``jax.lax`` names beyond the tracer's ``lax``: ``broadcast_shapes`` and the primitives.

The ``*_p`` objects are the tracer's own primitives (``tessela_tracer.primitives``)
under the ``jax.lax`` names that JAX gives them, so rule tables keyed by
``lax.add_p`` see the primitive that ``lax.add`` binds.

Example:
    >>> from tessela._lax_extra import add_p, broadcast_shapes
    >>> add_p.name, broadcast_shapes((2, 1), (3,))
    ('add', (2, 3))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import DTypeLike
from tessela_tracer import lax as _lax
from tessela_tracer.dtypes import canonicalize_dtype as _canonicalize_dtype
from tessela_tracer.dtypes import dtype as _dtype
from tessela_tracer.primitives import (
    abs_p,
    acos_p,
    acosh_p,
    add_p,
    all_gather_p,
    and_p,
    argmax_p,
    argmin_p,
    asin_p,
    asinh_p,
    atan2_p,
    atan_p,
    atanh_p,
    axis_index_p,
    bessel_i0e_p,
    bessel_i1e_p,
    bitcast_convert_type_p,
    broadcast_in_dim_p,
    cbrt_p,
    ceil_p,
    clamp_p,
    clz_p,
    complex_p,
    concatenate_p,
    cond_p,
    conj_p,
    conv_general_dilated_p,
    convert_element_type_p,
    cos_p,
    cosh_p,
    cumlogsumexp_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    device_put_p,
    digamma_p,
    div_p,
    dot_general_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    eq_p,
    erf_inv_p,
    erf_p,
    erfc_p,
    exp2_p,
    exp_p,
    expm1_p,
    fft_p,
    floor_p,
    gather_p,
    ge_p,
    gt_p,
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    imag_p,
    integer_pow_p,
    iota_p,
    is_finite_p,
    le_p,
    lgamma_p,
    log1p_p,
    log_p,
    logistic_p,
    lt_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    nextafter_p,
    not_p,
    optimization_barrier_p,
    or_p,
    pad_p,
    pmax_p,
    pmin_p,
    polygamma_p,
    population_count_p,
    pow_p,
    psum_p,
    real_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_p,
    reduce_precision_p,
    reduce_prod_p,
    reduce_sum_p,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
    reduce_xor_p,
    regularized_incomplete_beta_p,
    rem_p,
    reshape_p,
    rev_p,
    round_p,
    rsqrt_p,
    scan_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
    select_and_gather_add_p,
    select_and_scatter_add_p,
    select_n_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    sign_p,
    sin_p,
    sinh_p,
    slice_p,
    sort_p,
    split_p,
    sqrt_p,
    square_p,
    squeeze_p,
    stack_p,
    stop_gradient_p,
    sub_p,
    tan_p,
    tanh_p,
    tile_p,
    top_k_p,
    transpose_p,
    unstack_p,
    while_p,
    xor_p,
    zeta_p,
)
from tessela_tracer.typing import Array, ArrayLike

__all__ = [
    "abs_p",
    "acos_p",
    "acosh_p",
    "add_p",
    "all_gather_p",
    "and_p",
    "argmax_p",
    "argmin_p",
    "asin_p",
    "asinh_p",
    "atan2_p",
    "atan_p",
    "atanh_p",
    "axis_index_p",
    "bessel_i0e_p",
    "bessel_i1e_p",
    "bitcast_convert_type_p",
    "broadcast_in_dim_p",
    "broadcast_shapes",
    "broadcast_to_rank",
    "cbrt_p",
    "ceil_p",
    "clamp_p",
    "clz_p",
    "collapse",
    "complex_p",
    "concatenate_p",
    "cond_p",
    "conj_p",
    "conv_general_dilated_p",
    "convert_element_type_p",
    "cos_p",
    "cosh_p",
    "cumlogsumexp_p",
    "cummax_p",
    "cummin_p",
    "cumprod_p",
    "cumsum_p",
    "device_put_p",
    "digamma_p",
    "div_p",
    "dot_general_p",
    "dtype",
    "dynamic_slice_p",
    "dynamic_update_slice_p",
    "eq_p",
    "erf_inv_p",
    "erf_p",
    "erfc_p",
    "exp2_p",
    "exp_p",
    "expm1_p",
    "fft_p",
    "floor_p",
    "gather_p",
    "ge_p",
    "gt_p",
    "igamma_grad_a_p",
    "igamma_p",
    "igammac_p",
    "imag_p",
    "integer_pow_p",
    "iota_p",
    "is_finite_p",
    "le_p",
    "lgamma_p",
    "log1p_p",
    "log_p",
    "logistic_p",
    "lt_p",
    "max_p",
    "min_p",
    "mul_p",
    "ne_p",
    "neg_p",
    "nextafter_p",
    "not_p",
    "optimization_barrier_p",
    "or_p",
    "pad_p",
    "pmax_p",
    "pmin_p",
    "polygamma_p",
    "population_count_p",
    "pow_p",
    "psum_p",
    "real_p",
    "reciprocal",
    "reduce_and_p",
    "reduce_max_p",
    "reduce_min_p",
    "reduce_or_p",
    "reduce_p",
    "reduce_precision_p",
    "reduce_prod_p",
    "reduce_sum_p",
    "reduce_window_max_p",
    "reduce_window_min_p",
    "reduce_window_sum_p",
    "reduce_xor_p",
    "regularized_incomplete_beta_p",
    "rem_p",
    "reshape_p",
    "rev_p",
    "round_p",
    "rsqrt_p",
    "scan_p",
    "scatter_add_p",
    "scatter_max_p",
    "scatter_min_p",
    "scatter_mul_p",
    "scatter_p",
    "select_and_gather_add_p",
    "select_and_scatter_add_p",
    "select_n_p",
    "shift_left_p",
    "shift_right_arithmetic_p",
    "shift_right_logical_p",
    "sign_p",
    "sin_p",
    "sinh_p",
    "slice_p",
    "sort_p",
    "split_p",
    "sqrt_p",
    "square_p",
    "squeeze_p",
    "stack_p",
    "stop_gradient_p",
    "sub_p",
    "tan_p",
    "tanh_p",
    "tile_p",
    "top_k_p",
    "transpose_p",
    "unstack_p",
    "while_p",
    "xor_p",
    "zeta_p",
]


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to, with rank promotion, as ``jax.lax.broadcast_shapes``.

    Args:
        *shapes: one or more shapes (tuples of ints).

    Returns:
        The broadcast shape.

    Raises:
        TypeError: no shape given.
        ValueError: shapes that do not broadcast (the message lists them).

    Example:
        >>> broadcast_shapes((5, 1, 3), (4, 1), (3,))
        (5, 4, 3)
    """
    if not shapes:
        raise TypeError("broadcast_shapes: At least one shape is required.")
    tuples = [tuple(shape) for shape in shapes]
    for shape in tuples:
        if not all(isinstance(d, int) and d >= 0 for d in shape):
            raise TypeError(
                f"broadcast_shapes: shapes must be tuples of nonnegative ints, got {shape}"
            )
    if len(tuples) == 1:
        return tuples[0]
    ndim = max(len(s) for s in tuples)
    padded = [(1,) * (ndim - len(s)) + s for s in tuples]
    result = []
    for dims in zip(*padded, strict=True):
        non_1s = {d for d in dims if d != 1}
        if len(non_1s) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        result.append(non_1s.pop() if non_1s else 1)
    return tuple(result)


def broadcast_to_rank(x: ArrayLike, rank: int) -> Array:
    """``x`` with leading unit axes added up to ``rank`` dimensions.

    Args:
        x: an array.
        rank: the number of dimensions wanted (at least ``x.ndim``).

    Returns:
        The broadcast array.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
        >>> eval_shape(lambda x: broadcast_to_rank(x, 3), ShapeDtypeStruct((2,), "f4")).shape
        (1, 1, 2)
        >>> eval_shape(lambda x: broadcast_to_rank(x, 1), ShapeDtypeStruct((2,), "f4")).shape
        (2,)
    """
    ndim = int(np.ndim(x))
    return _lax.broadcast(x, (1,) * (rank - ndim))


def collapse(operand: ArrayLike, start_dimension: int, stop_dimension: int | None = None) -> Array:
    """Merge the axes ``start_dimension:stop_dimension`` into one.

    Args:
        operand: an array.
        start_dimension: the first axis merged.
        stop_dimension: one past the last axis merged (the end when None).

    Returns:
        The reshaped array.

    Raises:
        ValueError: an empty or reversed range.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
        >>> eval_shape(lambda x: collapse(x, 1), ShapeDtypeStruct((2, 3, 4), "f4")).shape
        (2, 12)
    """
    shape = tuple(np.shape(operand))
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            f"Invalid dimension range passed to collapse: {shape}[{start_dimension}:{stop_dimension}]"
        )
    new_shape = (*shape[:lo], math.prod(shape[lo:hi]), *shape[hi:])
    return _lax.reshape(operand, new_shape)


def reciprocal(x: ArrayLike) -> Array:
    """Elementwise ``1 / x`` (``integer_pow(x, -1)``, as JAX).

    Args:
        x: an array.

    Returns:
        The reciprocal.

    Example:
        >>> from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr
        >>> print(make_jaxpr(reciprocal)(ShapeDtypeStruct((2,), "f4")))
        { lambda ; a:f32[2]. let b:f32[2] = integer_pow[y=-1] a in (b,) }
    """
    return _lax.integer_pow(x, -1)


def dtype(x: ArrayLike | DTypeLike) -> np.dtype[Any]:
    """The (canonical) dtype of a value, as ``jax.lax.dtype``.

    Args:
        x: an array, scalar, Python scalar type or dtype name.

    Returns:
        Its dtype, 32-bit unless 64-bit mode is on.

    Example:
        >>> dtype(1.0), dtype(1), dtype("float64")
        (dtype('float32'), dtype('int32'), dtype('float32'))
    """
    extended = None if isinstance(x, type) else getattr(x, "dtype", None)
    if extended is not None and not isinstance(extended, np.dtype):
        return extended  # type: ignore[no-any-return]  # an extended dtype (PRNG keys)
    return np.dtype(_canonicalize_dtype(_dtype(x)))
