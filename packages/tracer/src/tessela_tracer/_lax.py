"""lax-level wrappers for the first-order primitives, with JAX's conventions."""

from __future__ import annotations

import builtins
import operator
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from tessela_pytree import tree_map

from tessela_tracer import _dtypes
from tessela_tracer import _prims_elementwise as ew
from tessela_tracer._core import EvalTrace, Primitive, Tracer, get_current_trace
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._key_dtypes import is_extended, is_key_dtype
from tessela_tracer._prims_elementwise import RoundingMethod
from tessela_tracer._staging import stage
from tessela_tracer.typing import Array, ArrayLike, DTypeLike
from tessela_tracer.typing import unchanged as _unchanged

_T = TypeVar("_T")
_FLOAT_EXAMPLE = "1.0", "f32"
_INT_EXAMPLE = "1", "i32"


def _unary(
    p: Primitive,
    example: tuple[str, str] = _FLOAT_EXAMPLE,
    public: str | None = None,
    *,
    doc: tuple[str, str, str] | None = None,
    out_dt: str | None = None,
) -> Callable[[ArrayLike], Array]:
    """The lax function ``op(x, /)`` binding ``p``, with its docstring.

    ``example`` is the argument and dtype of the docstring's example, ``doc``
    its ``(summary, argument, result)`` texts and ``out_dt`` the result's dtype
    there when it is not the argument's. The function calls ``p.bind`` directly
    (no frame between).
    """
    bind = p.bind

    def op(x: ArrayLike, /) -> Array:
        out: Array = bind(x)
        return out

    arg, dt = example
    out_dt = out_dt or ("bool" if p.name == "is_finite" else dt)
    summary, arg_doc, result_doc = doc or (
        f"Elementwise ``{p.name}``.",
        "an array or scalar.",
        "The result, same shape as ``x``.",
    )
    op.__name__ = op.__qualname__ = public or p.name
    op.__doc__ = (
        f"{summary}\n\n    Args:\n      x: {arg_doc}\n\n"
        f"    Returns:\n      {result_doc}\n\n    Example:\n"
        f"        >>> from tessela_tracer import make_jaxpr, lax\n"
        f"        >>> print(make_jaxpr(lax.{op.__name__})({arg}))\n"
        f"        {{ lambda ; a:{dt}[]. let b:{out_dt}[] = {p.name} a in (b,) }}\n"
    )
    return op


def _binary(
    p: Primitive, example: tuple[str, str] = _FLOAT_EXAMPLE, public: str | None = None
) -> Callable[[ArrayLike, ArrayLike], Array]:
    bind = p.bind

    def op(x: ArrayLike, y: ArrayLike, /) -> Array:
        out: Array = bind(x, y)
        return out

    arg, dt = example
    cmp = p.name in ("eq", "ne", "lt", "le", "gt", "ge")
    out_dt = "bool" if cmp else ("c64" if p.name == "complex" else dt)
    op.__name__ = op.__qualname__ = public or p.name
    op.__doc__ = (
        f"Elementwise ``{p.name}`` of two arrays of one dtype (scalars broadcast).\n\n"
        f"    Args:\n      x: an array or scalar.\n      y: an array or scalar of the same dtype.\n\n"
        f"    Returns:\n      The result.\n\n    Example:\n"
        f"        >>> from tessela_tracer import make_jaxpr, lax\n"
        f"        >>> print(make_jaxpr(lax.{op.__name__})({arg}, {arg}))\n"
        f"        {{ lambda ; a:{dt}[] b:{dt}[]. let c:{out_dt}[] = {p.name} a b in (c,) }}\n"
    )
    return op


neg = _unary(ew.neg_p)
sign = _unary(ew.sign_p)
floor = _unary(ew.floor_p)
ceil = _unary(ew.ceil_p)
is_finite = _unary(ew.is_finite_p)
abs = _unary(ew.abs_p)
exp = _unary(ew.exp_p)
exp2 = _unary(ew.exp2_p)
log = _unary(ew.log_p)
log1p = _unary(ew.log1p_p)
expm1 = _unary(ew.expm1_p)
tanh = _unary(ew.tanh_p)
logistic = _unary(ew.logistic_p)
sin = _unary(ew.sin_p)
cos = _unary(ew.cos_p)
tan = _unary(ew.tan_p)
asin = _unary(ew.asin_p)
acos = _unary(ew.acos_p)
atan = _unary(ew.atan_p)
sinh = _unary(ew.sinh_p)
cosh = _unary(ew.cosh_p)
asinh = _unary(ew.asinh_p)
acosh = _unary(ew.acosh_p)
atanh = _unary(ew.atanh_p)
sqrt = _unary(ew.sqrt_p)
rsqrt = _unary(ew.rsqrt_p)
cbrt = _unary(ew.cbrt_p)
square = _unary(ew.square_p)
erf = _unary(ew.erf_p)
erfc = _unary(ew.erfc_p)
erf_inv = _unary(ew.erf_inv_p)
lgamma = _unary(ew.lgamma_p)
digamma = _unary(ew.digamma_p)
bitwise_not = _unary(ew.not_p, _INT_EXAMPLE, "bitwise_not")
not_ = bitwise_not
population_count = _unary(ew.population_count_p, _INT_EXAMPLE)
clz = _unary(ew.clz_p, _INT_EXAMPLE)


def stop_gradient(x: _T, /) -> _T:
    """Block derivatives through every leaf of the pytree ``x``.

    Args:
      x: an array, a scalar or a pytree of them; PRNG key leaves pass through.

    Returns:
      ``x`` with the same values, treated as a constant by ``grad`` and ``jvp``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda t: lax.stop_gradient(t)["a"])({"a": 1.0}))
        { lambda ; a:f32[]. let b:f32[] = stop_gradient a in (b,) }
    """

    def stop(leaf: object) -> object:
        if is_key_dtype(_aval(leaf).dtype):
            return leaf
        stopped: Array = ew.stop_gradient_p.bind(leaf)
        return stopped

    out: _T = tree_map(stop, x)
    return out


add = _binary(ew.add_p)
sub = _binary(ew.sub_p)
mul = _binary(ew.mul_p)
div = _binary(ew.div_p)
rem = _binary(ew.rem_p)
max = _binary(ew.max_p)
min = _binary(ew.min_p)
atan2 = _binary(ew.atan2_p)
nextafter = _binary(ew.nextafter_p)
bitwise_and = _binary(ew.and_p, _INT_EXAMPLE, "bitwise_and")
bitwise_or = _binary(ew.or_p, _INT_EXAMPLE, "bitwise_or")
bitwise_xor = _binary(ew.xor_p, _INT_EXAMPLE, "bitwise_xor")
shift_left = _binary(ew.shift_left_p, _INT_EXAMPLE)
mulhi = _binary(ew.mulhi_p, _INT_EXAMPLE)
shift_right_logical = _binary(ew.shift_right_logical_p, _INT_EXAMPLE)
shift_right_arithmetic = _binary(ew.shift_right_arithmetic_p, _INT_EXAMPLE)
eq = _binary(ew.eq_p)
ne = _binary(ew.ne_p)
lt = _binary(ew.lt_p)
le = _binary(ew.le_p)
gt = _binary(ew.gt_p)
ge = _binary(ew.ge_p)
complex = _binary(ew.complex_p)
pow = _binary(ew.pow_p)


def polygamma(m: ArrayLike, x: ArrayLike, /) -> Array:
    r"""Elementwise polygamma function :math:`\psi^{(m)}(x)`, the ``m``-th derivative of digamma.

    ``m`` holds whole numbers stored as floats of ``x``'s dtype (``m = 0`` is
    digamma); a fractional or negative ``m`` gives NaN. Its derivative with
    respect to ``x`` is ``polygamma(m + 1, x)``; ``m`` is not differentiable.

    Args:
      m: the order, a floating array or scalar of ``x``'s dtype.
      x: a floating array or scalar.

    Returns:
      :math:`\psi^{(m)}(x)`, of the broadcast shape of ``m`` and ``x``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.polygamma)(1.0, 2.0))
        { lambda ; a:f32[] b:f32[]. let c:f32[] = polygamma a b in (c,) }
    """
    out: Array = ew.polygamma_p.bind(m, x)
    return out


def zeta(x: ArrayLike, q: ArrayLike, /) -> Array:
    r"""Elementwise Hurwitz zeta function :math:`\zeta(x, q) = \sum_{n \ge 0} (n + q)^{-x}`.

    Defined for ``x > 1`` (infinity at ``x = 1``, NaN below). It is
    differentiable with respect to ``q`` (``-x * zeta(x + 1, q)``) but not
    with respect to ``x``.

    Args:
      x: the exponent, a floating array or scalar.
      q: the shift, a floating array or scalar of ``x``'s dtype.

    Returns:
      :math:`\zeta(x, q)`, of the broadcast shape of ``x`` and ``q``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.zeta)(2.0, 1.0))
        { lambda ; a:f32[] b:f32[]. let c:f32[] = zeta a b in (c,) }
    """
    out: Array = ew.zeta_p.bind(x, q)
    return out


def _complex_part(p: Primitive, part: str) -> Callable[[ArrayLike], Array]:
    doc = (f"{part} part of a complex array.", "a complex array.", "A real array.")
    return _unary(p, ("1j", "c64"), doc=doc, out_dt="f32")


real = _complex_part(ew.real_p, "Real")
imag = _complex_part(ew.imag_p, "Imaginary")


def conj(x: ArrayLike, /) -> Array:
    """Complex conjugate (real inputs become complex).

    Args:
      x: a floating or complex array.

    Returns:
      A complex array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.conj)(1j))
        { lambda ; a:c64[]. let b:c64[] = conj[input_dtype=complex64] a in (b,) }
    """
    out: Array = ew.conj_p.bind(x, input_dtype=_aval(x).dtype)
    return out


def round(
    x: ArrayLike, /, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO
) -> Array:
    """Round to the nearest integer, ties away from zero by default.

    Args:
      x: a floating array.
      rounding_method: ``RoundingMethod.AWAY_FROM_ZERO`` or ``TO_NEAREST_EVEN``.

    Returns:
      The rounded array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lax.round)(1.5))
        { lambda ; a:f32[]. let b:f32[] = round[rounding_method=0] a in (b,) }
    """
    out: Array = ew.round_p.bind(x, rounding_method=RoundingMethod(rounding_method))
    return out


def integer_pow(x: ArrayLike, y: int, /) -> Array:
    """``x ** y`` for a static Python integer ``y``.

    Args:
      x: a numeric array.
      y: a Python int.

    Returns:
      The power.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.integer_pow(x, 3))(2.0))
        { lambda ; a:f32[]. let b:f32[] = integer_pow[y=3] a in (b,) }
    """
    out: Array = ew.integer_pow_p.bind(x, y=operator.index(y))
    return out


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Array:
    """Clip ``x`` elementwise to ``[min, max]``.

    Args:
      min: scalar or array lower bound.
      x: the operand.
      max: scalar or array upper bound.

    Returns:
      The clamped array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.clamp(0.0, x, 1.0))(2.0))
        { lambda ; a:f32[]. let b:f32[] = clamp 0.0:f32[] a 1.0:f32[] in (b,) }
    """
    out: Array = ew.clamp_p.bind(min, x, max)
    return out


def select_n(which: ArrayLike, /, *cases: ArrayLike) -> Array:
    """Pick elementwise among ``cases`` by a boolean or integer ``which``.

    Args:
      which: the selector (False/0 picks ``cases[0]``).
      *cases: arrays of one shape and dtype.

    Returns:
      The selected values.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda p, x: lax.select_n(p, x, x))(True, 1.0))
        { lambda ; a:bool[] b:f32[]. let c:f32[] = select_n a b b in (c,) }
    """
    if not cases:
        raise ValueError("select_n() must have at least one case")
    out: Array = ew.select_n_p.bind(which, *cases)
    return out


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:
    """``on_true`` where ``pred`` else ``on_false`` (``select_n(pred, on_false, on_true)``).

    Args:
      pred: boolean selector.
      on_true: values where ``pred`` holds.
      on_false: values elsewhere.

    Returns:
      The selected values.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda p, x: lax.select(p, x, x))(True, 1.0))
        { lambda ; a:bool[] b:f32[]. let c:f32[] = select_n a b b in (c,) }
    """
    out: Array = ew.select_n_p.bind(pred, on_false, on_true)
    return out


def _foldable(x: Any) -> bool:
    return isinstance(x, (bool, int, float, builtins.complex, np.ndarray, np.generic))


def convert_element_type(operand: ArrayLike, new_dtype: DTypeLike) -> Array:
    """Cast to ``new_dtype`` (Python scalars and NumPy values fold to constants).

    Args:
      operand: the array.
      new_dtype: the target dtype (canonicalized under the x64 setting).

    Returns:
      The cast array (not weakly typed).

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: lax.convert_element_type(x, "int32"))(1.5))
        { lambda ; a:f32[]. let
            b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
          in (b,) }
    """
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _fold_cast(operand: Any, val: np.ndarray, dt: np.dtype[Any]) -> np.ndarray:
    """``val`` (``operand`` on the host) cast to ``dt`` as JAX's result has it.

    A float going to an integer dtype is the only case where NumPy's cast and
    the compiled conversion differ. JAX folds a finite scalar with NumPy (a
    NumPy scalar out of range gets NumPy's value; a Python float out of range
    raises OverflowError there and is converted by XLA instead); an array or a
    non-finite scalar is converted by XLA, which truncates toward zero,
    saturates to the integer range and maps NaN to 0.
    """
    if not _dtypes.issubdtype(val.dtype, np.floating) or dt.kind not in "iu":
        return val.astype(dt)
    if isinstance(operand, (float, builtins.complex, np.generic)) and np.isfinite(val):
        src = (
            operand.real if isinstance(operand, (builtins.complex, np.complexfloating)) else operand
        )
        try:
            with np.errstate(invalid="ignore", over="ignore"):
                return np.asarray(src, dtype=dt)
        except OverflowError:
            pass
    info = _dtypes.iinfo(dt)
    lo, hi = float(info.min), float(info.max) + 1.0  # both powers of two, exact as floats
    v = np.trunc(val.astype(np.float64))
    inside = (v >= lo) & (v < hi)  # False for NaN
    out = np.where(inside, v, 0.0).astype(dt)
    out[v >= hi] = info.max
    out[v < lo] = info.min
    return out


def _cast_constant(operand: Any, dt: np.dtype[Any], weak_type: bool) -> Array:
    """A constant cast under a trace, as JAX's: a value of the transformations.

    A Python integer, or a scalar that NumPy casts without overflow, is cast on
    the host and staged (a literal under ``jit``, a concrete array under
    ``vmap`` or ``grad``). The rest (a non-finite float going to an integer
    type, a Python float out of the integer type's range, a weak result, an
    array) is bound: a jaxpr trace folds a scalar literal with NumPy's cast and
    records the conversion of an array constant; an evaluating trace converts
    with XLA.
    """
    if type(operand) is int:
        operand = np.asarray(operand).astype(dt)[()]
    if not weak_type and not isinstance(operand, np.ndarray):
        aval = _aval(operand)
        if aval.dtype == dt and not aval.weak_type:
            return stage(operand)
        value = operand
        if isinstance(value, (builtins.complex, np.complexfloating)) and dt.kind != "c":
            value = value.real
        to_int = _dtypes.issubdtype(dt, np.integer)
        if not (to_int and isinstance(value, (float, np.inexact)) and not np.isfinite(value)):
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cast = np.asarray(value, dtype=dt)[()]
            except OverflowError:  # a Python float out of an integer type's range
                pass
            else:
                return stage(cast)
    out: Array = ew.convert_element_type_p.bind(
        operand, new_dtype=dt, weak_type=weak_type, sharding=None
    )
    return out


def _convert_element_type(
    operand: ArrayLike, new_dtype: DTypeLike | None, *, weak_type: bool
) -> Array:
    dt = _dtypes.canonicalize_dtype(new_dtype if new_dtype is not None else _aval(operand).dtype)
    constant = not isinstance(operand, Tracer) and _foldable(operand)
    if constant and not isinstance(get_current_trace(), EvalTrace) and not is_extended(dt):
        return _cast_constant(operand, dt, weak_type)
    # Eagerly a constant folds on the host, as JAX folds it, and the result is
    # an array of the backend, as JAX's is (``stage``; the NumPy value when no
    # backend is installed). A folded value has no weak type: a weak result is
    # bound instead (a Python scalar already of that type is returned).
    if constant and not weak_type:
        val = np.asarray(operand)
        if np.iscomplexobj(val) and not _dtypes.issubdtype(dt, np.complexfloating):
            val = val.real
        return stage(_fold_cast(operand, val, dt))
    aval = _aval(operand)
    if aval.dtype == dt and aval.weak_type == weak_type:
        return _unchanged(operand)
    out: Array = ew.convert_element_type_p.bind(
        operand, new_dtype=dt, weak_type=weak_type, sharding=None
    )
    return out


def bitcast_convert_type(operand: ArrayLike, new_dtype: DTypeLike) -> Array:
    """Reinterpret the bits of ``operand`` as ``new_dtype``.

    Args:
      operand: the array.
      new_dtype: a dtype; a narrower one adds a trailing dimension.

    Returns:
      The reinterpreted array.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(lambda x: lax.bitcast_convert_type(x, "int32"))(1.5).out_avals
        [ShapedArray(int32[])]
    """
    out: Array = ew.bitcast_convert_type_p.bind(
        operand, new_dtype=_dtypes.canonicalize_dtype(new_dtype)
    )
    return out
