"""Elementwise primitives: one shared rule per family, lax wrappers beside them."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import numpy as np

from tessela_tracer import _dtypes
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval
from tessela_tracer._jaxpr import JaxprEqn
from tessela_tracer._key_dtypes import is_extended, prng_key
from tessela_tracer._pp import Doc, JaxprPpContext, pp_eqn_default, register_pp_rule

__all__ = ["RoundingMethod"]

_FLOAT = ("floating", "complexfloating")
_REAL_FLOAT = ("floating",)
_INT = ("integer",)
_INT_BOOL = ("integer", "bool")
_NUM = ("integer", "floating", "complexfloating")
_REAL = ("integer", "floating")
_SIGNED_NUM = ("signedinteger", "floating", "complexfloating")
_ANY = ("integer", "floating", "complexfloating", "bool")
_ORDERED = ("integer", "floating", "bool")
_KIND_TYPES: dict[str, Any] = {
    "floating": np.floating,
    "complexfloating": np.complexfloating,
    "integer": np.integer,
    "signedinteger": np.signedinteger,
    "bool": np.bool_,
    "prng_key": prng_key,
}


def _check_kinds(name: str, dt: np.dtype[Any], kinds: tuple[str, ...]) -> None:
    for k in kinds:
        if k == "bool":
            if dt == _dtypes.bool_:
                return
        elif _dtypes.issubdtype(dt, _KIND_TYPES[k]):
            return
    raise TypeError(
        f"{name} does not accept dtype {dt.name}. Accepted dtypes are subtypes of "
        f"{', '.join(kinds)}."
    )


def broadcasting_shape(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """The result shape of an n-ary lax op: equal ranks, size-1 dims and scalars broadcast."""
    shapes = [a.shape for a in avals if a.shape]
    if not shapes:
        return ()
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    if len({len(s) for s in shapes}) != 1:
        raise TypeError(
            f"{name}: arrays must have same number of dimensions, got "
            f"{', '.join(str(s) for s in shapes)}."
        )
    out = []
    for ds in zip(*shapes, strict=True):
        non1 = {d for d in ds if d != 1}
        if len(non1) > 1:
            raise TypeError(
                f"{name} got incompatible shapes for broadcasting: "
                f"{', '.join(str(s) for s in shapes)}."
            )
        out.append(non1.pop() if non1 else 1)
    return tuple(out)


# ----------------------------------------------------------------- unary


def _unary_rule(
    name: str, kinds: tuple[str, ...], out: Callable[[np.dtype[Any]], np.dtype[Any]] | None
) -> Callable[..., ShapedArray]:
    cache: dict[ShapedArray, ShapedArray] = {}

    def rule(x: ShapedArray, **params: Any) -> ShapedArray:
        res = cache.get(x)
        if res is None:
            _check_kinds(name, x.dtype, kinds)
            if out is None:
                res = x
            else:
                res = ShapedArray(x.shape, out(x.dtype), x.weak_type and out(x.dtype) == x.dtype)
            cache[x] = res
        return res

    return rule


def _real_of(dt: np.dtype[Any]) -> np.dtype[Any]:
    if np.issubdtype(dt, np.complexfloating):
        return np.dtype(np.float32) if dt == np.complex64 else np.dtype(np.float64)
    return dt


def unary_primitive(
    name: str,
    kinds: tuple[str, ...],
    out: Callable[[np.dtype[Any]], np.dtype[Any]] | None = None,
) -> Primitive:
    """Define an elementwise unary primitive accepting the given dtype kinds."""
    p = Primitive(name)
    register_abstract_eval(p, _unary_rule(name, kinds, out))
    return p


neg_p = unary_primitive("neg", _NUM)
sign_p = unary_primitive("sign", _NUM)
floor_p = unary_primitive("floor", _REAL_FLOAT)
ceil_p = unary_primitive("ceil", _REAL_FLOAT)
round_p = unary_primitive("round", _REAL_FLOAT)
is_finite_p = unary_primitive("is_finite", _REAL_FLOAT, lambda d: _dtypes.bool_)
abs_p = unary_primitive("abs", _SIGNED_NUM, _real_of)
exp_p = unary_primitive("exp", _FLOAT)
exp2_p = unary_primitive("exp2", _FLOAT)
log_p = unary_primitive("log", _FLOAT)
log1p_p = unary_primitive("log1p", _FLOAT)
expm1_p = unary_primitive("expm1", _FLOAT)
tanh_p = unary_primitive("tanh", _FLOAT)
logistic_p = unary_primitive("logistic", _FLOAT)
sin_p = unary_primitive("sin", _FLOAT)
cos_p = unary_primitive("cos", _FLOAT)
tan_p = unary_primitive("tan", _FLOAT)
asin_p = unary_primitive("asin", _FLOAT)
acos_p = unary_primitive("acos", _FLOAT)
atan_p = unary_primitive("atan", _FLOAT)
sinh_p = unary_primitive("sinh", _FLOAT)
cosh_p = unary_primitive("cosh", _FLOAT)
asinh_p = unary_primitive("asinh", _FLOAT)
acosh_p = unary_primitive("acosh", _FLOAT)
atanh_p = unary_primitive("atanh", _FLOAT)
sqrt_p = unary_primitive("sqrt", _FLOAT)
rsqrt_p = unary_primitive("rsqrt", _FLOAT)
cbrt_p = unary_primitive("cbrt", _REAL_FLOAT)
square_p = unary_primitive("square", _NUM)
erf_p = unary_primitive("erf", _REAL_FLOAT)
erfc_p = unary_primitive("erfc", _REAL_FLOAT)
erf_inv_p = unary_primitive("erf_inv", _REAL_FLOAT)
lgamma_p = unary_primitive("lgamma", _REAL_FLOAT)
digamma_p = unary_primitive("digamma", _REAL_FLOAT)
not_p = unary_primitive("not", _INT_BOOL)
population_count_p = unary_primitive("population_count", _INT)
clz_p = unary_primitive("clz", _INT)
real_p = unary_primitive("real", ("complexfloating",), _real_of)
imag_p = unary_primitive("imag", ("complexfloating",), _real_of)
integer_pow_p = unary_primitive("integer_pow", _NUM)
_integer_pow_kinds = _unary_rule("integer_pow", _NUM, None)


def _integer_pow_rule(x: ShapedArray, *, y: int) -> ShapedArray:
    out: ShapedArray = _integer_pow_kinds(x, y=y)
    if y < 0 and _dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(
            f"Integers cannot be raised to negative powers, got integer_pow({x.str_short()}, {y})"
        )
    return out


register_abstract_eval(integer_pow_p, _integer_pow_rule)
stop_gradient_p = unary_primitive("stop_gradient", _ANY)


def _conj_rule(x: ShapedArray, *, input_dtype: Any) -> ShapedArray:
    _check_kinds("conj", x.dtype, _FLOAT)
    dt = x.dtype
    if not np.issubdtype(dt, np.complexfloating):
        dt = np.dtype(np.complex128 if dt == np.float64 else np.complex64)
    return ShapedArray(x.shape, dt, x.weak_type)


conj_p = Primitive("conj")
register_abstract_eval(conj_p, _conj_rule)


# ----------------------------------------------------------------- n-ary


def _same_dtypes(name: str, avals: tuple[ShapedArray, ...]) -> np.dtype[Any]:
    dt = avals[0].dtype
    for a in avals[1:]:
        if a.dtype != dt:
            raise TypeError(
                f"lax.{name} requires arguments to have the same dtypes, got "
                f"{', '.join(a.dtype.name for a in avals)}. (Tip: tessela_numpy.{name} is "
                "a similar function that does automatic type promotion on inputs)."
            )
    return dt


def _nary_rule(
    name: str, kinds: tuple[str, ...], out: Callable[[np.dtype[Any]], np.dtype[Any]] | None
) -> Callable[..., ShapedArray]:
    cache: dict[tuple[ShapedArray, ...], ShapedArray] = {}

    def rule(*avals: ShapedArray) -> ShapedArray:
        res = cache.get(avals)
        if res is None:
            dt = _same_dtypes(name, avals)
            _check_kinds(name, dt, kinds)
            shape = broadcasting_shape(name, *avals)
            weak = all(a.weak_type for a in avals)
            if out is not None:
                dt = out(dt)
                weak = False
            res = ShapedArray(shape, dt, weak)
            if len(cache) < 4096:
                cache[avals] = res
        return res

    return rule


def nary_primitive(
    name: str,
    kinds: tuple[str, ...],
    out: Callable[[np.dtype[Any]], np.dtype[Any]] | None = None,
) -> Primitive:
    """Define an elementwise n-ary primitive (operands share one dtype)."""
    p = Primitive(name)
    register_abstract_eval(p, _nary_rule(name, kinds, out))
    return p


def _to_bool(dt: np.dtype[Any]) -> np.dtype[Any]:
    return _dtypes.bool_


add_p = nary_primitive("add", _NUM)
sub_p = nary_primitive("sub", _NUM)
mul_p = nary_primitive("mul", _NUM)
div_p = nary_primitive("div", _NUM)
rem_p = nary_primitive("rem", _REAL)
max_p = nary_primitive("max", _ANY)
min_p = nary_primitive("min", _ANY)
atan2_p = nary_primitive("atan2", _FLOAT)
nextafter_p = nary_primitive("nextafter", _REAL_FLOAT)
# The special functions of two real operands, beside lgamma/digamma above:
# polygamma(m, x) is the m-th derivative of digamma; zeta(x, q) is Hurwitz's zeta.
polygamma_p = nary_primitive("polygamma", _REAL_FLOAT)
zeta_p = nary_primitive("zeta", _REAL_FLOAT)
and_p = nary_primitive("and", _INT_BOOL)
or_p = nary_primitive("or", _INT_BOOL)
xor_p = nary_primitive("xor", _INT_BOOL)
shift_left_p = nary_primitive("shift_left", _INT)
shift_right_logical_p = nary_primitive("shift_right_logical", _INT)
shift_right_arithmetic_p = nary_primitive("shift_right_arithmetic", _INT)
# The high half of the double-width product of two integers of one dtype.
mulhi_p = nary_primitive("mulhi", _INT)
# Keys compare for equality (as in JAX), and for nothing else.
eq_p = nary_primitive("eq", (*_ANY, "prng_key"), _to_bool)
ne_p = nary_primitive("ne", (*_ANY, "prng_key"), _to_bool)
lt_p = nary_primitive("lt", _ORDERED, _to_bool)
le_p = nary_primitive("le", _ORDERED, _to_bool)
gt_p = nary_primitive("gt", _ORDERED, _to_bool)
ge_p = nary_primitive("ge", _ORDERED, _to_bool)
complex_p = nary_primitive(
    "complex",
    _REAL_FLOAT,
    lambda d: np.dtype(np.complex128 if d == np.float64 else np.complex64),
)


def _pow_rule(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    _check_kinds("pow", x.dtype, _FLOAT)
    if y.dtype != x.dtype:
        _check_kinds("pow", y.dtype, _INT)
    return ShapedArray(broadcasting_shape("pow", x, y), x.dtype, x.weak_type and y.weak_type)


pow_p = Primitive("pow")
register_abstract_eval(pow_p, _pow_rule)


def _clamp_rule(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for name, a in (("min", lo), ("max", hi)):
        if a.dtype != x.dtype:
            raise TypeError(
                f"lax.clamp requires arguments to have the same dtypes, got "
                f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}."
            )
        if a.shape and a.shape != x.shape:
            raise TypeError(
                f"clamp requires {name} to be a scalar or have the same shape as operand: "
                f"got {name} shape {a.shape} and operand shape {x.shape}"
            )
    return x


clamp_p = Primitive("clamp")
register_abstract_eval(clamp_p, _clamp_rule)


def _select_n_rule(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise TypeError("select_n must have at least one case")
    first = cases[0]
    for c in cases[1:]:
        if c.shape != first.shape or c.dtype != first.dtype:
            raise TypeError(
                "select_n cases must have the same shapes and dtypes, got "
                f"{', '.join(c.str_short() for c in cases)}."
            )
    if which.shape and which.shape != first.shape:
        raise TypeError(
            "select_n `which` must be scalar or have the same shape as cases, got "
            f"which shape {which.shape} and case shape {first.shape}."
        )
    if which.dtype == _dtypes.bool_:
        if len(cases) > 2:
            raise TypeError("select_n with a boolean `which` takes at most two cases")
    elif not _dtypes.issubdtype(which.dtype, np.integer):
        raise TypeError(
            f"select_n `which` must be boolean or integer type, got {which.dtype.name}."
        )
    return ShapedArray(first.shape, first.dtype, all(c.weak_type for c in cases))


select_n_p = Primitive("select_n")
register_abstract_eval(select_n_p, _select_n_rule)


class RoundingMethod(enum.IntEnum):
    """How ``lax.round`` breaks ties."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def _convert_rule(
    x: ShapedArray, *, new_dtype: np.dtype[Any], weak_type: bool, sharding: Any
) -> ShapedArray:
    if is_extended(x.dtype) or is_extended(new_dtype):
        if x.dtype == new_dtype:
            return x
        raise TypeError(
            f"convert_element_type does not accept dtype {x.dtype} to {new_dtype}: PRNG key "
            "arrays have no numeric value. Use random.key_data(keys) for their uint32 data."
        )
    return ShapedArray(x.shape, new_dtype, weak_type)


convert_element_type_p = Primitive("convert_element_type")
register_abstract_eval(convert_element_type_p, _convert_rule)


def _convert_pp_rule(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    params = {k: v for k, v in eqn.params.items() if k != "sharding"}
    return pp_eqn_default(eqn.replace(params=params), ctx)


register_pp_rule(convert_element_type_p, _convert_pp_rule)


def _bitcast_rule(x: ShapedArray, *, new_dtype: np.dtype[Any]) -> ShapedArray:
    # JAX's shape rule, then its dtype rule, with their classes and texts.
    old_dt, new_dt = x.dtype, np.dtype(new_dtype)
    old, new = old_dt.itemsize * 8, new_dt.itemsize * 8
    if old == new:
        shape = x.shape
    elif old > new:
        if old % new:
            raise TypeError(f"bitcast_convert_type cannot convert {old_dt} to {new_dt}")
        shape = (*x.shape, old // new)
    else:
        dim = x.shape[-1] if x.shape else 1
        if dim * old != new:
            raise ValueError(
                f"Attempting to convert array of shape {x.shape} from {old_dt} of size {old} "
                f"bits to {new_dt} of size {new}, bits but {dim} * {old} != {new}"
            )
        shape = x.shape[:-1]
    odd = (np.dtype(np.bool_), "c")
    if old_dt != new_dt and any(d == odd[0] or d.kind == odd[1] for d in (old_dt, new_dt)):
        raise TypeError(
            "lax.bitcast_convert_type does not support bool or complex values unless the "
            f"operand and destination types match. Got operand dtype={old_dt}, "
            f"new_dtype={new_dt!r}. Consider using the arr.view() method instead."
        )
    return ShapedArray(shape, new_dt, False)


bitcast_convert_type_p = Primitive("bitcast_convert_type")
register_abstract_eval(bitcast_convert_type_p, _bitcast_rule)
