"""Element-wise functions (NumPy's ufuncs) mapped onto the primitive catalog.

Each function checks its arguments, promotes dtypes (to an inexact dtype for
the transcendental ones, as JAX does) and ranks, then binds one primitive or a
short composition of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from tessela_tracer import ArrayOps, EvalTrace, get_current_trace, jit, lax
from tessela_tracer import dtypes as _dt
from tessela_tracer.typing import Array, ArrayLike, unchanged

from . import _complex_special as _cs
from ._arrays import (
    aval_of,
    check_arraylike,
    convert,
    dtype_is,
    full_like,
    outside_traces,
    promote_dtypes,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    promote_shapes,
    select_n,
)
from ._ufunc_kernels import (
    _floor_divide,
    _hypot,
    _logaddexp,
    _logaddexp2,
    _remainder,
    fmod_kernel,
)
from ._where import where

__all__ = [
    "abs", "absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cbrt", "ceil", "conj",
    "conjugate", "copysign", "cos", "cosh", "deg2rad", "degrees", "divide", "equal", "exp", "exp2",
    "expm1", "fabs", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod", "greater",
    "greater_equal", "heaviside", "hypot", "imag", "invert", "isfinite", "isinf", "isnan",
    "left_shift", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod",
    "multiply", "negative", "nextafter", "not_equal", "positive", "rad2deg", "radians", "real",
    "reciprocal", "remainder", "right_shift", "rint", "sign", "signbit", "sin", "sinc", "sinh",
    "sqrt", "square", "subtract", "tan", "tanh", "true_divide", "trunc",
]  # fmt: skip

_F = TypeVar("_F", bound=Callable[..., Any])
# Operand types a binary function runs on eagerly without further checks.
_HOST = frozenset({np.ndarray, float, int, bool, complex})
_PY_SCALARS = frozenset({float, int, bool, complex})


def _dtype(x: Any) -> np.dtype[Any]:
    return aval_of(x).dtype


def _is(x: Any, kind: Any) -> bool:
    return dtype_is(aval_of(x).dtype, kind)


_INT_ONLY = frozenset(
    {
        "invert",
        "bitwise_not",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "left_shift",
        "right_shift",
    }
)


def _example_dtype(name: str) -> str:
    return "int32" if name in _INT_ONLY else "float32"


def _unary_doc(fn: _F, what: str) -> _F:
    fn.__doc__ = f"""{what}, element-wise.

    Args:
      x: an array-like (not a list).

    Returns:
      An array of the same shape.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> eval_shape({fn.__name__}, ShapeDtypeStruct((2, 3), "{_example_dtype(fn.__name__)}")).shape
    (2, 3)
    """
    return fn


def _binary_doc(fn: _F, what: str) -> _F:
    fn.__doc__ = f"""{what}, element-wise with NumPy broadcasting.

    Args:
      x1: an array-like (not a list).
      x2: an array-like (not a list).

    Returns:
      An array of the broadcast shape and the promoted dtype.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> dt = "{_example_dtype(fn.__name__)}"
    >>> eval_shape({fn.__name__}, s((2, 3), dt), s((3,), dt)).shape
    (2, 3)
    """
    return fn


def _unary(
    name: str,
    op: Callable[[ArrayLike], ArrayLike],
    what: str,
    *,
    inexact: bool,
    staged: bool,
    kernel: _Kernel | None = None,
    numeric: bool = False,
) -> Callable[[ArrayLike], Array]:
    """A NumPy unary function: promote (see :func:`_promotion`), then ``op``."""
    promote = _promotion(inexact=inexact, numeric=numeric)

    def run(x: ArrayLike, /) -> Array:
        (x,) = promote(x)
        return unchanged(op(x))

    run.__name__ = run.__qualname__ = name
    # JAX stages some functions as a nested jit call; the jaxpr shows it.
    staged_run = jit(run) if staged else run
    # Kinds whose promotion is the identity: an array of one runs ``op`` at once,
    # or ``kernel``'s operation (what ``op`` binds for those kinds) without
    # ``op``'s dtype tests.
    direct_kinds = "" if staged else "fc" if inexact else "iufcV" if numeric else "biufcV"
    kernel_kinds, kernel_op = kernel or ("", op)

    # A Python scalar outside a trace runs compiled, as a weakly typed array
    # (JAX's functions return arrays, never Python numbers). The compiled
    # function of a non-staged one is made on its first such call, not at import.
    scalar_run: Callable[[ArrayLike], Array] | None = staged_run if staged else None

    def fn(x: ArrayLike, /) -> Array:
        if isinstance(x, ArrayOps):
            kind = x.aval.dtype.kind
            if kind in kernel_kinds:
                return unchanged(kernel_op(x))
            if kind in direct_kinds:
                return unchanged(op(x))
        elif type(x) in _PY_SCALARS and type(get_current_trace()) is EvalTrace:
            nonlocal scalar_run
            if scalar_run is None:
                scalar_run = jit(run)
            return scalar_run(x)
        check_arraylike(name, x)
        return staged_run(x)

    fn.__name__ = fn.__qualname__ = name
    return _unary_doc(fn, what)


_Kernel = tuple[str, Callable[[ArrayLike], ArrayLike]]
"""``(kinds, operation)``: what a unary function binds on arrays of those dtype kinds."""
_REAL = "f"
"""NumPy's floating kinds (``bfloat16`` and the other extension types are ``V``)."""


def _promotion(*, inexact: bool, numeric: bool) -> Callable[..., list[ArrayLike]]:
    """The dtype promotion of a ufunc's operands, applied once before its kernel.

    ``inexact``: integers and booleans compute in the default float dtype
    (the transcendental functions). ``numeric``: booleans compute in the
    default integer dtype, as 0 and 1 (JAX's arithmetic that has no boolean
    form: ``square``, ``floor_divide``, the shifts, ...).
    """
    if inexact:
        return promote_dtypes_inexact
    return promote_dtypes_numeric if numeric else promote_dtypes


def _inexact_unary(
    name: str,
    op: Callable[[ArrayLike], ArrayLike],
    what: str,
    *,
    staged: bool = False,
    kernel: _Kernel | None = None,
) -> Callable[[ArrayLike], Array]:
    return _unary(name, op, what, inexact=True, staged=staged, kernel=kernel)


def _numeric_unary(
    name: str,
    op: Callable[[ArrayLike], ArrayLike],
    what: str,
    *,
    staged: bool = False,
    kernel: _Kernel | None = None,
    numeric: bool = False,
) -> Callable[[ArrayLike], Array]:
    return _unary(name, op, what, inexact=False, staged=staged, kernel=kernel, numeric=numeric)


def _binary(
    name: str,
    op: Callable[[ArrayLike, ArrayLike], ArrayLike],
    what: str,
    *,
    bool_op: Callable[[ArrayLike, ArrayLike], ArrayLike] | None = None,
    inexact: bool = False,
    numeric: bool = False,
    staged: bool = False,
    composite: bool = False,
) -> Callable[[ArrayLike, ArrayLike], Array]:
    """A NumPy binary function: promote, broadcast, then ``op`` (``bool_op`` on bools).

    ``inexact``/``numeric``: the promotion (see :func:`_promotion`).
    ``composite``: ``op`` binds several primitives, so eager calls always run
    the compiled program (as JAX's jitted function), never ``op`` step by step.
    """
    promote = _promotion(inexact=inexact, numeric=numeric)

    def run(x1: ArrayLike, x2: ArrayLike, /) -> Array:
        x1, x2 = promote_shapes(name, *promote(x1, x2))
        if bool_op is not None and aval_of(x1).dtype.kind == "b":
            return unchanged(bool_op(x1, x2))
        return unchanged(op(x1, x2))

    run.__name__ = run.__qualname__ = name
    if staged:
        staged_run = jit(run)

        def fn(x1: ArrayLike, x2: ArrayLike, /) -> Array:
            check_arraylike(name, x1, x2)
            return unchanged(staged_run(x1, x2))

    else:
        # Kinds whose operands need no promotion when both have the same aval.
        same_aval_kinds: tuple[str, ...] = (
            ()
            if composite
            else ("f", "c")
            if inexact
            else ("i", "u", "f", "c", "V")
            if numeric
            else ("b", "i", "u", "f", "c", "V")
        )
        # Outside any trace, operands that need promotion or broadcasting (a
        # Python scalar, NumPy values, other shapes) run as one compiled
        # program per operand signature, not as one dispatch per step.
        eager_run: Callable[[ArrayLike, ArrayLike], Array] = jit(run)

        def fn(x1: ArrayLike, x2: ArrayLike, /) -> Array:
            if type(x1) in _HOST and type(x2) in _HOST and type(get_current_trace()) is EvalTrace:
                return eager_run(x1, x2)  # NumPy values and Python scalars, eagerly
            if isinstance(x1, ArrayOps) and isinstance(x2, ArrayOps):
                a1, a2 = x1.aval, x2.aval
                dtype = a1.dtype
                if a1.shape == a2.shape and dtype == a2.dtype and a1.weak_type == a2.weak_type:
                    # Promotion and broadcasting are the identity here.
                    kind = dtype.kind
                    if kind in same_aval_kinds:
                        if bool_op is not None and kind == "b":
                            return unchanged(bool_op(x1, x2))
                        return unchanged(op(x1, x2))
            check_arraylike(name, x1, x2)
            if outside_traces(x1, x2):
                return eager_run(x1, x2)
            return run(x1, x2)

    fn.__name__ = fn.__qualname__ = name
    return _binary_doc(fn, what)


def _identity_for_ints(op: Callable[[ArrayLike], ArrayLike]) -> Callable[[ArrayLike], Array]:
    def run(x: ArrayLike) -> Array:
        return unchanged(x if not _is(x, np.inexact) else op(x))

    return run


def _abs(x: Any) -> Any:
    if _is(x, np.unsignedinteger) or _dtype(x) == np.bool_:
        return x
    return lax.abs(x)


def _sign(x: Any) -> Any:
    if _is(x, np.unsignedinteger):
        return select_n(
            lax.eq(x, convert(0, _dtype(x))), convert(1, _dtype(x)), convert(0, _dtype(x))
        )
    return _cs.sign_kernel(x)


def _logical(
    op: Callable[[ArrayLike, ArrayLike], ArrayLike],
) -> Callable[[ArrayLike, ArrayLike], Array]:
    def run(a: ArrayLike, b: ArrayLike) -> Array:
        return unchanged(op(_to_bool(a), _to_bool(b)))

    return run


def _ordered(
    compare: Callable[[ArrayLike, ArrayLike], Array],
) -> Callable[[ArrayLike, ArrayLike], Array]:
    # ``compare`` in NumPy's order: complex operands by their real parts,
    # ties broken by their imaginary parts (lax orders real operands only).
    def run(a: ArrayLike, b: ArrayLike) -> Array:
        if _dtype(a).kind != "c":
            return compare(a, b)
        ra, rb = lax.real(a), lax.real(b)
        return lax.select(lax.eq(ra, rb), compare(lax.imag(a), lax.imag(b)), compare(ra, rb))

    return run


def _to_bool(x: Any) -> Any:
    return x if _dtype(x) == np.bool_ else lax.ne(x, convert(0, _dtype(x)))


def _not(x: Any) -> Any:
    return lax.bitwise_not(_to_bool(x))


def _invert(x: Any) -> Any:
    if not (_is(x, np.integer) or _dtype(x) == np.bool_):
        raise TypeError(
            f"invert/bitwise_not requires an integer or boolean input, got {_dtype(x)}; "
            "use negative() for floating-point values"
        )
    return lax.bitwise_not(x)


def _log_base(base: float) -> Callable[[ArrayLike], Array]:
    def run(x: ArrayLike) -> Array:
        r = lax.log(x)
        if not _is(x, np.complexfloating):
            return lax.div(r, lax.log(convert(base, _dtype(x))))
        # As JAX: the real and imaginary parts divided apart, by a real log(base).
        re, im = lax.real(r), lax.imag(r)
        log_base = lax.log(convert(base, _dtype(re)))
        return lax.complex(lax.div(re, log_base), lax.div(im, log_base))

    return run


# 1 / log(10) to the nearest float64 (``1 / np.log(10)`` is one unit lower), as JAX's.
_ONE_OVER_LOG10 = 0.4342944819032518


def _log10(x: Any) -> Any:
    r = lax.log(x)
    if not _is(x, np.complexfloating):
        return lax.mul(r, convert(_ONE_OVER_LOG10, _dtype(x)))
    # Real and imaginary parts scaled apart: a complex product would turn
    # ``-inf * 0`` into NaN (log10(0) is -inf + 0j).
    c = convert(_ONE_OVER_LOG10, _dtype(lax.real(r)))
    return lax.complex(lax.mul(lax.real(r), c), lax.mul(lax.imag(r), c))


def _isinf(x: Any) -> Any:
    if not _is(x, np.inexact):
        return full_like(x, False, dtype=np.bool_)
    mag = lax.abs(x)
    return lax.eq(mag, convert(np.inf, _dtype(mag)))


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


def _isfinite(x: Any) -> Any:
    if not _is(x, np.inexact):
        return full_like(x, True, dtype=np.bool_)
    if _is(x, np.complexfloating):  # both parts finite
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def _signbit(x: Any) -> Any:
    if _is(x, np.complexfloating):
        raise ValueError(
            "signbit is not defined for complex numbers; apply it to real(x) or imag(x)."
        )
    if _is(x, np.integer):
        return lax.lt(x, convert(0, _dtype(x)))
    if _dtype(x) == np.bool_:
        return full_like(x, False, dtype=np.bool_)
    info = _dt.finfo(_dtype(x))
    itype = np.dtype(f"int{info.bits}")
    bits = lax.bitcast_convert_type(x, itype)
    shifted = lax.shift_right_arithmetic(bits, convert(info.bits - 1, itype))
    return lax.convert_element_type(shifted, np.bool_)


def _true_divide(a: Any, b: Any) -> Any:
    return lax.div(a, b)


def _round_half_even(x: Any) -> Any:
    if not _is(x, np.inexact):
        return x
    if _is(x, np.complexfloating):  # each part
        return lax.complex(_round_half_even(lax.real(x)), _round_half_even(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def _fabs(x: Any) -> Any:
    if _is(x, np.complexfloating):
        raise TypeError(
            "fabs does not accept complex numbers (NumPy's neither); use abs for their modulus."
        )
    return lax.abs(x)


def _sinc(x: Any) -> Any:
    dt = _dtype(x)
    pix = lax.mul(convert(np.pi, dt), x)
    is_zero = lax.eq(x, convert(0, dt))
    safe = select_n(is_zero, pix, convert(1, dt))
    return select_n(is_zero, lax.div(lax.sin(safe), safe), convert(1, dt))


def _real(x: Any) -> Any:
    return lax.real(x) if _is(x, np.complexfloating) else x


def _imag(x: Any) -> Any:
    return lax.imag(x) if _is(x, np.complexfloating) else full_like(x, 0)


def _conj(x: Any) -> Any:
    return lax.conj(x) if _is(x, np.complexfloating) else x


def _copysign(a: Any, b: Any) -> Any:
    return where(signbit(b), lax.neg(lax.abs(a)), lax.abs(a))


def heaviside(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Heaviside step: 0 below zero, 1 above, ``x2`` at zero (NaN stays NaN).

    Args:
      x1: the input.
      x2: the value where ``x1`` is zero.

    Returns:
      The steps, broadcast and promoted to an inexact dtype.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape(heaviside, s((2, 3), "float32"), s((3,), "float32")).shape
    (2, 3)
    """
    check_arraylike("heaviside", x1, x2)
    return unchanged(_heaviside_jit(x1, x2))


def _heaviside(x1: Any, x2: Any) -> Any:
    x1, x2 = promote_dtypes_inexact(x1, x2)
    dt = _dtype(x1)
    zero = convert(0, dt)
    below, above, nan = lax.lt(x1, zero), lax.gt(x1, zero), lax.ne(x1, x1)
    return where(below, zero, where(above, convert(1, dt), where(nan, x1, x2)))


_heaviside.__name__ = _heaviside.__qualname__ = "heaviside"
_heaviside_jit = jit(_heaviside)


def _fmax(x1: Any, x2: Any) -> Any:
    x1, x2 = promote_dtypes(x1, x2)
    return where(logical_or(greater(x1, x2), isnan(x2)), x1, x2)


def _fmin(x1: Any, x2: Any) -> Any:
    x1, x2 = promote_dtypes(x1, x2)
    return where(logical_or(less(x1, x2), isnan(x2)), x1, x2)


_fmax.__name__ = _fmax.__qualname__ = "fmax"
_fmin.__name__ = _fmin.__qualname__ = "fmin"
_FMINMAX_DOC = """Element-wise {what} that ignores NaNs (NaN only where both are NaN).

    Args:
      x1: an array-like.
      x2: an array-like.

    Returns:
      The {result}, broadcast and promoted.

    >>> from tessela_tracer import ShapeDtypeStruct, eval_shape
    >>> s = ShapeDtypeStruct
    >>> eval_shape({name}, s((2, 3), "float32"), s((3,), "float32")).shape
    (2, 3)
    """


def _nan_ignoring(
    op: Callable[[Any, Any], Any], what: str, result: str
) -> Callable[[ArrayLike, ArrayLike], Array]:
    # ``fmax``/``fmin``: ``op`` staged as one call of its name.
    name = op.__name__
    staged = jit(op)

    def extremum(x1: ArrayLike, x2: ArrayLike) -> Array:
        check_arraylike(name, x1, x2)
        return unchanged(staged(x1, x2))

    extremum.__name__ = extremum.__qualname__ = name
    extremum.__doc__ = _FMINMAX_DOC.format(what=what, result=result, name=name)
    return extremum


fmax = _nan_ignoring(_fmax, "maximum", "maxima")
fmin = _nan_ignoring(_fmin, "minimum", "minima")


def _shift_right(a: Any, b: Any) -> Any:
    if _is(a, np.unsignedinteger):
        return lax.shift_right_logical(a, b)
    return lax.shift_right_arithmetic(a, b)


negative = _numeric_unary("negative", lax.neg, "Numerical negative")
positive = _numeric_unary("positive", lambda x: x, "Numerical positive (a copy)")
absolute = _numeric_unary("absolute", _abs, "Absolute value", kernel=("fi", lax.abs))
abs = _numeric_unary("abs", _abs, "Absolute value", kernel=("fi", lax.abs))
fabs = _inexact_unary("fabs", _fabs, "Absolute value, as floating point")
sign = _numeric_unary("sign", _sign, "Sign (-1, 0 or 1)", kernel=("fi", lax.sign))
floor = _numeric_unary("floor", _identity_for_ints(lax.floor), "Floor", kernel=(_REAL, lax.floor))
ceil = _numeric_unary("ceil", _identity_for_ints(lax.ceil), "Ceiling", kernel=(_REAL, lax.ceil))
trunc = _numeric_unary(
    "trunc",
    _identity_for_ints(
        lambda x: where(lax.lt(x, convert(0, _dtype(x))), lax.ceil(x), lax.floor(x))
    ),
    "Truncation toward zero",
    staged=True,
)
rint = _inexact_unary("rint", _round_half_even, "Round half to even", staged=True)
exp = _inexact_unary("exp", lax.exp, "Exponential")
exp2 = _inexact_unary("exp2", lax.exp2, "Base-2 exponential")
expm1 = _inexact_unary("expm1", _cs.expm1_kernel, "``exp(x) - 1``", kernel=(_REAL, lax.expm1))
log = _inexact_unary("log", _cs.log_kernel, "Natural logarithm", kernel=(_REAL, lax.log))
log1p = _inexact_unary("log1p", _cs.log1p_kernel, "``log(1 + x)``", kernel=(_REAL, lax.log1p))
log2 = _inexact_unary("log2", _log_base(2.0), "Base-2 logarithm")
log10 = _inexact_unary("log10", _log10, "Base-10 logarithm")
sqrt = _inexact_unary("sqrt", lax.sqrt, "Square root")
cbrt = _inexact_unary("cbrt", lax.cbrt, "Cube root")
square = _numeric_unary("square", lax.square, "Square", numeric=True)
reciprocal = _inexact_unary("reciprocal", lambda x: lax.integer_pow(x, -1), "Reciprocal")
sin = _inexact_unary("sin", lax.sin, "Sine")
cos = _inexact_unary("cos", lax.cos, "Cosine")
tan = _inexact_unary("tan", lax.tan, "Tangent")
arcsin = _inexact_unary("arcsin", lax.asin, "Inverse sine")
arccos = _inexact_unary("arccos", _cs.acos_kernel, "Inverse cosine", kernel=(_REAL, lax.acos))
arctan = _inexact_unary("arctan", lax.atan, "Inverse tangent")
sinh = _inexact_unary("sinh", _cs.sinh_kernel, "Hyperbolic sine", kernel=(_REAL, lax.sinh))
cosh = _inexact_unary("cosh", _cs.cosh_kernel, "Hyperbolic cosine", kernel=(_REAL, lax.cosh))
tanh = _inexact_unary("tanh", _cs.tanh_kernel, "Hyperbolic tangent", kernel=(_REAL, lax.tanh))
arcsinh = _inexact_unary(
    "arcsinh", _cs.asinh_kernel, "Inverse hyperbolic sine", kernel=(_REAL, lax.asinh)
)
arccosh = _inexact_unary("arccosh", _cs.acosh_kernel, "Inverse hyperbolic cosine", staged=True)
arctanh = _inexact_unary(
    "arctanh", _cs.atanh_kernel, "Inverse hyperbolic tangent", kernel=(_REAL, lax.atanh)
)
deg2rad = _inexact_unary(
    "deg2rad",
    lambda x: lax.mul(x, convert(np.pi / 180, _dtype(x), weak_type=True)),
    "Degrees to radians",
)
radians = _inexact_unary(
    "radians",
    lambda x: lax.mul(x, convert(np.pi / 180, _dtype(x), weak_type=True)),
    "Degrees to radians",
)
rad2deg = _inexact_unary(
    "rad2deg",
    lambda x: lax.mul(x, convert(180 / np.pi, _dtype(x), weak_type=True)),
    "Radians to degrees",
)
degrees = _inexact_unary(
    "degrees",
    lambda x: lax.mul(x, convert(180 / np.pi, _dtype(x), weak_type=True)),
    "Radians to degrees",
)
sinc = _inexact_unary("sinc", _sinc, "Normalised sinc, ``sin(pi x) / (pi x)``", staged=True)
isnan = _numeric_unary("isnan", _isnan, "Test for NaN")
isinf = _numeric_unary("isinf", _isinf, "Test for infinity", staged=True)
isfinite = _numeric_unary(
    "isfinite", _isfinite, "Test for finiteness", kernel=(_REAL, lax.is_finite)
)
signbit = _numeric_unary("signbit", _signbit, "Test of the sign bit", staged=True)
logical_not = _numeric_unary("logical_not", _not, "Logical NOT")
invert = _numeric_unary("invert", _invert, "Bitwise NOT")
bitwise_not = _numeric_unary("bitwise_not", _invert, "Bitwise NOT")
conjugate = _numeric_unary("conjugate", _conj, "Complex conjugate")
conj = _numeric_unary("conj", _conj, "Complex conjugate")
real = _numeric_unary("real", _real, "Real part")
imag = _numeric_unary("imag", _imag, "Imaginary part")

add = _binary("add", lax.add, "Addition", bool_op=lax.bitwise_or)
subtract = _binary("subtract", lax.sub, "Subtraction")
multiply = _binary("multiply", lax.mul, "Multiplication", bool_op=lax.bitwise_and)
divide = _binary("divide", _true_divide, "True division", inexact=True)
true_divide = _binary("true_divide", _true_divide, "True division", inexact=True)
floor_divide = _binary("floor_divide", _floor_divide, "Floor division", numeric=True, staged=True)
float_power = _binary("float_power", lax.pow, "Power in floating point", inexact=True)
remainder = _binary(
    "remainder", _remainder, "Remainder with the divisor's sign", numeric=True, staged=True
)
mod = remainder
fmod = _binary("fmod", fmod_kernel, "Remainder with the dividend's sign", numeric=True, staged=True)
maximum = _binary("maximum", lax.max, "Maximum (NaN-propagating)")
minimum = _binary("minimum", lax.min, "Minimum (NaN-propagating)")
arctan2 = _binary("arctan2", lax.atan2, "Quadrant-aware arctangent", inexact=True)
hypot = _binary("hypot", _hypot, "Hypotenuse", inexact=True, staged=True)
copysign = _binary(
    "copysign", _copysign, "Magnitude of x1 with the sign of x2", inexact=True, staged=True
)
nextafter = _binary(
    "nextafter",
    lax.nextafter,
    "Next representable value toward x2",
    inexact=True,
)
logaddexp = _binary(
    "logaddexp", _logaddexp, "``log(exp(x1) + exp(x2))``", inexact=True, composite=True
)
logaddexp2 = _binary(
    "logaddexp2", _logaddexp2, "``log2(2**x1 + 2**x2)``", inexact=True, staged=True
)
equal = _binary("equal", lax.eq, "Equality test")
not_equal = _binary("not_equal", lax.ne, "Inequality test")
less = _binary("less", _ordered(lax.lt), "Less-than test")
less_equal = _binary("less_equal", _ordered(lax.le), "Less-or-equal test")
greater = _binary("greater", _ordered(lax.gt), "Greater-than test")
greater_equal = _binary("greater_equal", _ordered(lax.ge), "Greater-or-equal test")
logical_and = _binary("logical_and", _logical(lax.bitwise_and), "Logical AND")
logical_or = _binary("logical_or", _logical(lax.bitwise_or), "Logical OR")
logical_xor = _binary("logical_xor", _logical(lax.bitwise_xor), "Logical XOR")
bitwise_and = _binary("bitwise_and", lax.bitwise_and, "Bitwise AND")
bitwise_or = _binary("bitwise_or", lax.bitwise_or, "Bitwise OR")
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor, "Bitwise XOR")
left_shift = _binary("left_shift", lax.shift_left, "Left shift", numeric=True)
right_shift = _binary("right_shift", _shift_right, "Right shift", numeric=True)
