"""``ufunc`` and ``frompyfunc``: each method against the NumPy ufunc of the same function."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from tessela_tracer import jit

add = tnp.frompyfunc(lambda x, y: x + y, nin=2, nout=1, identity=0)
sub = tnp.ufunc(lambda x, y: x - y, 2, 1, name="sub")
X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def test_call_outer_and_identity() -> None:
    np.testing.assert_array_equal(add(X, 1.0), X + 1)
    np.testing.assert_array_equal(sub.outer(X[0], X[1]), np.subtract.outer(X[0], X[1]))
    assert repr(sub) == "<jnp.ufunc 'sub'>" and (sub.nin, sub.nout, sub.nargs) == (2, 1, 2)
    assert add.identity == 0 and sub.identity is None
    assert sub == tnp.ufunc(sub._props["func"], 2, 1, name="sub") and hash(sub) == hash(sub)


@pytest.mark.parametrize(("axis", "keepdims"), [(0, False), (1, True), (None, False)])
def test_reduce_matches_numpy(axis: int | None, keepdims: bool) -> None:
    got = add.reduce(X, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(got, np.add.reduce(X, axis=axis, keepdims=keepdims))
    masked = add.reduce(X, axis=axis, where=X > 3, initial=0.0)
    np.testing.assert_allclose(masked, np.add.reduce(X, axis=axis, where=X > 3, initial=0.0))
    np.testing.assert_allclose(jit(lambda x: add.reduce(x, axis=axis))(X), X.sum(axis=axis))


def test_accumulate_at_reduceat_match_numpy() -> None:
    np.testing.assert_allclose(add.accumulate(X, axis=1), np.add.accumulate(X, axis=1))
    idx = np.array([0, 0, 2, 3, 3, 3])
    want = np.zeros(5, np.float32)
    np.add.at(want, idx, 1.5)
    np.testing.assert_allclose(add.at(np.zeros(5, np.float32), idx, 1.5, inplace=False), want)
    starts = np.array([0, 2, 3])
    np.testing.assert_allclose(add.reduceat(X, starts, axis=1), np.add.reduceat(X, starts, axis=1))
    # Under jit the NumPy starts are a constant of the program (a tracer), as in JAX.
    jitted = jit(lambda x: add.reduceat(x, starts, axis=1))(X)
    np.testing.assert_allclose(jitted, np.add.reduceat(X, starts, axis=1))


def test_refusals_as_in_jax() -> None:
    with pytest.raises(NotImplementedError, match="inplace=False"):
        add.at(X, 0, 1.0)
    with pytest.raises(ValueError, match="does not have an identity"):
        sub.reduce(X, where=X > 0)
    with pytest.raises(ValueError, match="zero-size array"):
        sub.reduce(np.zeros((0,), np.float32))
    neg = tnp.ufunc(lambda x: -x, 1, 1)
    with pytest.raises(ValueError, match="only supported for binary ufuncs"):
        neg.reduce(X)
    with pytest.raises(NotImplementedError, match="out argument"):
        add(X, X, out=X)  # type: ignore[arg-type]
    assert "ufunc" in tnp.__all__ and "frompyfunc" in tnp.__all__


@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal"])
@pytest.mark.parametrize("staged", [False, True])
def test_complex_comparisons_order_as_numpy(name: str, staged: bool) -> None:
    # lax orders real operands only; NumPy orders complex ones by real part,
    # then imaginary part (ties and NaNs included).
    x = np.array([1 + 2j, 2 + 1j, 1 + 1j, 1 + 2j, np.nan + 0j, 3j], np.complex64)
    y = np.array([2 + 1j, 1 + 2j, 1 + 2j, 1 + 2j, 1 + 0j, -3j], np.complex64)
    fn = getattr(tnp, name)
    got = jit(fn)(x, y) if staged else fn(x, y)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(x, y))


@pytest.mark.parametrize("staged", [False, True])
def test_ldexp_matches_numpy_where_two_to_the_exponent_overflows(staged: bool) -> None:
    x = np.array([1e-30, 3.5e-20, -2.0, 1e30, np.inf, 0.0], np.float32)
    e = np.array([150, 100, 3, -200, 4, 7], np.int32)
    got = jit(tnp.ldexp)(x, e) if staged else tnp.ldexp(x, e)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np.ldexp(x, e), rtol=1e-6)


@pytest.mark.parametrize(("x", "e"), [(1.5, 2.0), (np.float32(1.5), 1 + 2j), (1 + 1j, 2)])
def test_ldexp_refuses_complex_mantissas_and_inexact_exponents(x: object, e: object) -> None:
    with pytest.raises(ValueError, match="integer exponents"):
        tnp.ldexp(x, e)


@pytest.mark.parametrize(
    ("base", "exponent", "dtype", "weak"),
    [(2, 40, "int32", True), (np.array([True, False]), 3, "int32", False),
     (np.array([3], np.int8), np.array(2), "int8", False), (2.5, 2, "float32", True)],
)  # fmt: skip
def test_power_of_a_concrete_integer_exponent_is_an_array_as_in_jax(
    base: object, exponent: object, dtype: str, weak: bool
) -> None:
    out = tnp.power(base, exponent)
    assert out.dtype == np.dtype(dtype) and out.aval.weak_type == weak
    expected = np.power(np.asarray(base).astype(dtype), exponent)  # wraps like XLA's int32
    np.testing.assert_array_equal(np.asarray(out), expected)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "bool"])
def test_reciprocal_and_rint_of_integers_compute_in_floating_point(dtype: str) -> None:
    # JAX promotes both to the default float dtype (NumPy keeps integers,
    # where 1 // x is 0 for every |x| > 1).
    x = np.array([3, 1, 2, 7], dtype)
    with np.errstate(divide="ignore"):
        expected = 1.0 / x.astype(np.float32)
    rec = tnp.reciprocal(x)
    assert rec.dtype == np.float32
    np.testing.assert_allclose(np.asarray(rec), expected, rtol=1e-6)
    assert tnp.rint(x).dtype == np.float32


def test_booleans_count_as_integers_in_square_and_bitwise_count() -> None:
    b = np.array([True, False, True])
    assert tnp.square(b).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(tnp.square(b)), b.astype(np.int32))
    assert tnp.bitwise_count(b).dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(tnp.bitwise_count(b)), b.astype(np.uint8))


def test_complex_operands_of_rounding_and_sign_tests() -> None:
    z = np.array([1.4 + 2.6j, -0.5 - 1.5j, np.inf + 1j, 2 + np.nan * 1j], np.complex64)
    np.testing.assert_array_equal(np.asarray(tnp.isfinite(z)), np.isfinite(z))
    np.testing.assert_array_equal(np.asarray(tnp.round(z[:2])), np.round(z[:2]))
    np.testing.assert_array_equal(np.asarray(tnp.rint(z[:2])), np.rint(z[:2]))
    with pytest.raises(ValueError, match="real"):
        tnp.signbit(z)
    with pytest.raises(TypeError, match="abs"):
        tnp.fabs(z)
    with pytest.raises(ValueError, match="astype"):
        tnp.round(np.array([True]))
    with pytest.raises(NotImplementedError, match="decimals < 0"):
        tnp.round(np.array([15]), -1)
    half = np.array([0.125, 2.5], np.float16)
    assert tnp.round(half, 2).dtype == np.float16


@pytest.mark.parametrize(
    ("name", "value"),
    [("positive", 3), ("real", -0.75), ("conj", 3), ("floor", 3), ("deg2rad", 1.0),
     ("degrees", 2), ("negative", 2.5), ("sqrt", 4)],
)  # fmt: skip
def test_unary_functions_of_python_scalars_return_weak_arrays(name: str, value: object) -> None:
    out = getattr(tnp, name)(value)
    traced = jit(getattr(tnp, name))(value)
    assert isinstance(out, type(traced)) and out.aval == traced.aval and out.aval.weak_type
    np.testing.assert_allclose(np.asarray(out), np.asarray(traced))


def test_integer_remainders_by_zero_and_wrapping_lcm_match_numpy() -> None:
    x = np.array([7, -8, 2**30, 0, 5], np.int32)
    y = np.array([3, 0, 0, 4, -2], np.int32)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(np.asarray(tnp.fmod(x, y)), np.fmod(x, y))
        np.testing.assert_array_equal(np.asarray(tnp.remainder(x, y)), np.remainder(x, y))
    # |x| * (|y| // gcd) past int32 wraps as NumPy's (and JAX's) does.
    np.testing.assert_array_equal(np.asarray(tnp.lcm(x, np.int32(3))), np.lcm(x, np.int32(3)))


@pytest.mark.parametrize(
    "name", ["floor_divide", "remainder", "fmod", "left_shift", "right_shift", "power"]
)
def test_integer_functions_of_booleans_compute_on_int32(name: str) -> None:
    a = np.array([True, False, True, True])
    b = np.array([True, True, True, True])
    out = getattr(tnp, name)(a, b)
    assert out.dtype == np.int32
    expected = getattr(np, name)(a.astype(np.int32), b.astype(np.int32))
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_ldexp_of_an_exponent_one_past_two_to_the_exponent_range() -> None:
    x = np.array([1.0, 1.75, -1.5, 4.0], np.float32)
    e = np.array([127, 126, -120, 120], np.int8)  # normal results (XLA flushes subnormals)
    np.testing.assert_array_equal(np.asarray(tnp.ldexp(x, e)), np.ldexp(x, e.astype(np.int32)))


def test_cumulative_functions_widen_narrow_integers_and_nanmean_takes_an_integer_dtype() -> None:
    # The array API standard (and NumPy): both cumulative functions widen
    # narrow integers to the default integer (JAX 0.10.2's cumulative_prod
    # keeps int8); nanmean with an integer dtype divides as integers, as JAX's.
    x = np.array([[3, -4, 2], [5, 7, 1]], np.int8)
    assert tnp.cumulative_prod(x, axis=0).dtype == np.int32
    assert tnp.cumulative_sum(x, axis=0).dtype == np.int32
    assert tnp.cumulative_prod(np.array([True, False]), axis=0).dtype == np.int32
    np.testing.assert_array_equal(
        np.asarray(tnp.cumulative_prod(x, axis=0)), np.cumprod(x, axis=0, dtype=np.int32)
    )
    f = np.array([1.5, np.nan, 4.0, 3.0], np.float32)
    out = tnp.nanmean(f, dtype=np.int32)
    assert out.dtype == np.int32 and int(out) == int(np.nansum(f).astype(np.int32)) // 3
