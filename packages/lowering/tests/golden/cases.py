"""The primitive cases shared by the golden generator (JAX) and the tests (Tessela).

Each case calls a lax-level function on fixed inputs. ``build(ns)`` returns the
function to run, written against a namespace ``ns`` holding ``lax`` (``jax.lax``
or ``tessela_tracer.lax``) and the few entry points that live outside ``lax``:
``jit``, ``custom_jvp``, ``custom_vjp``, ``checkpoint``, ``device_put`` (binds
the primitive), ``device_put_function`` (the public ``device_put``) and
``reduce_xor``. ``make(rng)`` returns the NumPy inputs, drawn from a generator
seeded by the case's name so that adding a case changes no other case.

``ulps`` is the comparison bound for floating-point outputs: ``0`` means
bit-exact (NaN positions equal, every other value equal bit for bit), ``n``
means at most ``n`` units in the last place apart (NaN and infinity positions
equal). Integer and bool outputs are always compared bit for bit.

This module imports neither JAX nor Tessela.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
I32 = np.dtype(np.int32)
U8 = np.dtype(np.uint8)
U32 = np.dtype(np.uint32)
C64 = np.dtype(np.complex64)
BOOL = np.dtype(np.bool_)

# The bound per family (units in the last place of the output dtype).
EXACT = 0
TRANSCENDENTAL = 2  # exp, log, trig, tanh, logistic, pow, rsqrt, cbrt
INVERSE_TRIG = 4  # asin..atanh, sinh, cosh
SPECIAL = 8  # erf, erfc, erf_inv, lgamma, digamma
COMPLEX_TRANSCENDENTAL = 4  # per component
ACCUMULATION = 4  # float sums and products whose association order XLA chooses


def dtype_from_name(name: str) -> np.dtype[Any]:
    """``"bfloat16"`` -> the ml_dtypes dtype; NumPy names as NumPy reads them."""
    return BF16 if name == "bfloat16" else np.dtype(name)


class Case(NamedTuple):
    name: str
    prims: tuple[str, ...]  # primitive names the call must bind
    build: Callable[[Any], Callable[..., Any]]
    make: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    ulps: int = EXACT


CASES: list[Case] = []


def case(
    name: str,
    prims: str | tuple[str, ...],
    build: Callable[[Any], Callable[..., Any]],
    make: Callable[[np.random.Generator], tuple[np.ndarray, ...]],
    ulps: int = EXACT,
) -> None:
    assert all(c.name != name for c in CASES), name
    CASES.append(Case(name, (prims,) if isinstance(prims, str) else prims, build, make, ulps))


def inputs(c: Case) -> tuple[np.ndarray, ...]:
    """The case's inputs (a generator seeded by the case's name)."""
    return tuple(np.asarray(a) for a in c.make(np.random.default_rng(zlib.crc32(c.name.encode()))))


def digest(arrays: tuple[np.ndarray, ...]) -> str:
    """A short hash of the inputs' dtypes, shapes and bytes."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(f"{a.dtype.name}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


# ------------------------------------------------------------------ inputs
INF, NAN = np.inf, np.nan
F_SPECIAL = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN]


def floats(
    rng: np.random.Generator,
    dtype: np.dtype[Any] = F32,
    lo: float = -3.0,
    hi: float = 3.0,
    n: int = 16,
    special: list[float] | None = None,
    shift: int = 0,
) -> np.ndarray:
    """``n`` values: the specials (rotated by ``shift``) then uniform draws."""
    sp = list(F_SPECIAL if special is None else special)
    sp = sp[shift % len(sp) :] + sp[: shift % len(sp)] if sp else sp
    body = rng.uniform(lo, hi, n - len(sp))
    return np.concatenate([np.array(sp, np.float64), body]).astype(dtype)


def ints(rng: np.random.Generator, dtype: np.dtype[Any] = I32, n: int = 16) -> np.ndarray:
    info = np.iinfo(dtype)
    sp = [0, 1, info.max, info.min] + ([-1] if info.min < 0 else [])
    body = rng.integers(max(info.min, -100), min(info.max, 100), n - len(sp), endpoint=True)
    return np.concatenate([np.array(sp, np.int64), body]).astype(dtype)


def bools(rng: np.random.Generator, n: int = 16) -> np.ndarray:
    return rng.random(n) < 0.5


def complexes(rng: np.random.Generator, n: int = 12, special: bool = True) -> np.ndarray:
    sp = [0j, 1 + 0j, -1j, complex(INF, 0.0), complex(0.0, NAN)] if special else []
    body = rng.uniform(-2, 2, n - len(sp)) + 1j * rng.uniform(-2, 2, n - len(sp))
    return np.concatenate([np.array(sp, np.complex128), body]).astype(C64)


def grid(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any] = F32
) -> np.ndarray:
    if dtype.kind in "iu":
        return rng.integers(-9, 10, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return rng.uniform(-3, 3, shape).astype(dtype)


def small_ints_f(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Integer-valued floats: sums and products of them are exact in any order."""
    return rng.integers(-4, 5, shape).astype(F32)


# ----------------------------------------------------------- elementwise
def _unary(op: str) -> Callable[[Any], Callable[..., Any]]:
    return lambda ns: getattr(ns.lax, op)


def _binary(op: str) -> Callable[[Any], Callable[..., Any]]:
    return lambda ns: getattr(ns.lax, op)


UNARY_FLOAT: list[tuple[str, str, int, float, float]] = [
    # (lax name, primitive, ulps, lo, hi)
    ("neg", "neg", EXACT, -3, 3),
    ("abs", "abs", EXACT, -3, 3),
    ("sign", "sign", EXACT, -3, 3),
    ("floor", "floor", EXACT, -3, 3),
    ("ceil", "ceil", EXACT, -3, 3),
    ("is_finite", "is_finite", EXACT, -3, 3),
    ("square", "square", EXACT, -3, 3),
    ("sqrt", "sqrt", EXACT, 0, 5),
    ("stop_gradient", "stop_gradient", EXACT, -3, 3),
    ("rsqrt", "rsqrt", TRANSCENDENTAL, 0, 5),
    ("cbrt", "cbrt", TRANSCENDENTAL, -5, 5),
    ("exp", "exp", TRANSCENDENTAL, -5, 5),
    ("exp2", "exp2", TRANSCENDENTAL, -5, 5),
    ("expm1", "expm1", TRANSCENDENTAL, -2, 2),
    ("log", "log", TRANSCENDENTAL, 0, 5),
    ("log1p", "log1p", TRANSCENDENTAL, -0.9, 3),
    ("tanh", "tanh", TRANSCENDENTAL, -4, 4),
    ("logistic", "logistic", TRANSCENDENTAL, -6, 6),
    ("sin", "sin", TRANSCENDENTAL, -4, 4),
    ("cos", "cos", TRANSCENDENTAL, -4, 4),
    ("tan", "tan", TRANSCENDENTAL, -1.5, 1.5),
    ("asin", "asin", INVERSE_TRIG, -1, 1),
    ("acos", "acos", INVERSE_TRIG, -1, 1),
    ("atan", "atan", INVERSE_TRIG, -4, 4),
    ("sinh", "sinh", INVERSE_TRIG, -3, 3),
    ("cosh", "cosh", INVERSE_TRIG, -3, 3),
    ("asinh", "asinh", INVERSE_TRIG, -4, 4),
    ("acosh", "acosh", INVERSE_TRIG, 1, 5),
    ("atanh", "atanh", INVERSE_TRIG, -1, 1),
    ("erf", "erf", SPECIAL, -3, 3),
    ("erfc", "erfc", SPECIAL, -3, 3),
    ("erf_inv", "erf_inv", SPECIAL, -1, 1),
    ("lgamma", "lgamma", SPECIAL, -4.5, 6),
    ("digamma", "digamma", SPECIAL, -4.5, 6),
]

for _op, _prim, _ulps, _lo, _hi in UNARY_FLOAT:
    case(
        f"{_op}_f32",
        _prim,
        _unary(_op),
        lambda rng, lo=_lo, hi=_hi: (floats(rng, F32, lo, hi),),
        _ulps,
    )

# Large arguments: the trigonometric range reduction.
for _op in ("sin", "cos", "tan"):
    case(
        f"{_op}_large_f32",
        _op,
        _unary(_op),
        lambda rng: (floats(rng, F32, -1e5, 1e5, special=[3.4e38, -1e30, 1e7, 8388607.5]),),
        TRANSCENDENTAL,
    )
case(
    "exp_overflow_f32",
    "exp",
    _unary("exp"),
    lambda rng: (floats(rng, F32, -104.0, 89.0, special=[88.72, 88.73, -87.3, -103.9]),),
    TRANSCENDENTAL,
)

# A few elementwise ops in the half-width float types too.
for _op, _prim, _ulps in [
    ("neg", "neg", EXACT),
    ("abs", "abs", EXACT),
    ("floor", "floor", EXACT),
    ("sqrt", "sqrt", EXACT),
    ("exp", "exp", TRANSCENDENTAL),
    ("log", "log", TRANSCENDENTAL),
    ("tanh", "tanh", TRANSCENDENTAL),
    ("sin", "sin", TRANSCENDENTAL),
]:
    for _dt in (F16, BF16):
        case(
            f"{_op}_{_dt.name}",
            _prim,
            _unary(_op),
            lambda rng, dt=_dt: (floats(rng, dt, 0.0, 4.0),),
            _ulps,
        )

case(
    "round_away_f32",
    "round",
    lambda ns: lambda x: ns.lax.round(x, ns.lax.RoundingMethod.AWAY_FROM_ZERO),
    lambda rng: (np.concatenate([floats(rng), np.array([0.5, -0.5, 1.5, 2.5, -2.5], F32)]),),
)
case(
    "round_even_f32",
    "round",
    lambda ns: lambda x: ns.lax.round(x, ns.lax.RoundingMethod.TO_NEAREST_EVEN),
    lambda rng: (np.concatenate([floats(rng), np.array([0.5, -0.5, 1.5, 2.5, -2.5], F32)]),),
)
case(
    "integer_pow_3_f32",
    "integer_pow",
    lambda ns: lambda x: ns.lax.integer_pow(x, 3),
    lambda rng: (floats(rng),),
    TRANSCENDENTAL,
)
case(
    "integer_pow_m2_f32",
    "integer_pow",
    lambda ns: lambda x: ns.lax.integer_pow(x, -2),
    lambda rng: (floats(rng),),
    TRANSCENDENTAL,
)
case(
    "integer_pow_5_i32",
    "integer_pow",
    lambda ns: lambda x: ns.lax.integer_pow(x, 5),
    lambda rng: (ints(rng),),
)
case(
    "integer_pow_0_f32",
    "integer_pow",
    lambda ns: lambda x: ns.lax.integer_pow(x, 0),
    lambda rng: (floats(rng),),
)

for _op in ("neg", "abs", "sign", "population_count", "clz"):
    case(f"{_op}_i32", _op, _unary(_op), lambda rng: (ints(rng),))
case(
    "population_count_u8",
    "population_count",
    _unary("population_count"),
    lambda rng: (ints(rng, U8),),
)
case("clz_u32", "clz", _unary("clz"), lambda rng: (ints(rng, U32),))
case("not_i32", "not", _unary("bitwise_not"), lambda rng: (ints(rng),))
case("not_bool", "not", _unary("bitwise_not"), lambda rng: (bools(rng),))

BINARY_FLOAT: list[tuple[str, str, int, float, float]] = [
    ("add", "add", EXACT, -3, 3),
    ("sub", "sub", EXACT, -3, 3),
    ("mul", "mul", EXACT, -3, 3),
    ("div", "div", EXACT, -3, 3),
    ("rem", "rem", EXACT, -5, 5),
    ("max", "max", EXACT, -3, 3),
    ("min", "min", EXACT, -3, 3),
    ("nextafter", "nextafter", EXACT, -3, 3),
    ("pow", "pow", TRANSCENDENTAL, 0, 3),
    ("atan2", "atan2", TRANSCENDENTAL, -3, 3),
]
for _op, _prim, _ulps, _lo, _hi in BINARY_FLOAT:
    case(
        f"{_op}_f32",
        _prim,
        _binary(_op),
        lambda rng, lo=_lo, hi=_hi: (floats(rng, F32, lo, hi), floats(rng, F32, lo, hi, shift=3)),
        _ulps,
    )
# The special functions of two operands: polygamma's order m holds whole numbers
# (plus a fraction, a negative order and NaN), zeta is defined for x > 1.
case(
    "polygamma_f32",
    "polygamma",
    _binary("polygamma"),
    lambda rng: (
        np.concatenate([rng.integers(0, 5, 12), [1.5, -1.0, NAN, 2.0]]).astype(F32),
        floats(rng, F32, -4.5, 6.0, special=[0.0, -1.0, INF, NAN]),
    ),
    SPECIAL,
)
case(
    "zeta_f32",
    "zeta",
    _binary("zeta"),
    lambda rng: (
        floats(rng, F32, 0.5, 6.0, special=[1.0, 2.0, INF, NAN]),
        floats(rng, F32, -3.0, 5.0, special=[0.0, 1.0, -2.0, INF], shift=1),
    ),
    SPECIAL,
)
for _op in ("add", "sub", "mul", "div", "max", "min"):
    for _dt in (F16, BF16):
        case(
            f"{_op}_{_dt.name}",
            _op,
            _binary(_op),
            lambda rng, dt=_dt: (floats(rng, dt), floats(rng, dt, shift=2)),
        )
for _op in ("add", "sub", "mul", "div", "rem", "max", "min"):
    case(f"{_op}_i32", _op, _binary(_op), lambda rng: (ints(rng), ints(rng)[::-1].copy()))
_IMIN = np.iinfo(np.int32).min
for _op in ("div", "rem"):
    case(
        f"{_op}_i32_edges",
        _op,
        _binary(_op),
        lambda rng: (
            np.array([_IMIN, _IMIN, 7, -7, 7, -7, 0, 5, _IMIN, 2**31 - 1], I32),
            np.array([-1, 1, 0, 0, -2, 2, 0, -3, 3, -1], I32),
        ),
    )
    case(
        f"{_op}_u32_edges",
        _op,
        _binary(_op),
        lambda rng: (
            np.array([2**32 - 1, 7, 0, 5, 2**31, 100], U32),
            np.array([2, 0, 0, 2**32 - 1, 3, 7], U32),
        ),
    )
case(
    "pow_f32_i32",
    "pow",
    _binary("pow"),
    lambda rng: (floats(rng), ints(rng) % 7 - 3),
    TRANSCENDENTAL,
)
for _op, _prim in (("bitwise_and", "and"), ("bitwise_or", "or"), ("bitwise_xor", "xor")):
    case(f"{_prim}_i32", _prim, _binary(_op), lambda rng: (ints(rng), ints(rng)[::-1].copy()))
    case(f"{_prim}_bool", _prim, _binary(_op), lambda rng: (bools(rng), bools(rng)))
for _op in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
    case(
        f"{_op}_i32",
        _op,
        _binary(_op),
        lambda rng: (ints(rng), np.array([0, 1, 5, 31, 32, 33, -1, 2] * 2, I32)),
    )
    case(
        f"{_op}_u8",
        _op,
        _binary(_op),
        lambda rng: (ints(rng, U8), np.array([0, 1, 3, 7, 8, 9, 255, 2] * 2, U8)),
    )
for _op in ("eq", "ne", "lt", "le", "gt", "ge"):
    case(f"{_op}_f32", _op, _binary(_op), lambda rng: (floats(rng), floats(rng, shift=1)))
    case(f"{_op}_i32", _op, _binary(_op), lambda rng: (ints(rng), ints(rng)[::-1].copy()))
case("eq_bool", "eq", _binary("eq"), lambda rng: (bools(rng), bools(rng)))
case("lt_bf16", "lt", _binary("lt"), lambda rng: (floats(rng, BF16), floats(rng, BF16, shift=2)))
case("eq_c64", "eq", _binary("eq"), lambda rng: (complexes(rng), complexes(rng)[::-1].copy()))

case(
    "select_n_bool",
    "select_n",
    lambda ns: ns.lax.select_n,
    lambda rng: (bools(rng), floats(rng), floats(rng, shift=2)),
)
case(
    "select_n_u8_which",
    "select_n",
    lambda ns: ns.lax.select_n,
    lambda rng: (rng.integers(0, 3, 16).astype(U8), ints(rng), ints(rng), ints(rng)),
)
case(
    "sign_u8",
    "sign",
    lambda ns: ns.lax.sign,
    lambda rng: (ints(rng, U8),),
)
case(
    "select_n_i32_3way",
    "select_n",
    lambda ns: ns.lax.select_n,
    lambda rng: (rng.integers(0, 3, 16).astype(I32), ints(rng), ints(rng), ints(rng)),
)
case(
    "clamp_f32",
    "clamp",
    lambda ns: ns.lax.clamp,
    lambda rng: (np.float32(-1.0), floats(rng), np.float32(1.5)),
)
case(
    "clamp_i32_arrays",
    "clamp",
    lambda ns: ns.lax.clamp,
    lambda rng: (ints(rng) // 2, ints(rng), ints(rng)[::-1] // 2 + 50),
)

# ---------------------------------------------------------------- complex
case("complex_f32", "complex", _binary("complex"), lambda rng: (floats(rng), floats(rng, shift=3)))
for _op in ("real", "imag", "conj", "neg"):
    case(f"{_op}_c64", _op, _unary(_op), lambda rng: (complexes(rng),))
case("abs_c64", "abs", _unary("abs"), lambda rng: (complexes(rng),), TRANSCENDENTAL)
case("sign_c64", "sign", _unary("sign"), lambda rng: (complexes(rng),), TRANSCENDENTAL)
for _op in ("add", "sub", "mul"):
    case(f"{_op}_c64", _op, _binary(_op), lambda rng: (complexes(rng), complexes(rng)[::-1].copy()))
case(
    "div_c64",
    "div",
    _binary("div"),
    lambda rng: (complexes(rng, special=False), complexes(rng, special=False)),
    COMPLEX_TRANSCENDENTAL,
)
for _op in ("exp", "log", "sqrt", "sin", "cos", "tanh", "rsqrt"):
    case(
        f"{_op}_c64",
        _op,
        _unary(_op),
        lambda rng: (complexes(rng, special=False),),
        COMPLEX_TRANSCENDENTAL,
    )
for _op in (
    "tan", "expm1", "log1p", "exp2", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
    "atanh",
):  # fmt: skip
    case(
        f"{_op}_c64",
        _op,
        _unary(_op),
        lambda rng: (complexes(rng, special=False),),
        COMPLEX_TRANSCENDENTAL,
    )
for _op in ("sin", "cos"):  # the real part zero, the imaginary part large or infinite
    case(
        f"{_op}_special_c64",
        _op,
        _unary(_op),
        lambda rng: (
            np.concatenate([
                complexes(rng),
                np.array([1j * 100, -100j, complex(0, INF), complex(-0.0, 90), complex(2, 89)]),
            ]).astype(C64),
        ),
        COMPLEX_TRANSCENDENTAL,
    )  # fmt: skip
case(
    "pow_c64",
    "pow",
    _binary("pow"),
    lambda rng: (complexes(rng, special=False), complexes(rng, special=False)),
    COMPLEX_TRANSCENDENTAL,
)

# ----------------------------------------------------------- conversions
_WIDE = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3e9, -3e9, INF, -INF, NAN, 65504.0, 7e4, 1e-8, 255.7]
for _dt in (I32, U8, F16, BF16, BOOL):
    case(
        f"convert_f32_to_{_dt.name}",
        "convert_element_type",
        lambda ns, dt=_dt: lambda x: ns.lax.convert_element_type(x, dt),
        lambda rng: (np.array(_WIDE, F32),),
    )
for _dt in (F32, U8, BOOL, F16):
    case(
        f"convert_i32_to_{_dt.name}",
        "convert_element_type",
        lambda ns, dt=_dt: lambda x: ns.lax.convert_element_type(x, dt),
        lambda rng: (np.concatenate([ints(rng), np.array([16777217, 256, 255, -2], I32)]),),
    )
case(
    "convert_u32_to_f32",
    "convert_element_type",
    lambda ns: lambda x: ns.lax.convert_element_type(x, F32),
    lambda rng: (np.array([0, 1, 2**24 + 1, 2**31, 2**32 - 1, 2**32 - 129, 3000000001], U32),),
)
case(
    "convert_f32_to_u32",
    "convert_element_type",
    lambda ns: lambda x: ns.lax.convert_element_type(x, U32),
    lambda rng: (np.array(_WIDE, F32),),
)
case(
    "convert_bool_to_f32",
    "convert_element_type",
    lambda ns: lambda x: ns.lax.convert_element_type(x, F32),
    lambda rng: (bools(rng),),
)
case(
    "convert_bf16_to_f16",
    "convert_element_type",
    lambda ns: lambda x: ns.lax.convert_element_type(x, F16),
    lambda rng: (floats(rng, BF16, -1e5, 1e5),),
)
case(
    "convert_f32_to_c64",
    "convert_element_type",
    lambda ns: lambda x: ns.lax.convert_element_type(x, C64),
    lambda rng: (floats(rng),),
)
# NumPy constants fold on the host: the fold must follow XLA's saturating
# float-to-integer rule (NaN to 0), not NumPy's undefined cast.
for _dt in (np.dtype(np.int8), U8, I32, U32):
    case(
        f"convert_f32_constant_to_{_dt.name}",
        (),
        lambda ns, dt=_dt: lambda: ns.lax.convert_element_type(np.array([*_WIDE, -129.0], F32), dt),
        lambda rng: (),
    )
case(
    "convert_c64_constant_to_int32",
    (),
    lambda ns: lambda: ns.lax.convert_element_type(np.array([NAN + 1j, 3e9 - 1j, 1.5], C64), I32),
    lambda rng: (),
)
case(
    "convert_c64_to_bool",
    "convert_element_type",
    lambda ns: lambda x: ns.lax.convert_element_type(x, BOOL),
    lambda rng: (np.array([-0.0 + 1j, 0.0 - 1j, 0j, NAN * 1j, 2 + 0j, complex(0, INF)], C64),),
)
case(
    "bitcast_f32_to_i32",
    "bitcast_convert_type",
    lambda ns: lambda x: ns.lax.bitcast_convert_type(x, I32),
    lambda rng: (floats(rng),),
)
case(
    "bitcast_i32_to_f32",
    "bitcast_convert_type",
    lambda ns: lambda x: ns.lax.bitcast_convert_type(x, F32),
    lambda rng: (ints(rng),),
)
case(
    "bitcast_f32_to_u8",
    "bitcast_convert_type",
    lambda ns: lambda x: ns.lax.bitcast_convert_type(x, U8),
    lambda rng: (floats(rng, n=8),),
)
case(
    "bitcast_u8_to_bf16",
    "bitcast_convert_type",
    lambda ns: lambda x: ns.lax.bitcast_convert_type(x, BF16),
    lambda rng: (rng.integers(0, 256, (5, 2)).astype(U8),),
)

# ----------------------------------------------------------------- shapes
case(
    "broadcast_in_dim",
    "broadcast_in_dim",
    lambda ns: lambda x: ns.lax.broadcast_in_dim(x, (2, 3, 4), (1,)),
    lambda rng: (grid(rng, (3,)),),
)
case(
    "broadcast_in_dim_transposing",
    "broadcast_in_dim",
    lambda ns: lambda x: ns.lax.broadcast_in_dim(x, (3, 4, 1, 2), (3, 0, 2)),
    lambda rng: (grid(rng, (2, 3, 1)),),
)
case(
    "broadcast_in_dim_scalar_i32",
    "broadcast_in_dim",
    lambda ns: lambda x: ns.lax.broadcast_in_dim(x, (2, 2), ()),
    lambda rng: (np.int32(7),),
)
case(
    "reshape",
    "reshape",
    lambda ns: lambda x: ns.lax.reshape(x, (4, 3)),
    lambda rng: (grid(rng, (2, 6)),),
)
case(
    "reshape_dimensions",
    "reshape",
    lambda ns: lambda x: ns.lax.reshape(x, (6, 2), dimensions=(1, 0)),
    lambda rng: (grid(rng, (3, 4), I32),),
)
case(
    "squeeze",
    "squeeze",
    lambda ns: lambda x: ns.lax.squeeze(x, (0, 2)),
    lambda rng: (grid(rng, (1, 3, 1)),),
)
case(
    "transpose",
    "transpose",
    lambda ns: lambda x: ns.lax.transpose(x, (2, 0, 1)),
    lambda rng: (grid(rng, (2, 3, 4), I32),),
)
case("rev", "rev", lambda ns: lambda x: ns.lax.rev(x, (0, 1)), lambda rng: (grid(rng, (3, 4)),))
case(
    "concatenate",
    "concatenate",
    lambda ns: lambda a, b, c: ns.lax.concatenate([a, b, c], 1),
    lambda rng: (grid(rng, (2, 1)), grid(rng, (2, 3)), grid(rng, (2, 2))),
)
case(
    "pad_interior_negative",
    "pad",
    lambda ns: lambda x, v: ns.lax.pad(x, v, [(1, -1, 1), (-1, 2, 0)]),
    lambda rng: (grid(rng, (3, 4)), np.float32(-9.0)),
)
case(
    "pad_i32",
    "pad",
    lambda ns: lambda x: ns.lax.pad(x, np.int32(5), [(2, 1, 2)]),
    lambda rng: (grid(rng, (4,), I32),),
)
case(
    "slice_strided",
    "slice",
    lambda ns: lambda x: ns.lax.slice(x, (0, 1), (5, 6), (2, 2)),
    lambda rng: (grid(rng, (5, 6)),),
)
case(
    "dynamic_slice",
    "dynamic_slice",
    lambda ns: lambda x, i, j: ns.lax.dynamic_slice(x, (i, j), (2, 3)),
    lambda rng: (grid(rng, (4, 5)), np.int32(1), np.int32(2)),
)
case(
    "dynamic_slice_clamped",
    "dynamic_slice",
    lambda ns: lambda x, i, j: ns.lax.dynamic_slice(x, (i, j), (2, 3)),
    lambda rng: (grid(rng, (4, 5)), np.int32(7), np.int32(-3)),
)
case(
    "dynamic_update_slice",
    "dynamic_update_slice",
    lambda ns: lambda x, u, i: ns.lax.dynamic_update_slice(x, u, (i, np.int32(0))),
    lambda rng: (grid(rng, (4, 3)), grid(rng, (2, 3)), np.int32(1)),
)
case(
    "dynamic_update_slice_clamped",
    "dynamic_update_slice",
    lambda ns: lambda x, u, i: ns.lax.dynamic_update_slice(x, u, (i, np.int32(-2))),
    lambda rng: (grid(rng, (4, 3), I32), grid(rng, (2, 2), I32), np.int32(9)),
)
for _dt in (I32, F32, F16, U8):
    case(f"iota_{_dt.name}", "iota", lambda ns, dt=_dt: lambda: ns.lax.iota(dt, 6), lambda rng: ())
case(
    "broadcasted_iota",
    "iota",
    lambda ns: lambda: ns.lax.broadcasted_iota(I32, (2, 3), 1),
    lambda rng: (),
)
case(
    "split",
    "split",
    lambda ns: lambda x: ns.lax.split(x, (1, 3, 0, 2), axis=1),
    lambda rng: (grid(rng, (2, 6)),),
)
case(
    "stack",
    "stack",
    lambda ns: lambda a, b: ns.lax.stack([a, b], axis=1),
    lambda rng: (grid(rng, (2, 3)), grid(rng, (2, 3))),
)
case(
    "unstack",
    "unstack",
    lambda ns: lambda x: ns.lax.unstack(x, axis=1),
    lambda rng: (grid(rng, (2, 3), I32),),
)
case("tile", "tile", lambda ns: lambda x: ns.lax.tile(x, (2, 3)), lambda rng: (grid(rng, (2, 2)),))


# --------------------------------------------------------- gather/scatter
def _take_dnums(ns: Any) -> Any:
    return ns.lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )


def _scatter_dnums(ns: Any) -> Any:
    return ns.lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )


_ROWS_IN = np.array([[0], [3], [1], [3]], I32)
_ROWS_OOB = np.array([[0], [9], [-1], [2]], I32)

for _mode in ("clip", "fill", "promise_in_bounds"):
    case(
        f"gather_rows_{_mode}",
        "gather",
        lambda ns, m=_mode: lambda x, i: ns.lax.gather(x, i, _take_dnums(ns), (1, 3), mode=m),
        lambda rng, m=_mode: (
            grid(rng, (4, 3)),
            _ROWS_IN if m == "promise_in_bounds" else _ROWS_OOB,
        ),
    )
case(
    "gather_fill_value_i32",
    "gather",
    lambda ns: (
        lambda x, i: ns.lax.gather(x, i, _take_dnums(ns), (1, 3), mode="fill", fill_value=-7)
    ),
    lambda rng: (grid(rng, (4, 3), I32), _ROWS_OOB),
)
case(
    "gather_2d_points",
    "gather",
    lambda ns: (
        lambda x, i: ns.lax.gather(
            x,
            i,
            ns.lax.GatherDimensionNumbers(
                offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1)
            ),
            (1, 1),
            mode="clip",
        )
    ),
    lambda rng: (grid(rng, (3, 4)), np.array([[0, 0], [2, 3], [1, 2], [5, -1]], I32)),
)

_SCATTERS = [
    ("scatter", "scatter"),
    ("scatter_add", "scatter-add"),
    ("scatter_mul", "scatter-mul"),
    ("scatter_min", "scatter-min"),
    ("scatter_max", "scatter-max"),
]
for _op, _prim in _SCATTERS:
    for _mode in ("fill", "clip"):
        case(
            f"{_op}_{_mode}_i32",
            _prim,
            lambda ns, op=_op, m=_mode: (
                lambda x, i, u: getattr(ns.lax, op)(x, i, u, _scatter_dnums(ns), mode=m)
            ),
            lambda rng: (grid(rng, (4, 3), I32), _ROWS_OOB, grid(rng, (4, 3), I32)),
        )
    case(
        f"{_op}_dupes_f32",
        _prim,
        lambda ns, op=_op: (
            lambda x, i, u: getattr(ns.lax, op)(x, i, u, _scatter_dnums(ns), mode="fill")
        ),
        lambda rng: (small_ints_f(rng, (4, 3)), _ROWS_IN, small_ints_f(rng, (4, 3))),
    )
case(
    "scatter_nan_f32",
    "scatter",
    lambda ns: lambda x, i, u: ns.lax.scatter(x, i, u, _scatter_dnums(ns), mode="fill"),
    lambda rng: (
        grid(rng, (4, 3)),
        np.array([[2], [0]], I32),
        np.array([[NAN, INF, -0.0], [1.0, -INF, NAN]], F32),
    ),
)

# ------------------------------------------------------------- reductions
for _op in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min"):
    case(
        f"{_op}_i32",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, (1,)),
        lambda rng: (grid(rng, (3, 5), I32),),
    )
    case(
        f"{_op}_exact_f32",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, (0, 2)),
        lambda rng: (small_ints_f(rng, (3, 2, 3)),),
    )
    case(
        f"{_op}_special_f32",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, (1,)),
        lambda rng: (floats(rng).reshape(4, 4),),
        EXACT if _op in ("reduce_max", "reduce_min") else ACCUMULATION,
    )
case(
    "reduce_sum_random_f32",
    "reduce_sum",
    lambda ns: lambda x: ns.lax.reduce_sum(x, (0,)),
    lambda rng: (grid(rng, (37, 3)),),
    ACCUMULATION,
)
case(
    "reduce_max_bf16",
    "reduce_max",
    lambda ns: lambda x: ns.lax.reduce_max(x, (0,)),
    lambda rng: (floats(rng, BF16).reshape(4, 4),),
)
case(
    "reduce_sum_c64",
    "reduce_sum",
    lambda ns: lambda x: ns.lax.reduce_sum(x, (0,)),
    lambda rng: (complexes(rng, special=False).reshape(4, 3),),
    ACCUMULATION,
)
for _op in ("reduce_and", "reduce_or"):
    case(
        f"{_op}_bool",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, (1,)),
        lambda rng: (np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1]], bool),),
    )
    case(
        f"{_op}_i32",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, (0,)),
        lambda rng: (ints(rng).reshape(4, 4),),
    )
case(
    "reduce_xor_bool",
    "reduce_xor",
    lambda ns: lambda x: ns.reduce_xor(x, (1,)),
    lambda rng: (np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0], [1, 0, 1]], bool),),
)
case(
    "reduce_xor_i32",
    "reduce_xor",
    lambda ns: lambda x: ns.reduce_xor(x, (0,)),
    lambda rng: (ints(rng).reshape(4, 4),),
)
for _op in ("argmax", "argmin"):
    case(
        f"{_op}_f32",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, 1, I32),
        lambda rng: (
            np.array(
                [[1, 3, 3, 0], [NAN, 2, NAN, 5], [-INF, -INF, 0, -0.0], [2, 1, INF, INF]], F32
            ),
        ),
    )
    case(
        f"{_op}_i32_axis0",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, 0, I32),
        lambda rng: (np.array([[1, 5, 2], [1, -5, 7], [0, 5, 7]], I32),),
    )
    case(
        f"{_op}_bool",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, 0, I32),
        lambda rng: (np.array([[0, 1], [1, 1], [0, 0]], bool),),
    )
for _op in ("cumsum", "cumprod", "cummax", "cummin"):
    for _rev in (False, True):
        case(
            f"{_op}_i32{'_rev' if _rev else ''}",
            _op,
            lambda ns, op=_op, r=_rev: lambda x: getattr(ns.lax, op)(x, axis=1, reverse=r),
            lambda rng: (grid(rng, (3, 5), I32),),
        )
    case(
        f"{_op}_special_f32",
        _op,
        lambda ns, op=_op: lambda x: getattr(ns.lax, op)(x, axis=0),
        lambda rng: (floats(rng, lo=-2, hi=2).reshape(8, 2),),
        EXACT if _op in ("cummax", "cummin") else ACCUMULATION,
    )
case(
    "cumlogsumexp_f32",
    "cumlogsumexp",
    lambda ns: lambda x: ns.lax.cumlogsumexp(x, axis=0),
    lambda rng: (grid(rng, (6, 3)),),
    INVERSE_TRIG,
)
case(
    "cumlogsumexp_special_rev_f32",
    "cumlogsumexp",
    lambda ns: lambda x: ns.lax.cumlogsumexp(x, axis=0, reverse=True),
    lambda rng: (floats(rng).reshape(8, 2),),
    INVERSE_TRIG,
)

# ------------------------------------------------------------ dot_general
case(
    "dot_general_matmul_f32",
    "dot_general",
    lambda ns: lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
    lambda rng: (grid(rng, (3, 5)), grid(rng, (5, 4))),
    ACCUMULATION,
)
case(
    "dot_general_exact_f32",
    "dot_general",
    lambda ns: lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
    lambda rng: (small_ints_f(rng, (3, 5)), small_ints_f(rng, (5, 4))),
)
case(
    "dot_general_batched_i32",
    "dot_general",
    lambda ns: lambda a, b: ns.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
    lambda rng: (grid(rng, (2, 3, 4), I32), grid(rng, (2, 4, 2), I32)),
)
case(
    "dot_general_preferred_i8_to_i32",
    "dot_general",
    lambda ns: (
        lambda a, b: ns.lax.dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type=I32)
    ),
    lambda rng: (
        rng.integers(-128, 128, (4, 3)).astype(np.int8),
        rng.integers(-128, 128, (4, 2)).astype(np.int8),
    ),
)
case(
    "dot_general_bf16_to_f32",
    "dot_general",
    lambda ns: (
        lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=F32)
    ),
    lambda rng: (grid(rng, (2, 3)).astype(BF16), grid(rng, (3, 2)).astype(BF16)),
    ACCUMULATION,
)
case(
    "dot_general_f32_to_bf16",
    "dot_general",
    lambda ns: (
        lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=BF16)
    ),
    lambda rng: (grid(rng, (2, 3)) + np.float32(0.1), grid(rng, (3, 2)) + np.float32(0.3)),
)
case(
    "dot_general_mixed_i8_i32",
    "dot_general",
    lambda ns: lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
    lambda rng: (grid(rng, (2, 3)).astype(np.int8), grid(rng, (3, 2), I32)),
)
case(
    "dot_general_mixed_bf16_f32",
    "dot_general",
    lambda ns: lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
    lambda rng: (grid(rng, (2, 3)).astype(BF16), grid(rng, (3, 2))),
)
case(
    "dot_general_c64",
    "dot_general",
    lambda ns: lambda a, b: ns.lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
    lambda rng: (complexes(rng, 6, False).reshape(2, 3), complexes(rng, 6, False).reshape(3, 2)),
    ACCUMULATION,
)

# ------------------------------------------------------------ sort, top_k
_SORT_F = [3.0, -0.0, NAN, 1.0, 0.0, -INF, INF, -1.0, NAN, 0.0, 2.0, -0.0]
case(
    "sort_special_f32",
    "sort",
    lambda ns: lambda x: ns.lax.sort(x),
    lambda rng: (np.array(_SORT_F, F32),),
)
case(
    "sort_axis0_i32",
    "sort",
    lambda ns: lambda x: ns.lax.sort(x, dimension=0),
    lambda rng: (grid(rng, (5, 3), I32),),
)
case(
    "sort_key_val_stable",
    "sort",
    lambda ns: lambda k, v: ns.lax.sort((k, v), num_keys=1, is_stable=True),
    lambda rng: (rng.integers(0, 3, 12).astype(I32), np.arange(12, dtype=F32)),
)
case(
    "sort_two_keys",
    "sort",
    lambda ns: lambda a, b, c: ns.lax.sort((a, b, c), num_keys=2),
    lambda rng: (
        rng.integers(0, 2, 10).astype(I32),
        np.array(_SORT_F[:10], F32),
        np.arange(10, dtype=I32),
    ),
)
case("sort_bool", "sort", lambda ns: lambda x: ns.lax.sort(x), lambda rng: (bools(rng),))
# JAX's comparator: -0.0 equals 0.0, NaNs of either sign are equal and last, so a stable
# sort keeps each group in input order (the iota operand shows the permutation).
_SORT_NAN = [1.0, NAN, -0.0, -NAN, 0.0, -INF, NAN, -0.0, INF, -NAN, 0.0, -1.0]
_SORT_C = [
    complex(1, 2), complex(NAN, 0), complex(-0.0, 1), complex(1, NAN), complex(0.0, 1),
    complex(1, -INF), complex(-NAN, -1), complex(1, 2), complex(0.0, -0.0), complex(INF, 0),
    complex(NAN, NAN), complex(-0.0, 0.0), complex(1, -0.0), complex(-1, 5),
]  # fmt: skip


def _argsort_like(ns: Any) -> Callable[..., Any]:
    return lambda *ops: ns.lax.sort(ops, num_keys=len(ops) - 1, is_stable=True)


for _dt in (F32, BF16):
    case(
        f"sort_nan_zero_argsort_{'f32' if _dt == F32 else 'bf16'}",
        "sort",
        _argsort_like,
        lambda rng, dt=_dt: (np.array(_SORT_NAN).astype(dt), np.arange(12, dtype=I32)),
    )
case(
    "sort_c64_argsort",
    "sort",
    _argsort_like,
    lambda rng: (np.array(_SORT_C, C64), np.arange(len(_SORT_C), dtype=I32)),
)
case(
    "sort_c64_f32_two_keys",
    "sort",
    _argsort_like,
    lambda rng: (
        np.array([1 + 1j, 2j, 1 + 1j, -0.0 + 0j, 2j, 0j, 1 + 1j, 0j, 2j, -0.0 + 0j], C64),
        np.array(_SORT_NAN[:10], F32),
        np.arange(10, dtype=I32),
    ),
)
case(
    "sort_c64_axis0",
    "sort",
    lambda ns: lambda x: ns.lax.sort(x, dimension=0),
    lambda rng: (np.array(_SORT_C[:12], C64).reshape(4, 3),),
)
case(
    "sort_c64_random_unstable",
    "sort",
    lambda ns: lambda x: ns.lax.sort(x, is_stable=False),
    lambda rng: (complexes(rng, 16) + rng.integers(-1, 2, 16).astype(C64),),
)
case(
    "top_k_f32",
    "top_k",
    lambda ns: lambda x: ns.lax.top_k(x, 4),
    lambda rng: (np.array([1.0, 5.0, 3.0, 5.0, -INF, 2.0, 4.0, 0.0], F32),),
)
case(
    "top_k_special_f32",
    "top_k",
    lambda ns: lambda x: ns.lax.top_k(x, 5),
    lambda rng: (np.array(_SORT_F, F32),),
)
case(
    "top_k_2d_i32",
    "top_k",
    lambda ns: lambda x: ns.lax.top_k(x, 2),
    lambda rng: (grid(rng, (3, 5), I32),),
)


# ----------------------------------------------------- higher-order ones
def _cond_prog(ns: Any) -> Callable[..., Any]:
    lax = ns.lax
    return lambda p, x: lax.cond(p, lambda y: lax.sin(y), lambda y: lax.mul(y, y), x)


case("cond_true", "cond", _cond_prog, lambda rng: (np.bool_(True), grid(rng, (4,))), TRANSCENDENTAL)
case("cond_false", "cond", _cond_prog, lambda rng: (np.bool_(False), grid(rng, (4,))))
case(
    "switch_clamped_index",
    "cond",
    lambda ns: (
        lambda i, x: ns.lax.switch(
            i, [lambda y: ns.lax.neg(y), lambda y: ns.lax.add(y, y), lambda y: ns.lax.floor(y)], x
        )
    ),
    lambda rng: (np.int32(7), grid(rng, (4,))),
)


def _while_prog(ns: Any) -> Callable[..., Any]:
    lax = ns.lax

    def f(x: Any) -> Any:
        def cond(c: Any) -> Any:
            return lax.lt(c[0], np.int32(5))

        def body(c: Any) -> Any:
            return (
                lax.add(c[0], np.int32(1)),
                lax.add(lax.mul(c[1], np.float32(0.5)), np.float32(1.0)),
            )

        return lax.while_loop(cond, body, (np.int32(0), x))

    return f


case("while_loop", "while", _while_prog, lambda rng: (grid(rng, (3,)),))
case(
    "fori_loop_dynamic_bounds",
    "while",
    lambda ns: (
        lambda n, x: ns.lax.fori_loop(
            np.int32(0), n, lambda i, c: ns.lax.add(c, ns.lax.convert_element_type(i, F32)), x
        )
    ),
    lambda rng: (np.int32(4), grid(rng, (3,))),
)
case(
    "fori_loop_static_bounds",
    "scan",
    lambda ns: (
        lambda x: ns.lax.fori_loop(
            0, 3, lambda i, c: ns.lax.sub(ns.lax.mul(c, c), ns.lax.convert_element_type(i, F32)), x
        )
    ),
    lambda rng: (grid(rng, (3,)),),
)


def _scan_prog(ns: Any, reverse: bool) -> Callable[..., Any]:
    lax = ns.lax

    def f(c0: Any, xs: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            c = lax.add(lax.mul(c, np.float32(0.5)), x)
            return c, lax.tanh(c)

        return lax.scan(step, c0, xs, reverse=reverse)

    return f


case(
    "scan",
    "scan",
    lambda ns: _scan_prog(ns, False),
    lambda rng: (grid(rng, (2,)), grid(rng, (5, 2))),
    TRANSCENDENTAL,
)
case(
    "scan_reverse",
    "scan",
    lambda ns: _scan_prog(ns, True),
    lambda rng: (grid(rng, (2,)), grid(rng, (5, 2))),
    TRANSCENDENTAL,
)
case(
    "scan_length_no_xs",
    "scan",
    lambda ns: (
        lambda c: ns.lax.scan(lambda c, _: (ns.lax.mul(c, np.int32(3)), c), c, None, length=4)
    ),
    lambda rng: (np.array([1, -2, 5], I32),),
)
case(
    "map",
    "scan",
    lambda ns: lambda xs: ns.lax.map(lambda r: ns.lax.reduce_max(r, (0,)), xs),
    lambda rng: (grid(rng, (4, 3)),),
)
case(
    "jit_nested",
    "jit",
    lambda ns: (
        lambda x, y: ns.lax.add(ns.jit(lambda a, b: ns.lax.mul(ns.jit(ns.lax.sin)(a), b))(x, y), y)
    ),
    lambda rng: (grid(rng, (4,)), grid(rng, (4,))),
    TRANSCENDENTAL,
)


def _custom_jvp_prog(ns: Any) -> Callable[..., Any]:
    lax = ns.lax

    @ns.custom_jvp
    def f(x: Any) -> Any:
        return lax.mul(lax.exp(x), x)

    @f.defjvp
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return f(x), lax.mul(t, x)

    return f


def _custom_vjp_prog(ns: Any) -> Callable[..., Any]:
    lax = ns.lax

    @ns.custom_vjp
    def f(x: Any, y: Any) -> Any:
        return lax.sub(lax.mul(x, y), lax.cos(x))

    def fwd(x: Any, y: Any) -> Any:
        return f(x, y), (x, y)

    def bwd(res: Any, g: Any) -> Any:
        return res

    f.defvjp(fwd, bwd)
    return f


case(
    "custom_jvp_call",
    "custom_jvp_call",
    _custom_jvp_prog,
    lambda rng: (floats(rng),),
    TRANSCENDENTAL,
)
case(
    "custom_vjp_call",
    "custom_vjp_call",
    _custom_vjp_prog,
    lambda rng: (floats(rng), floats(rng, shift=2)),
    TRANSCENDENTAL,
)
case(
    "remat",
    "remat2",
    lambda ns: lambda x: ns.checkpoint(lambda y: ns.lax.mul(ns.lax.sin(y), ns.lax.sin(y)))(x),
    lambda rng: (floats(rng),),
    TRANSCENDENTAL,
)
case(
    "device_put",
    "device_put",
    lambda ns: lambda x: ns.lax.add(ns.device_put(x), x),
    lambda rng: (floats(rng),),
)

case(
    "device_put_function_under_jit",
    "device_put",
    lambda ns: lambda x: ns.lax.mul(ns.device_put_function(x), x),
    lambda rng: (floats(rng),),
)

# ------------------------------------------------------------------ linear algebra
LINALG = 256  # factorisations: LAPACK (JAX on CPU) and XLA order their sums differently


def _spd(rng: np.random.Generator, batch: tuple[int, ...], n: int, dtype: Any = F32) -> Any:
    a = rng.uniform(-1, 1, (*batch, n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.uniform(-1, 1, (*batch, n, n))
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _lower_tri(rng: np.random.Generator, batch: tuple[int, ...], n: int) -> Any:
    return (np.tril(rng.uniform(-1, 1, (*batch, n, n))) + 3 * np.eye(n)).astype(F32)


case(
    "cholesky",
    "cholesky",
    lambda ns: ns.lax.linalg.cholesky,
    lambda rng: (_spd(rng, (2,), 4),),
    LINALG,
)
case(
    "cholesky_not_positive_definite",
    "cholesky",
    lambda ns: ns.lax.linalg.cholesky,
    lambda rng: (np.stack([_spd(rng, (), 3), -_spd(rng, (), 3)]),),
    LINALG,
)
case(
    "cholesky_c64",
    "cholesky",
    lambda ns: ns.lax.linalg.cholesky,
    lambda rng: (_spd(rng, (), 3, C64),),
    LINALG,
)
for _left, _lower, _trans in ((True, True, False), (True, False, True), (False, True, True),
                              (False, False, False)):  # fmt: skip
    case(
        f"triangular_solve_{'left' if _left else 'right'}_{'lower' if _lower else 'upper'}"
        f"{'_transposed' if _trans else ''}",
        "triangular_solve",
        lambda ns, _left=_left, _lower=_lower, _trans=_trans: (
            lambda a, b: ns.lax.linalg.triangular_solve(
                a, b, left_side=_left, lower=_lower, transpose_a=_trans
            )
        ),
        lambda rng, _lower=_lower, _left=_left: (
            _lower_tri(rng, (2,), 4) if _lower else np.swapaxes(_lower_tri(rng, (2,), 4), 1, 2),
            grid(rng, (2, 4, 3) if _left else (2, 3, 4)),
        ),
        LINALG,
    )
case(
    "triangular_solve_unit_diagonal",
    "triangular_solve",
    lambda ns: (
        lambda a, b: ns.lax.linalg.triangular_solve(
            a, b, left_side=True, lower=True, unit_diagonal=True
        )
    ),
    lambda rng: (grid(rng, (4, 4)), grid(rng, (4, 2))),
    LINALG,
)
for _shape in ((4, 4), (2, 5, 3), (3, 5)):
    case(
        f"lu_{'x'.join(map(str, _shape))}",
        "lu",
        lambda ns: ns.lax.linalg.lu,
        lambda rng, _shape=_shape: (grid(rng, _shape),),
        LINALG,
    )
for _shape in ((4, 4), (2, 5, 3), (3, 5)):
    for _full in (True, False):
        case(
            f"qr_{'x'.join(map(str, _shape))}{'' if _full else '_reduced'}",
            "qr",
            lambda ns, _full=_full: lambda x: ns.lax.linalg.qr(x, full_matrices=_full),
            lambda rng, _shape=_shape: (grid(rng, _shape),),
            LINALG,
        )
case(
    "qr_c64",
    "qr",
    lambda ns: ns.lax.linalg.qr,
    lambda rng: (complexes(rng, n=12, special=False).reshape(4, 3),),
    LINALG,
)


def _hermitian(rng: np.random.Generator, batch: tuple[int, ...], n: int, dtype: Any = F32) -> Any:
    """``Q diag(w) Q^H`` with eigenvalues ``w`` spread over [-4, 4] (gaps of at least 0.5)."""
    a = rng.normal(size=(*batch, n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=(*batch, n, n))
    q, _ = np.linalg.qr(a)
    w = np.linspace(-4, 4, n) + rng.uniform(-0.2, 0.2, (*batch, n))
    return ((q * w[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))).astype(dtype)


def _fixing_phase(lax: Any, row: Any) -> Any:
    """Per column, the unit factor that makes ``row`` (one entry per column) real and >= 0."""
    if np.dtype(row.dtype).kind != "c":
        return lax.sign(row)
    return lax.conj(lax.div(row, lax.convert_element_type(lax.abs(row), row.dtype)))


def _take(lax: Any, x: Any, start: int, stop: int, axis: int) -> Any:
    """``x[start:stop]`` along ``axis`` (``lax.slice_in_dim`` without that helper)."""
    limit = list(x.shape)
    limit[axis] = stop
    begin = [0] * len(x.shape)
    begin[axis] = start
    return lax.slice(x, tuple(begin), tuple(limit))


def _first(lax: Any, x: Any, axis: int) -> Any:
    return lax.squeeze(_take(lax, x, 0, 1, axis), (axis,))


def _scale_columns(lax: Any, v: Any, factor: Any) -> Any:
    nd = len(v.shape)
    return lax.mul(v, lax.broadcast_in_dim(factor, v.shape, (*range(nd - 2), nd - 1)))


def _eigh_case(lower: bool, symmetrize: bool) -> Callable[[Any], Callable[..., Any]]:
    def build(ns: Any) -> Callable[..., Any]:
        def f(x: Any) -> Any:
            v, w = ns.lax.linalg.eigh(x, lower=lower, symmetrize_input=symmetrize)
            row0 = _first(ns.lax, v, len(v.shape) - 2)
            return w, _scale_columns(ns.lax, v, _fixing_phase(ns.lax, row0))

        return f

    return build


def _svd_case(full: bool, algorithm: str | None) -> Callable[[Any], Callable[..., Any]]:
    def build(ns: Any) -> Callable[..., Any]:
        def f(x: Any) -> Any:
            lax = ns.lax
            alg = None if algorithm is None else getattr(lax.linalg.SvdAlgorithm, algorithm)
            u, s, vt = lax.linalg.svd(x, full_matrices=full, algorithm=alg)
            nd = len(x.shape)
            k = s.shape[-1]
            # Singular vectors beyond min(m, n) are not unique: keep the first k, and
            # scale each pair (u_j, v_j) by the one phase that makes v_j's first entry real.
            u = _take(lax, u, 0, k, nd - 1)
            v = lax.transpose(_take(lax, vt, 0, k, nd - 2),
                              (*range(nd - 2), nd - 1, nd - 2))  # fmt: skip
            v = lax.conj(v) if np.dtype(x.dtype).kind == "c" else v
            phase = _fixing_phase(lax, _first(lax, v, nd - 2))
            u, v = _scale_columns(lax, u, phase), _scale_columns(lax, v, phase)
            return s, u, v, lax.linalg.svd(x, compute_uv=False)

        return f

    return build


case("eigh", "eigh", _eigh_case(True, True), lambda rng: (_hermitian(rng, (2,), 4),), LINALG)
case(
    "eigh_upper_unsymmetrized",
    "eigh",
    _eigh_case(False, False),
    lambda rng: (np.triu(_hermitian(rng, (), 5)) + np.tril(grid(rng, (5, 5)), -1),),
    LINALG,
)
case(
    "eigh_c64",
    "eigh",
    _eigh_case(True, True),
    lambda rng: (_hermitian(rng, (2,), 3, C64),),
    LINALG,
)
for _shape, _full, _alg in (((2, 5, 3), True, None), ((3, 5), False, None),
                            ((4, 4), True, "QR"), ((5, 3), False, "QR")):  # fmt: skip
    case(
        f"svd_{'x'.join(map(str, _shape))}{'' if _full else '_reduced'}"
        f"{'' if _alg is None else '_' + _alg}",
        "svd",
        _svd_case(_full, _alg),
        lambda rng, _shape=_shape: (grid(rng, _shape),),
        LINALG,
    )
case(
    "svd_c64",
    "svd",
    _svd_case(False, None),
    lambda rng: (complexes(rng, n=12, special=False).reshape(4, 3),),
    LINALG,
)


# Primitives of tessela_tracer.primitives not compared here, with the reason.
# Every one of them has a JAX 0.10.2 primitive of the same name, so the list is
# empty. Most are reached through the jax.lax function of the same name; the
# rest through the entry point that binds them in JAX: and/or/xor/not through
# bitwise_*, while through while_loop/fori_loop, cond through cond/switch,
# jit through jit, custom_jvp_call/custom_vjp_call through custom_jvp/custom_vjp,
# remat2 through checkpoint, device_put through device_put inside jit.
# ------------------------------------------------------- convolution, windows
case(
    "conv_nhwc_same_f32",
    "conv_general_dilated",
    lambda ns: (
        lambda x, w: ns.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
    ),
    lambda rng: (grid(rng, (2, 5, 5, 3)), grid(rng, (3, 3, 3, 4))),
    ACCUMULATION,
)
case(
    "conv_dilated_groups_exact_f32",
    "conv_general_dilated",
    lambda ns: (
        lambda x, w: ns.lax.conv_general_dilated(
            x, w, (2, 1), ((1, 0), (2, -1)), (1, 2), (2, 1), feature_group_count=2
        )
    ),
    lambda rng: (small_ints_f(rng, (2, 4, 6, 5)), small_ints_f(rng, (6, 2, 2, 3))),
)
case(
    "conv_batch_groups_exact_f32",
    "conv_general_dilated",
    lambda ns: (
        lambda x, w: ns.lax.conv_general_dilated(
            x, w, (1,), "VALID", batch_group_count=2, dimension_numbers=("NWC", "WIO", "NWC")
        )
    ),
    lambda rng: (small_ints_f(rng, (4, 5, 3)), small_ints_f(rng, (2, 3, 4))),
)
case(
    "conv_i32",
    "conv_general_dilated",
    lambda ns: lambda x, w: ns.lax.conv(x, w, (1,), "SAME"),
    lambda rng: (grid(rng, (1, 2, 6), I32), grid(rng, (3, 2, 3), I32)),
)
case(
    "conv_transpose_exact_f32",
    "conv_general_dilated",
    lambda ns: lambda x, w: ns.lax.conv_transpose(x, w, (2, 2), "SAME"),
    lambda rng: (small_ints_f(rng, (1, 3, 3, 2)), small_ints_f(rng, (3, 3, 2, 2))),
)
case(
    "reduce_window_sum_f32",
    "reduce_window_sum",
    lambda ns: (
        lambda x: ns.lax.reduce_window(
            x, 0.0, ns.lax.add, (2, 3), (1, 2), ((1, 0), (0, 2)), (2, 1), (1, 2)
        )
    ),
    lambda rng: (small_ints_f(rng, (4, 7)),),
)
case(
    "reduce_window_max_f32",
    "reduce_window_max",
    lambda ns: lambda x: ns.lax.reduce_window(x, -np.inf, ns.lax.max, (1, 2, 2), (1, 2, 2), "SAME"),
    lambda rng: (grid(rng, (2, 5, 5)),),
)
case(
    "reduce_window_min_i32",
    "reduce_window_min",
    lambda ns: (
        lambda x: ns.lax.reduce_window(
            x, np.int32(np.iinfo(np.int32).max), ns.lax.min, (3, 2), (1, 1), "VALID", None, (1, 2)
        )
    ),
    lambda rng: (grid(rng, (5, 6), I32),),
)
# The general reduce_window: another computation, another initial value
# (which XLA also pads with), several operands.
case(
    "reduce_window_mul_f32",
    "reduce_window",
    lambda ns: (
        lambda x: ns.lax.reduce_window(
            x, np.float32(1), ns.lax.mul, (2, 3), (1, 2), ((1, 0), (2, 1)), (2, 1), (1, 2)
        )
    ),
    lambda rng: (grid(rng, (4, 7)) / np.float32(4),),
)
case(
    "reduce_window_max_from_zero_f32",
    "reduce_window",
    lambda ns: lambda x: ns.lax.reduce_window(x, np.float32(0), ns.lax.max, (2, 2), (1, 1), "SAME"),
    lambda rng: (floats(rng).reshape(4, 4),),
)
case(
    "reduce_window_argmax_pairs",
    "reduce_window",
    lambda ns: (
        lambda x, i: ns.lax.reduce_window(
            (x, i),
            (np.float32(-np.inf), np.int32(-1)),
            lambda a, b: (
                ns.lax.max(a[0], b[0]),
                ns.lax.select(ns.lax.ge(a[0], b[0]), a[1], b[1]),
            ),
            (3,),
            (2,),
            "VALID",
        )
    ),
    lambda rng: (grid(rng, (9,)), np.arange(9, dtype=I32)),
)


# ------------------------------------------------------------------- fft
def _cgrid(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(C64)


def _fft_case(
    name: str,
    fft_type: str,
    lengths: tuple[int, ...],
    make: Callable[[np.random.Generator], tuple[np.ndarray, ...]],
    *,
    member: bool = False,
) -> None:
    # ``fft_type`` passed as its string, or as the FftType member of that name.
    def build(ns: Any) -> Callable[..., Any]:
        kind = getattr(ns.lax.FftType, fft_type.upper()) if member else fft_type
        return lambda x: ns.lax.fft(x, kind, lengths)

    case(name, "fft", build, make, ACCUMULATION)


_fft_case("fft_c64", "fft", (8,), lambda rng: (_cgrid(rng, (3, 8)),), member=True)
_fft_case("ifft_2d_c64", "ifft", (3, 5), lambda rng: (_cgrid(rng, (2, 3, 5)),))
_fft_case("rfft_2d_f32", "rfft", (4, 7), lambda rng: (grid(rng, (2, 4, 7)),))
_fft_case("irfft_2d_f32", "irfft", (3, 6), lambda rng: (_cgrid(rng, (2, 3, 4)),))
_fft_case("irfft_odd_f32", "irfft", (9,), lambda rng: (_cgrid(rng, (2, 5)),), member=True)
_fft_case("rfft_i32", "rfft", (6,), lambda rng: (grid(rng, (6,), I32),))

NOT_COMPARED: dict[str, str] = {
    "custom_lin": "the linear part of a custom_vjp function, which reverse mode transposes "
    "away; it cannot be evaluated (JAX raises a TypeError), and its rule raises the same "
    "TypeError, tested in tests/test_rules.py",
    "name": "the identity marker of checkpoint_name (for checkpoint policies), added after "
    "this golden set; its compiled result is its operand, tested under jit, vmap and grad "
    "in tessela-autodiff's test_remat_policies.py",
    **dict.fromkeys(
        ("debug_callback", "debug_print", "io_callback", "pure_callback"),
        "a host callback: its compiled result is whatever the Python function returns; "
        "tested eagerly and under jit in tests/test_callback.py",
    ),
    **dict.fromkeys(
        (
            "psum",
            "pmax",
            "pmin",
            "all_gather",
            "axis_index",
            "ppermute",
            "reduce_scatter",
            "all_to_all",
        ),
        "a collective over a named axis: vmap computes it over its batch axis, and shard_map "
        "lowers it to an XLA collective over mesh axes, compared with JAX 0.10.2 on 8 devices "
        "(tests/golden/shard_map_lowering.txt, the umbrella's shard_map_cases.txt); outside "
        "both it raises JAX's NameError, tested in tests/test_rules_collective.py",
    ),
    **dict.fromkeys(
        ("select_and_gather_add", "select_and_scatter_add"),
        "JAX binds it only inside its derivatives of max/min pooling; compared with JAX "
        "through grad and jvp of reduce_window_max/min in tessela-autodiff's golden data "
        "and against NumPy in tests/test_conv_window.py",
    ),
}
NOT_COMPARED["mulhi"] = NOT_COMPARED["scatter-sub"] = (
    "added after this golden set; compared with JAX 0.10.2 (eagerly, under jit and vmap, and "
    "the gradient of scatter-sub) in the umbrella's tests/test_lax_more.py golden data"
)
NOT_COMPARED["rng_bit_generator"] = NOT_COMPARED["rng_uniform"] = (
    "added after this golden set; rng_bit_generator's keys and bits are compared with JAX "
    "0.10.2 for every algorithm in the umbrella's tests/test_lax_more.py golden data, "
    "rng_uniform (XLA's stateful RNG) by range and dtype there"
)
_KEYS_COMPARED = (
    "typed PRNG keys (no numeric value of their own); their data and every key operation "
    "are compared with JAX in tessela's tests/test_typed_keys.py (umbrella golden data)"
)
NOT_COMPARED.update(
    dict.fromkeys(
        ("eig", "schur", "hessenberg", "tridiagonal", "householder_product", "ormqr",
         "tridiagonal_solve", "lu_pivots_to_permutation", "cholesky_update",
         "symmetric_product"),
        "added after this golden set; compared with JAX 0.10.2 (values up to the documented "
        "sign and phase freedoms, derivatives, vmap) in the umbrella's "
        "tests/test_linalg_more_golden.py, and by their defining identities in "
        "tests/test_linalg_lapack_more.py",
    )
)  # fmt: skip
NOT_COMPARED["random_wrap"] = _KEYS_COMPARED
NOT_COMPARED["random_unwrap"] = _KEYS_COMPARED
NOT_COMPARED["custom_vmap_call"] = NOT_COMPARED["linear_call"] = (
    "added after this golden set; custom_batching.custom_vmap and "
    "custom_derivatives.linear_call are compared with JAX 0.10.2 (eagerly, under jit, vmap "
    "and grad) in the umbrella's tests/test_toplevel_more.py golden data"
)

# ------------------------------------------------ reduce_precision, barrier, reduce, solves
_RP_SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1e-40, -1e-45, 6e-8, 3e-5, 65504.0, 65520.0, 3.4e38,
               1.00390625, 1.005859375, 1.0009765625, 1.00048828125]  # fmt: skip
for _e, _m in ((8, 7), (5, 10), (4, 3)):
    case(
        f"reduce_precision_e{_e}m{_m}_f32",
        "reduce_precision",
        lambda ns, e=_e, m=_m: lambda x: ns.lax.reduce_precision(x, e, m),
        lambda rng: (floats(rng, F32, -70000.0, 70000.0, 32, _RP_SPECIAL),),
    )
case(
    "reduce_precision_e5m2_f16",
    "reduce_precision",
    lambda ns: lambda x: ns.lax.reduce_precision(x, 5, 2),
    lambda rng: (floats(rng, F16, -300.0, 300.0, 24),),
)
case(
    "optimization_barrier_pytree",
    "optimization_barrier",
    lambda ns: lambda x, i: ns.lax.optimization_barrier((ns.lax.mul(x, 2.0), {"i": i})),
    lambda rng: (grid(rng, (3, 4)), grid(rng, (5,), I32)),
)


def _argmax_pair(ns: Any) -> Callable[..., Any]:
    lax = ns.lax

    def comp(a: Any, b: Any) -> Any:
        (av, ai), (bv, bi) = a, b
        pick = lax.bitwise_or(lax.gt(av, bv), lax.bitwise_and(lax.eq(av, bv), lax.lt(ai, bi)))
        return lax.select(pick, av, bv), lax.select(pick, ai, bi)

    return lambda x, i: lax.reduce((x, i), (np.float32(-np.inf), np.int32(2**31 - 1)), comp, (1,))


case("reduce_variadic_argmax_f32", "reduce", _argmax_pair,
     lambda rng: (small_ints_f(rng, (4, 6)), np.tile(np.arange(6, dtype=I32), (4, 1))))  # fmt: skip
case(
    "reduce_sum_of_squares_f32",
    "reduce",
    lambda ns: (
        lambda x: ns.lax.reduce(
            x, np.float32(0), lambda a, b: ns.lax.add(a, ns.lax.mul(b, b)), (0, 2)
        )
    ),
    lambda rng: (small_ints_f(rng, (2, 3, 4)),),
)


def _solve_prog(ns: Any) -> Callable[..., Any]:
    lax = ns.lax
    dn = (((1,), (0,)), ((), ()))

    def f(a: Any, d: Any, b: Any) -> Any:
        matvec = lambda v: lax.dot_general(a, v, dn)  # noqa: E731
        # Jacobi-preconditioned: a is diagonal, so one division solves it.
        return lax.custom_linear_solve(matvec, b, lambda mv, r: lax.div(r, d))

    return f


case(
    "custom_linear_solve_f32",
    "custom_linear_solve",
    _solve_prog,
    lambda rng: (np.diag([2.0, 4.0, 0.5]).astype(F32), np.array([2.0, 4.0, 0.5], F32),
                 small_ints_f(rng, (3,))),
)  # fmt: skip

# --------------------------------------------- special: incomplete gamma and beta, Bessel
# Iterative kernels (series and continued fractions run to a tolerance), so the
# bound is looser than for one-op transcendental functions.
ITERATIVE = 64
_GAMMA_A = [0.0, 0.5, 1.0, 2.5, 10.0, -1.0, INF, NAN]
_GAMMA_X = [0.0, 0.5, 3.0, 2.5, INF, 1.0, 30.0, -1.0]
for _op in ("igamma", "igammac", "igamma_grad_a"):
    case(
        f"{_op}_f32",
        _op,
        _binary(_op),
        lambda rng: (
            floats(rng, F32, 0.05, 20.0, special=_GAMMA_A, n=24),
            floats(rng, F32, 0.0, 25.0, special=_GAMMA_X, n=24),
        ),
        ITERATIVE,
    )
case(
    "igamma_f16",
    "igamma",
    _binary("igamma"),
    lambda rng: (floats(rng, F16, 0.1, 8.0, special=[]), floats(rng, F16, 0.0, 10.0, special=[])),
    ITERATIVE,
)
case(
    "betainc_f32",
    "regularized_incomplete_beta",
    lambda ns: ns.lax.betainc,
    lambda rng: (
        floats(rng, F32, 0.1, 12.0, special=[0.0, 1.0, 2.0, INF, -1.0, NAN, 0.5, 0.0], n=24),
        floats(rng, F32, 0.1, 12.0, special=[1.0, 0.0, 3.0, 1.0, 2.0, 1.0, INF, 0.0], n=24),
        floats(rng, F32, 0.0, 1.0, special=[0.5, 0.3, 0.0, 1.0, 1.5, 0.5, 0.2, 0.7], n=24),
    ),
    ITERATIVE,
)
for _op in ("bessel_i0e", "bessel_i1e"):
    case(f"{_op}_f32", _op, _unary(_op), lambda rng: (floats(rng, F32, -30.0, 30.0, n=32),), 8)
    case(f"{_op}_bf16", _op, _unary(_op), lambda rng: (floats(rng, BF16, -12.0, 12.0),), 1)
NOT_COMPARED["random_gamma_grad"] = (
    "JAX computes lax.random_gamma_grad inline (no primitive); compared with JAX through "
    "lax.random_gamma_grad in tessela's scipy golden data (umbrella tests/golden)"
)
NOT_COMPARED["sharding_constraint"] = (
    "an annotation for XLA's partitioner, the identity on values on one device; compared with "
    "JAX 0.10.2 on 8 devices (module annotations, output shardings, values) in "
    "golden/jit_shardings.py"
)
NOT_COMPARED["create_token"] = NOT_COMPARED["after_all"] = (
    "tokens carry no values, so there is nothing to compare; their jaxprs are compared with "
    "JAX 0.10.2's text in tessela-tracer's tests/test_tokens.py, their lowering in "
    "tests/test_tokens_ordered.py"
)
NOT_COMPARED["composite"] = NOT_COMPARED["platform_index"] = (
    "added after this golden set; lax.composite and lax.platform_dependent are compared with "
    "JAX 0.10.2 (eagerly, under jit, vmap and grad where JAX allows them) in the umbrella's "
    "tests/test_lax_other.py golden data"
)
NOT_COMPARED["copy"] = (
    "added after this golden set; its result is its operand, in a buffer of its own "
    "(tests/test_copy.py), and its jaxprs are JAX 0.10.2's (tessela-autodiff's "
    "tests/test_rules_misc.py)"
)
