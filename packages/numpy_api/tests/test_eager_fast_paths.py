"""Eager calls on concrete arrays find their cached program with one lookup.

The reductions, ``matmul``, ``where`` and ``clip`` keep, per function, a
table from exactly typed static arguments to the jitted program; a unary
function binds its real kernel at once on floating arrays. These tests pin
that a call served that way gives what the checked path gives: NumPy's values,
the traced path's shape, dtype and weak type, JAX's bits where JAX's are
golden, errors for arguments of other types, and jaxprs that do not change
once the tables are filled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from bits_cases import CASES, inputs
from conftest import GOLDEN_DIR
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_numpy import _eager, _products
from tessela_tracer import config, jit, make_jaxpr

REDUCTIONS = ["sum", "prod", "max", "min", "all", "any", "mean", "argmax", "argmin", "var", "std"]
DTYPES = ["bool", "int8", "uint8", "int32", "float16", "float32"]
SHAPES = [(), (4,), (2, 3)]


def _numpy_result(name: str, host: np.ndarray, axis: int | None, keepdims: bool) -> np.ndarray:
    wide = host.astype(np.float64) if name in ("mean", "var", "std") else host
    if name in ("sum", "prod") and host.dtype != np.float16:
        wide = host.astype(np.int64) if host.dtype.kind in "biu" else host
    out: np.ndarray = np.asarray(getattr(np, name)(wide, axis=axis, keepdims=keepdims))
    return out


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.sampled_from(REDUCTIONS),
    st.sampled_from(DTYPES),
    st.sampled_from(SHAPES),
    st.integers(-3, 2),
    st.booleans(),
    st.booleans(),
)
def test_fast_reductions_match_numpy_and_the_traced_path(
    name: str, dtype: str, shape: tuple[int, ...], axis_pick: int, use_axis: bool, keepdims: bool
) -> None:
    ndim = len(shape)
    axis = axis_pick % ndim - (ndim if axis_pick < 0 else 0) if use_axis and ndim else None
    host = (np.arange(int(np.prod(shape))) % 4).reshape(shape).astype(dtype)
    fn: Callable[..., Any] = getattr(tnp, name)
    x = tl.device_put(host)
    first = fn(x, axis=axis, keepdims=keepdims)  # the checked path fills the table
    assert (type(axis), axis, keepdims) in _eager.FAST[name]
    again = fn(x, axis=axis, keepdims=keepdims)  # one lookup, the same program
    traced = make_jaxpr(lambda v: fn(v, axis=axis, keepdims=keepdims))(host).out_avals[0]
    for out in (first, again):
        assert (out.shape, out.dtype, out.aval.weak_type) == (
            traced.shape,
            traced.dtype,
            traced.weak_type,
        )
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))
    want = _numpy_result(name, host, axis, keepdims)
    assert want.shape == first.shape
    rtol = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(np.asarray(first).astype(np.float64), want, rtol=rtol)


def test_a_fast_key_never_serves_arguments_of_another_type() -> None:
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = tl.device_put(host)
    for name in ("sum", "mean", "argmax", "var"):
        getattr(tnp, name)(x, axis=1)
        getattr(tnp, name)(x, axis=1, keepdims=True)
    # 1.0 == 1 and hashes as 1, but it is not an axis (JAX raises TypeError too).
    for name in ("sum", "mean", "argmax", "var"):
        with pytest.raises(TypeError):
            getattr(tnp, name)(x, axis=1.0)
    # Values of other types that JAX takes mean what they mean there.
    np.testing.assert_array_equal(np.asarray(tnp.sum(x, axis=True)), host.sum(axis=1))
    for name in ("sum", "mean", "var", "argmax"):
        got = getattr(tnp, name)(x, axis=np.int64(1), keepdims=1)
        np.testing.assert_allclose(
            np.asarray(got), getattr(np, name)(host, axis=1, keepdims=True), rtol=1e-6
        )
    # An unhashable axis takes the checked path.
    np.testing.assert_array_equal(np.asarray(tnp.sum(x, axis=[0, 1])), host.sum())


@pytest.fixture
def x64() -> Iterator[None]:
    before = config.read("jax_enable_x64")
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", before)


def test_the_x64_flag_keys_the_programs(x64: None) -> None:
    flags = tl.device_put(np.array([True, False, True]))
    ints = tl.device_put(np.arange(3, dtype=np.int32))
    assert tnp.sum(flags).dtype == np.int64 and tnp.mean(ints).dtype == np.float64
    config.update("jax_enable_x64", False)
    assert tnp.sum(flags).dtype == np.int32 and tnp.mean(ints).dtype == np.float32
    assert tnp.sum(flags).dtype == np.int32  # the fast path, filled without x64
    config.update("jax_enable_x64", True)
    assert tnp.sum(flags).dtype == np.int64 and tnp.mean(ints).dtype == np.float64
    assert int(tnp.sum(flags)) == 2 and float(tnp.mean(ints)) == 1.0


@pytest.mark.parametrize("name", ["var", "std"])
def test_ddof_is_an_operand_of_the_moment_programs(name: str) -> None:
    host = (np.arange(20, dtype=np.float32).reshape(4, 5) ** 1.5).astype(np.float32)
    x = tl.device_put(host)
    for ddof in (0, 1, 2, 0, 3):
        for axis in (None, 0, -1):
            got = getattr(tnp, name)(x, axis=axis, ddof=ddof)
            want = getattr(np, name)(host.astype(np.float64), axis=axis, ddof=ddof)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    assert (type(None), None, False) in _eager.FAST[name]
    # correction= and ddof= are one argument; a float correction is an operand too.
    np.testing.assert_allclose(
        np.asarray(getattr(tnp, name)(x, correction=1.5)),
        getattr(np, name)(host.astype(np.float64), ddof=1.5),
        rtol=1e-5,
    )


MOMENT_CASES = sorted(
    k for k in CASES if k.split("_")[0] in ("mean", "var", "std") and "where" not in k
)


@pytest.mark.parametrize("case", MOMENT_CASES)
def test_fast_moments_keep_jax_bits(case: str) -> None:
    fn, names = CASES[case]
    data = inputs()
    want = np.load(GOLDEN_DIR / "bits_golden.npz")[case]
    arrays = [tl.device_put(data[n]) for n in names]
    for _ in range(2):  # the checked path, then the fast table
        got = np.asarray(fn(tnp, arrays))
        assert got.dtype == want.dtype and got.shape == want.shape
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        assert same.all(), f"{case}: {got[~same][:4]} != JAX's {want[~same][:4]}"


def _fill_tables(x: Any, y: Any) -> None:
    for name in REDUCTIONS:
        getattr(tnp, name)(x)
        getattr(tnp, name)(x, axis=0)
    tnp.matmul(x, y)
    tnp.where(x > 0, x, y)
    tnp.clip(x, 0.5, 1.5)


FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "sum": lambda a, b: tnp.sum(a, axis=0),
    "mean": lambda a, b: tnp.mean(a),
    "var": lambda a, b: tnp.var(a, axis=0),
    "std": lambda a, b: tnp.std(a),
    "argmax": lambda a, b: tnp.argmax(a, axis=0),
    "matmul": lambda a, b: a @ b,
    "where": lambda a, b: tnp.where(a > 0, a, b),
    "clip": lambda a, b: tnp.clip(a, 0.5, 1.5),
    "tanh": lambda a, b: tnp.tanh(a),
    "abs": lambda a, b: tnp.abs(a),
}


def _jaxpr_texts(f: Callable[[Any, Any], Any], host: np.ndarray, x: Any) -> tuple[str, str]:
    # Traced on abstract arguments, and on a concrete array closed over.
    return str(make_jaxpr(f)(host, host)), str(make_jaxpr(lambda: f(x, x))())


def test_jaxprs_do_not_change_once_the_tables_are_filled() -> None:
    host = np.linspace(-1, 2, 9, dtype=np.float32).reshape(3, 3)
    x = tl.device_put(host)
    texts = {name: _jaxpr_texts(f, host, x) for name, f in FUNCTIONS.items()}
    _fill_tables(x, x)
    for name, f in FUNCTIONS.items():
        f(x, x)
        f(x, x)
        assert _jaxpr_texts(f, host, x) == texts[name], name
    # Under jit the arguments are tracers: the traced path runs, in one program.
    for name, f in FUNCTIONS.items():
        np.testing.assert_array_equal(np.asarray(jit(f)(x, x)), np.asarray(f(x, x)), name)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    st.sampled_from(["array", "python", "none"]),
    st.sampled_from(["array", "python", "none"]),
    st.sampled_from(["float32", "int32", "int8", "float16"]),
)
def test_clip_and_where_fast_paths_match_numpy(lo_kind: str, hi_kind: str, dtype: str) -> None:
    host = (np.arange(-4, 5) * 3).astype(dtype)
    x = tl.device_put(host)

    def bound(kind: str, value: int) -> Any:
        if kind == "array":
            return tl.device_put(np.full(host.shape, value, dtype))
        return value if kind == "python" else None

    lo, hi = bound(lo_kind, -5), bound(hi_kind, 7)
    for _ in range(2):
        got = tnp.clip(x, lo, hi)
        traced = make_jaxpr(lambda v: tnp.clip(v, lo, hi))(host).out_avals[0]
        assert (got.dtype, got.shape) == (traced.dtype, traced.shape)
        want = np.clip(host, None if lo is None else -5, None if hi is None else 7)
        np.testing.assert_array_equal(np.asarray(got), want)
    cond = tl.device_put(host > 0)
    other = bound(hi_kind, 7)
    if other is None:
        with pytest.raises(TypeError, match="pass both x and y"):
            tnp.where(cond, x, other)
        return
    for _ in range(2):
        got = tnp.where(cond, x, other)
        assert got.dtype == host.dtype
        np.testing.assert_array_equal(np.asarray(got), np.where(host > 0, host, 7))


def test_clip_converts_python_bounds_at_the_program_edge_as_jax() -> None:
    # JAX passes 300 into its jitted clip as a weak int32 and converts it to
    # int8 there (44); the fast path calls the same program.
    x = tl.device_put(np.array([50, 100], np.int8))
    for _ in range(2):
        assert np.asarray(tnp.clip(x, 0, 300)).tolist() == [44, 44]
        assert np.asarray(tnp.clip(x, max=300)).tolist() == [44, 44]
        assert np.asarray(tnp.clip(x, 300)).tolist() == [50, 100]
        assert np.asarray(x.clip(None, 60)).tolist() == [50, 60]


UNARY = ["tanh", "sinh", "cosh", "arccos", "arcsinh", "arctanh", "expm1", "log", "log1p"]
UNARY += ["abs", "sign", "floor", "ceil", "isfinite", "exp", "negative"]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "complex64", "bfloat16"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_numpy(name: str, dtype: str) -> None:
    base = np.array([-0.75, -0.25, 0.0, 0.5, 0.9, np.inf, -np.inf, np.nan])
    if dtype == "int32":
        base = np.array([-3, -1, 0, 1, 2])
    host = base.astype(tnp.dtype(dtype))
    if dtype == "complex64":
        host = (base[:5] + 0.5j * base[:5][::-1]).astype(np.complex64)
    fn = getattr(tnp, name)
    try:
        traced = make_jaxpr(fn)(host).out_avals[0]
    except TypeError as e:  # e.g. floor of complex numbers, refused as JAX refuses it
        with pytest.raises(TypeError, match=str(e).split(".")[0]):
            fn(tl.device_put(host))
        return
    got = fn(tl.device_put(host))
    assert (got.dtype, got.shape, got.aval.weak_type) == (
        traced.dtype,
        traced.shape,
        traced.weak_type,
    )
    np_dt = np.float32 if dtype == "bfloat16" else None
    ref_in = host.astype(np_dt) if np_dt else host
    with np.errstate(all="ignore"):
        want = getattr(np, name)(ref_in)
    if name == "sign" and dtype == "complex64":
        want = ref_in / np.where(ref_in == 0, 1, np.abs(ref_in))  # NumPy 2's sign(z) = z / |z|
    rtol = {"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 2e-6)
    np.testing.assert_allclose(
        np.asarray(got).astype(want.dtype), want, rtol=rtol, atol=rtol, equal_nan=True
    )


def test_eager_matmul_fast_path_matches_numpy() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal((3, 2)).astype(np.float32)
    v = rng.standard_normal(3).astype(np.float32)
    x, y, w = (tl.device_put(t) for t in (a, b, v))
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(x @ y), a @ b, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(tnp.matmul(x, w)), a @ v, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(w @ y), v @ b, rtol=1e-5)
        got = tnp.matmul(x, y, preferred_element_type=np.float16)
        assert got.dtype == np.float16
    assert set(_products._FAST_MATMUL) == {None}
    with pytest.raises(TypeError):
        x @ x
    assert tnp.matmul(x, y).dtype == np.float32


_F = np.array([[1.5, -np.inf, 0.25], [np.nan, 3.0, np.inf]], np.float32)
_G = np.array([[0.5, 2.0, -1.0], [4.0, -0.5, 1.5]], np.float32)
_I = np.array([[3, 0, -2], [0, 7, 1]], np.int32)
_C = (_G + 1j * _G[::-1]).astype(np.complex64)

# name -> (tessela call, NumPy call, operands): functions JAX compiles as a
# whole, which run eagerly as one program per signature.
COMPILED_CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "dot": (lambda a, b: tnp.dot(a, b.T), lambda a, b: np.dot(a, b.T), (_G, _G)),
    "dot_int": (lambda a, b: tnp.dot(a, b.T), lambda a, b: np.dot(a, b.T), (_I, _I)),
    "vdot": (tnp.vdot, np.vdot, (_C, _C)),
    "inner": (tnp.inner, np.inner, (_G, _G)),
    "outer": (tnp.outer, np.outer, (_G, _I)),
    "nan_to_num": (
        tnp.nan_to_num,
        lambda a: np.nan_to_num(a, posinf=np.finfo(a.dtype).max, neginf=np.finfo(a.dtype).min),
        (_F,),
    ),
    "nan_to_num_int": (tnp.nan_to_num, np.nan_to_num, (_I,)),
    "count_nonzero": (tnp.count_nonzero, np.count_nonzero, (_I,)),
    "count_nonzero_axis": (
        lambda a: tnp.count_nonzero(a, axis=(0, 1), keepdims=True),
        lambda a: np.count_nonzero(a, axis=(0, 1), keepdims=True),
        (_G,),
    ),
    "diff": (tnp.diff, np.diff, (_G,)),
    "diff_n2_axis0": (
        lambda a: tnp.diff(a, 2, 0),
        lambda a: np.diff(a, 2, 0),
        (np.concatenate([_I, _I]),),
    ),
    "diff_bool": (tnp.diff, np.diff, (_I > 0,)),
    "ravel": (tnp.ravel, np.ravel, (_I,)),
    "ravel_f": (lambda a: tnp.ravel(a, "F"), lambda a: np.ravel(a, "F"), (_G,)),
    "norm": (tnp.linalg.norm, np.linalg.norm, (_G,)),
    "norm_fro_axis": (
        lambda a: tnp.linalg.norm(a, "fro", (0, 1)),
        lambda a: np.linalg.norm(a, "fro", (0, 1)),
        (_G,),
    ),
    "norm_1": (
        lambda a: tnp.linalg.norm(a, 1, 1, True),
        lambda a: np.linalg.norm(a, 1, 1, True),
        (_G,),
    ),
    "round": (tnp.round, np.round, (_G * 3.3,)),
    "round_1": (lambda a: tnp.round(a, 1), lambda a: np.round(a, 1), (_G * 3.3,)),
    "cumsum": (tnp.cumsum, np.cumsum, (_I,)),
    "cumsum_axis_dtype": (
        lambda a: tnp.cumsum(a, 0, np.dtype("float32")),
        lambda a: np.cumsum(a, 0, np.float32),
        (_I,),
    ),
    "cumprod": (lambda a: tnp.cumprod(a, 1), lambda a: np.cumprod(a, 1), (_G,)),
    "logaddexp": (
        tnp.logaddexp,
        np.logaddexp,
        (np.array([0.0, -np.inf, np.inf, 3.0, np.nan], np.float32),) * 2,
    ),
    "logaddexp_mixed": (
        tnp.logaddexp,
        np.logaddexp,
        (_G, _G[::-1].copy()),
    ),
}


@pytest.mark.parametrize("case", sorted(COMPILED_CASES))
def test_compiled_eager_functions_match_numpy_and_the_traced_path(case: str) -> None:
    fn, np_fn, hosts = COMPILED_CASES[case]
    arrays = tuple(tl.device_put(h) for h in hosts)
    traced = make_jaxpr(fn)(*hosts).out_avals[0]
    before = str(make_jaxpr(fn)(*hosts))
    with np.errstate(all="ignore"):
        want = np.asarray(np_fn(*hosts))
    for _ in range(2):  # the first call makes the program, the second finds it
        got = fn(*arrays)
        assert (got.shape, got.dtype, got.aval.weak_type) == (
            traced.shape,
            traced.dtype,
            traced.weak_type,
        )
        np.testing.assert_allclose(
            np.asarray(got).astype(want.dtype), want, rtol=2e-6, atol=1e-6, equal_nan=True
        )
    assert str(make_jaxpr(fn)(*hosts)) == before


def test_compiled_static_arguments_key_by_type() -> None:
    x = tl.device_put(_G)
    tnp.round(x, 1)
    tnp.diff(x, 1)
    with pytest.raises(TypeError):
        tnp.round(x, 1.0)  # not an integer: JAX raises too
    with pytest.raises(TypeError):
        tnp.diff(x, 1.0)
    # -0.0 == 0.0: a float is never a key, so each value computes its own result.
    assert np.signbit(np.asarray(tnp.nan_to_num(tl.device_put(_F), nan=-0.0))[1, 0])
    assert not np.signbit(np.asarray(tnp.nan_to_num(tl.device_put(_F), nan=0.0))[1, 0])
    # A NumPy operand, a list or a tracer takes the function's own path.
    np.testing.assert_array_equal(np.asarray(tnp.outer(_G, _I)), np.outer(_G, _I))
    with pytest.raises(TypeError, match="outer requires ndarray or scalar arguments"):
        tnp.outer([1.0], x)
    np.testing.assert_allclose(
        np.asarray(jit(lambda a: tnp.diff(tnp.outer(a, a)))(x)),
        np.diff(np.outer(_G, _G)),
        rtol=1e-6,
    )


EAGER_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    **FUNCTIONS,
    "sum_all": lambda a, b: tnp.sum(a),
    "max_keepdims": lambda a, b: a.max(axis=0, keepdims=True),
    "std_ddof": lambda a, b: tnp.std(a, ddof=1),
    "clip_min": lambda a, b: tnp.clip(a, 0.2),
    "outer": lambda a, b: tnp.outer(a, b),
    "nan_to_num": lambda a, b: tnp.nan_to_num(a),
    "diff": lambda a, b: tnp.diff(a),
    "dot": lambda a, b: tnp.dot(a, b),
    "count_nonzero": lambda a, b: tnp.count_nonzero(a),
    "cumsum": lambda a, b: tnp.cumsum(a),
    "norm": lambda a, b: tnp.linalg.norm(a),
    "round": lambda a, b: tnp.round(a, 1),
    "ravel": lambda a, b: a.ravel(),
    "logaddexp": lambda a, b: tnp.logaddexp(a, b),
}


@pytest.mark.parametrize("flag", ["jax_disable_jit", "jax_debug_nans"])
def test_program_bodies_run_step_by_step_without_jit(flag: str) -> None:
    # Without jit (or when debug_nans reruns a program as Python), a program's
    # body calls the public functions again: they must compute, not call
    # their program again (which recursed without end for sum and mean).
    host = np.linspace(-1, 2, 9, dtype=np.float32).reshape(3, 3)
    x = tl.device_put(host)
    want = {name: np.asarray(f(x, x)) for name, f in EAGER_CALLS.items()}
    before = config.read(flag)
    config.update(flag, True)
    try:
        for name, f in EAGER_CALLS.items():
            np.testing.assert_allclose(np.asarray(f(x, x)), want[name], rtol=1e-6, err_msg=name)
        if flag == "jax_debug_nans":
            with pytest.raises(FloatingPointError):
                tnp.sum(tnp.log(x))
    finally:
        config.update(flag, before)


HOST_OPERANDS = st.sampled_from(
    ["f32", "i8", "u8", "bool", "f64", "int", "float", "true", "complex"]
)


def _host_operand(kind: str) -> Any:
    values = {
        "f32": np.array([1.5, -2.0], np.float32),
        "i8": np.array([3, -4], np.int8),
        "u8": np.array([5, 6], np.uint8),
        "bool": np.array([True, False]),
        "f64": np.array([0.25, 4.0]),
        "int": 3,
        "float": 0.5,
        "true": True,
        "complex": 1 + 2j,
    }
    return values[kind]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(["add", "subtract", "multiply", "maximum", "power", "true_divide"]),
       HOST_OPERANDS, HOST_OPERANDS)  # fmt: skip
def test_binary_functions_of_host_operands_match_the_traced_path(
    name: str, kind1: str, kind2: str
) -> None:
    # NumPy values and Python scalars go straight to the function's compiled
    # program outside traces: the same dtype, weak type and values as traced.
    fn: Callable[..., Any] = getattr(tnp, name)
    x1, x2 = _host_operand(kind1), _host_operand(kind2)
    eager = fn(x1, x2)
    traced = jit(lambda a, b: fn(a, b))(x1, x2)
    assert eager.aval == traced.aval
    np.testing.assert_allclose(np.asarray(eager), np.asarray(traced), rtol=1e-6)
