"""JVP and transpose rules of the elementwise primitives."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import (
    Tangent,
    UndefinedPrimal,
    Zero,
    broadcast_to,
    convert_like,
    instantiate,
    is_differentiable,
    is_undefined,
    unbroadcast,
    zeros_like_aval,
)
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import const, defjvp, defjvp_zero, deflinear, deflinear2
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _shape_of(x: Any) -> tuple[int, ...]:
    return tuple(get_aval_of(x).shape)


# ----------------------------------------------------------- integer-valued, sort order

for _p in (
    P.sign_p, P.floor_p, P.ceil_p, P.round_p, P.is_finite_p, P.stop_gradient_p,
    P.eq_p, P.ne_p, P.lt_p, P.le_p, P.gt_p, P.ge_p, P.and_p, P.or_p, P.xor_p, P.not_p,
    P.shift_left_p, P.shift_right_logical_p, P.shift_right_arithmetic_p,
    P.population_count_p, P.clz_p, P.nextafter_p, P.bitcast_convert_type_p, P.mulhi_p,
):  # fmt: skip
    defjvp_zero(_p)


# ----------------------------------------------------------- linear


deflinear(P.neg_p, lambda ct: [lax.neg(ct)])
deflinear(P.real_p, lambda ct: [lax.complex(ct, lax.mul(ct, const(ct, 0)))])
deflinear(P.imag_p, lambda ct: [lax.complex(lax.mul(ct, const(ct, 0)), lax.neg(ct))])
deflinear(P.complex_p, lambda ct: [lax.real(ct), lax.imag(lax.neg(ct))])


def _conj_transpose(ct: Any, x: Any, *, input_dtype: Any) -> list[Any]:
    if np.issubdtype(input_dtype, np.complexfloating):
        return [lax.conj(ct)]
    return [lax.real(ct)]


deflinear2(P.conj_p, _conj_transpose)


def _add_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    return [
        unbroadcast(x.aval, ct) if is_undefined(x) else None,
        unbroadcast(y.aval, ct) if is_undefined(y) else None,
    ]


def _sub_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    return [
        unbroadcast(x.aval, ct) if is_undefined(x) else None,
        unbroadcast(y.aval, lax.neg(ct)) if is_undefined(y) else None,
    ]


def _add_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Any], **params: Any
) -> tuple[Any, Any]:
    x, y = primals
    tx, ty = tangents
    ans = lax.add(x, y)
    shape = _shape_of(ans)
    if type(tx) is Zero:
        return ans, broadcast_to(ty, shape)
    if type(ty) is Zero:
        return ans, broadcast_to(tx, shape)
    return ans, lax.add(tx, ty)


def _sub_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Any], **params: Any
) -> tuple[Any, Any]:
    x, y = primals
    tx, ty = tangents
    ans = lax.sub(x, y)
    shape = _shape_of(ans)
    if type(tx) is Zero:
        return ans, broadcast_to(lax.neg(ty), shape)
    if type(ty) is Zero:
        return ans, broadcast_to(tx, shape)
    return ans, lax.sub(tx, ty)


register_jvp(P.add_p, _add_jvp)
register_transpose(P.add_p, _add_transpose)
register_jvp(P.sub_p, _sub_jvp)
register_transpose(P.sub_p, _sub_transpose)


# ----------------------------------------------------------- bilinear: mul, div

defjvp(P.mul_p, lambda g, ans, x, y: lax.mul(g, y), lambda g, ans, x, y: lax.mul(x, g))


def _mul_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    if is_undefined(x) and is_undefined(y):
        raise ValueError("mul is not linear in both operands at once; cannot transpose")
    if is_undefined(x):
        return [unbroadcast(x.aval, lax.mul(ct, y)), None]
    return [None, unbroadcast(y.aval, lax.mul(x, ct))]


register_transpose(P.mul_p, _mul_transpose)

defjvp(
    P.div_p,
    lambda g, ans, x, y: lax.div(g, y),
    lambda g, ans, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)),
)


def _div_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    if is_undefined(y):
        raise ValueError("div is linear only in its numerator; cannot transpose")
    return [unbroadcast(x.aval, lax.div(ct, y)), None]


register_transpose(P.div_p, _div_transpose)


# ----------------------------------------------------------- select, clamp, convert


def _select_n_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    which, *cases = primals
    ans = lax.select_n(which, *cases)
    if all(type(t) is Zero for t in tangents[1:]):
        return ans, Zero(get_aval_of(ans))
    return ans, lax.select_n(which, *[instantiate(t) for t in tangents[1:]])


def _select_n_transpose(ct: Any, which: Any, *cases: Any) -> list[Any]:
    if is_undefined(which):
        raise ValueError("select_n is not linear in its predicate")
    if type(ct) is Zero:
        return [None] * (1 + len(cases))
    zeros = zeros_like_aval(get_aval_of(ct))
    out: list[Any] = [None]
    for i, c in enumerate(cases):
        if is_undefined(c):
            branches = [zeros] * len(cases)
            branches[i] = ct
            out.append(lax.select_n(which, *branches))
        else:
            out.append(None)
    return out


register_jvp(P.select_n_p, _select_n_jvp)
register_transpose(P.select_n_p, _select_n_transpose)


def _where_zero(pred: Any, g: Any, shape: Sequence[int]) -> Any:
    g = broadcast_to(g, shape)
    return lax.select(broadcast_to(pred, shape), g, zeros_like_aval(get_aval_of(g)))


defjvp(
    P.clamp_p,
    lambda g, ans, lo, x, hi: _where_zero(lax.gt(lo, x), g, _shape_of(x)),
    lambda g, ans, lo, x, hi: _where_zero(
        lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), g, _shape_of(x)
    ),
    lambda g, ans, lo, x, hi: _where_zero(lax.lt(hi, x), g, _shape_of(x)),
)


def _convert_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    (x,) = primals
    (t,) = tangents
    ans = P.convert_element_type_p.bind(x, **params)
    if not is_differentiable(get_aval_of(x)) or not is_differentiable(get_aval_of(ans)):
        return ans, Zero.from_primal(ans)
    return ans, P.convert_element_type_p.bind(t, **params)


def _convert_transpose(ct: Any, x: Any, **params: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None]
    return [convert_like(ct, x.aval)]


register_jvp(P.convert_element_type_p, _convert_jvp)
register_transpose(P.convert_element_type_p, _convert_transpose)


# ----------------------------------------------------------- unary calculus

defjvp(P.exp_p, lambda g, ans, x: lax.mul(g, ans))
defjvp(P.exp2_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, const(x, np.log(2.0)))))
defjvp(P.log_p, lambda g, ans, x: lax.div(g, x))
defjvp(P.log1p_p, lambda g, ans, x: lax.div(g, lax.add(x, const(x, 1))))
defjvp(P.expm1_p, lambda g, ans, x: lax.mul(g, lax.add(ans, const(x, 1))))


def _tanh_jvp(g: Any, ans: Any, x: Any) -> Any:
    return lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(const(x, 1), ans))


defjvp(P.tanh_p, _tanh_jvp)
defjvp(P.logistic_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, lax.sub(const(x, 1), ans))))
defjvp(P.sin_p, lambda g, ans, x: lax.mul(g, lax.cos(x)))
defjvp(P.cos_p, lambda g, ans, x: lax.neg(lax.mul(g, lax.sin(x))))
defjvp(P.tan_p, lambda g, ans, x: lax.mul(g, lax.add(const(x, 1), lax.mul(ans, ans))))
defjvp(P.asin_p, lambda g, ans, x: lax.mul(g, lax.rsqrt(lax.sub(const(x, 1), lax.mul(x, x)))))
defjvp(
    P.acos_p,
    lambda g, ans, x: lax.neg(lax.mul(g, lax.rsqrt(lax.sub(const(x, 1), lax.mul(x, x))))),
)
defjvp(P.atan_p, lambda g, ans, x: lax.div(g, lax.add(const(x, 1), lax.mul(x, x))))
defjvp(P.sinh_p, lambda g, ans, x: lax.mul(g, lax.cosh(x)))
defjvp(P.cosh_p, lambda g, ans, x: lax.mul(g, lax.sinh(x)))
defjvp(P.asinh_p, lambda g, ans, x: lax.mul(g, lax.rsqrt(lax.add(lax.mul(x, x), const(x, 1)))))
defjvp(
    P.acosh_p,
    lambda g, ans, x: lax.mul(
        g, lax.rsqrt(lax.mul(lax.sub(x, const(x, 1)), lax.add(x, const(x, 1))))
    ),
)
defjvp(P.atanh_p, lambda g, ans, x: lax.div(g, lax.sub(const(x, 1), lax.mul(x, x))))
defjvp(P.sqrt_p, lambda g, ans, x: lax.div(g, lax.mul(const(x, 2), ans)))
defjvp(P.rsqrt_p, lambda g, ans, x: lax.mul(g, lax.mul(const(x, -0.5), lax.div(ans, x))))
defjvp(P.cbrt_p, lambda g, ans, x: lax.mul(g, lax.mul(const(x, 1 / 3), lax.integer_pow(ans, -2))))
defjvp(P.square_p, lambda g, ans, x: lax.mul(g, lax.mul(const(x, 2), x)))
defjvp(
    P.erf_p,
    lambda g, ans, x: lax.mul(
        g, lax.mul(const(x, 2 / np.sqrt(np.pi)), lax.exp(lax.neg(lax.mul(x, x))))
    ),
)
defjvp(
    P.erfc_p,
    lambda g, ans, x: lax.mul(
        g, lax.mul(const(x, -2 / np.sqrt(np.pi)), lax.exp(lax.neg(lax.mul(x, x))))
    ),
)
defjvp(
    P.erf_inv_p,
    lambda g, ans, x: lax.mul(g, lax.mul(const(x, np.sqrt(np.pi) / 2), lax.exp(lax.mul(ans, ans)))),
)
defjvp(P.lgamma_p, lambda g, ans, x: lax.mul(g, lax.digamma(x)))


def _abs_jvp(g: Any, ans: Any, x: Any) -> Any:
    if np.issubdtype(get_aval_of(x).dtype, np.complexfloating):
        return lax.real(
            lax.mul(lax.conj(lax.div(x, lax.convert_element_type(ans, get_aval_of(x).dtype))), g)
        )
    return lax.mul(g, lax.sign(x))


defjvp(P.abs_p, _abs_jvp)


def _integer_pow_jvp(g: Any, ans: Any, x: Any, *, y: int) -> Any:
    if y == 0:
        return lax.mul(g, const(x, 0))
    if y == 1:
        return g
    return lax.mul(g, lax.mul(const(x, y), x if y == 2 else lax.integer_pow(x, y - 1)))


defjvp(P.integer_pow_p, _integer_pow_jvp)


def _pow_jvp_x(g: Any, ans: Any, x: Any, y: Any) -> Any:
    if get_aval_of(y).dtype != get_aval_of(x).dtype:
        y = lax.convert_element_type(y, get_aval_of(x).dtype)
    one = const(x, 1)
    return lax.mul(g, lax.mul(y, lax.pow(x, lax.sub(y, one))))


def _pow_jvp_y(g: Any, ans: Any, x: Any, y: Any) -> Any:
    zero = const(x, 0)
    safe = lax.select(lax.eq(x, zero), broadcast_to(const(x, 1), _shape_of(x)), x)
    return lax.mul(g, lax.mul(lax.log(safe), ans))


defjvp(P.pow_p, _pow_jvp_x, _pow_jvp_y)


def _atan2_x(g: Any, ans: Any, x: Any, y: Any) -> Any:
    return lax.mul(g, lax.div(y, lax.add(lax.mul(x, x), lax.mul(y, y))))


def _atan2_y(g: Any, ans: Any, x: Any, y: Any) -> Any:
    return lax.mul(g, lax.div(lax.neg(x), lax.add(lax.mul(x, x), lax.mul(y, y))))


defjvp(P.atan2_p, _atan2_x, _atan2_y)


def _rem_y(g: Any, ans: Any, x: Any, y: Any) -> Any:
    q = lax.div(x, y)
    return lax.mul(lax.neg(g), lax.mul(lax.sign(q), lax.floor(lax.abs(q))))


defjvp(P.rem_p, lambda g, ans, x, y: g, _rem_y)


def _minmax_coef(x: Any, y: Any, ans: Any, pick: Any) -> Any:
    shape = _shape_of(ans)
    xb, yb = broadcast_to(x, shape), broadcast_to(y, shape)
    one = broadcast_to(const(ans, 1), shape)
    half = broadcast_to(const(ans, 0.5), shape)
    zero = broadcast_to(const(ans, 0), shape)
    return lax.select(pick(xb, yb), one, lax.select(lax.eq(xb, yb), half, zero))


defjvp(
    P.max_p,
    lambda g, ans, x, y: lax.mul(broadcast_to(g, _shape_of(ans)), _minmax_coef(x, y, ans, lax.gt)),
    lambda g, ans, x, y: lax.mul(broadcast_to(g, _shape_of(ans)), _minmax_coef(y, x, ans, lax.gt)),
)
defjvp(
    P.min_p,
    lambda g, ans, x, y: lax.mul(broadcast_to(g, _shape_of(ans)), _minmax_coef(x, y, ans, lax.lt)),
    lambda g, ans, x, y: lax.mul(broadcast_to(g, _shape_of(ans)), _minmax_coef(y, x, ans, lax.lt)),
)


# ----------------------------------------------------------- special functions
# digamma' = polygamma(1, .), polygamma(m, .)' = polygamma(m + 1, .) and
# d zeta(x, q) / dq = -x zeta(x + 1, q); the order m and zeta's exponent x are not
# differentiable (as in JAX, whose lax.zeta has no derivative rule at all).

defjvp(P.digamma_p, lambda g, ans, x: lax.mul(g, lax.polygamma(const(x, 1), x)))


def _polygamma_jvp_m(g: Any, ans: Any, m: Any, x: Any) -> Any:
    raise ValueError(
        "polygamma gradient with respect to m is not supported: differentiate with "
        "respect to x only (pass m as a constant, or through lax.stop_gradient)"
    )


def _polygamma_jvp_x(g: Any, ans: Any, m: Any, x: Any) -> Any:
    return lax.mul(g, lax.polygamma(lax.add(m, const(m, 1)), x))


defjvp(P.polygamma_p, _polygamma_jvp_m, _polygamma_jvp_x)


def _zeta_jvp_x(g: Any, ans: Any, x: Any, q: Any) -> Any:
    raise NotImplementedError(
        "Differentiation rule for 'zeta' with respect to x not implemented (JAX's lax.zeta "
        "has none either): differentiate with respect to q only (pass x as a constant, or "
        "through lax.stop_gradient)"
    )


def _zeta_jvp_q(g: Any, ans: Any, x: Any, q: Any) -> Any:
    return lax.mul(g, lax.neg(lax.mul(x, lax.zeta(lax.add(x, const(x, 1)), q))))


defjvp(P.zeta_p, _zeta_jvp_x, _zeta_jvp_q)

del UndefinedPrimal
