"""``tessela_tracer.lax``: lax-level operations under JAX's names."""

from tessela_tracer._custom import scatter, scatter_add, scatter_max, scatter_min, scatter_mul
from tessela_tracer._lax import (
    abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitcast_convert_type, bitwise_and,
    bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clamp, clz, complex, conj,
    convert_element_type, cos, cosh, digamma, div, eq, erf, erf_inv, erfc, exp, exp2, expm1,
    floor, ge, gt, imag, integer_pow, is_finite, le, lgamma, log, log1p, logistic, lt, max, min,
    mul, ne, neg, nextafter, not_, population_count, pow, real, rem, round, rsqrt, select,
    select_n, shift_left, shift_right_arithmetic, shift_right_logical, sign, sin, sinh, sqrt,
    square, stop_gradient, sub, tan, tanh,
)  # fmt: skip
from tessela_tracer._lax_control import cond, fori_loop, map, scan, switch, while_loop
from tessela_tracer._lax_reduce import (
    argmax, argmin, cumlogsumexp, cummax, cummin, cumprod, cumsum, dot, dot_general, reduce_and,
    reduce_max, reduce_min, reduce_or, reduce_prod, reduce_sum, sort, top_k,
)  # fmt: skip
from tessela_tracer._lax_shape import (
    broadcast, broadcast_in_dim, broadcasted_iota, concatenate, dynamic_slice,
    dynamic_update_slice, expand_dims, gather, iota, pad, reshape, rev, slice, squeeze, transpose,
)  # fmt: skip
from tessela_tracer._prims_elementwise import RoundingMethod
from tessela_tracer._prims_shape import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
)

__all__ = [
    "GatherDimensionNumbers", "GatherScatterMode", "RoundingMethod", "ScatterDimensionNumbers",
    "abs", "acos", "acosh", "add", "argmax", "argmin", "asin", "asinh", "atan", "atan2", "atanh",
    "bitcast_convert_type", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
    "broadcast", "broadcast_in_dim", "broadcasted_iota", "cbrt", "ceil", "clamp", "clz",
    "complex", "concatenate", "cond", "conj", "convert_element_type", "cos", "cosh",
    "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "digamma", "div", "dot",
    "dot_general", "dynamic_slice", "dynamic_update_slice", "eq", "erf", "erf_inv", "erfc",
    "exp", "exp2", "expand_dims", "expm1", "floor", "fori_loop", "gather", "ge", "gt", "imag",
    "integer_pow", "iota", "is_finite", "le", "lgamma", "log", "log1p", "logistic", "lt", "map",
    "max", "min", "mul", "ne", "neg", "nextafter", "not_", "pad", "population_count", "pow",
    "real", "reduce_and", "reduce_max", "reduce_min", "reduce_or", "reduce_prod", "reduce_sum",
    "rem", "reshape", "rev", "round", "rsqrt", "scan", "scatter", "scatter_add", "scatter_max",
    "scatter_min", "scatter_mul", "select", "select_n", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "sin", "sinh", "slice", "sort", "sqrt", "square",
    "squeeze", "stop_gradient", "sub", "switch", "tan", "tanh", "top_k", "transpose",
    "while_loop",
]  # fmt: skip
