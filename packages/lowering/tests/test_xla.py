"""The jaxlib adapter: host/device transfers, compiling and running StableHLO."""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering import _hlo, _xla
from tessela_lowering._xla import stablehlo

DTYPES = [
    np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
    )
]


class _Aval:
    def __init__(self, shape: tuple[int, ...], dtype: np.dtype[object]) -> None:
        self.shape = shape
        self.dtype = dtype
        self.weak_type = False
        self.ndim = len(shape)


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).reshape(-1).view(np.uint8)


def _values(dtype: np.dtype[object], shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.integers(-3, 4, size=shape)
    if dtype == np.bool_:
        return raw > 0
    if dtype.kind == "u":
        return np.abs(raw).astype(dtype)
    if dtype.kind == "c":
        return (raw + 1j * rng.integers(-3, 4, size=shape)).astype(dtype)
    return raw.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), seed=st.integers(0, 9))
def test_device_put_round_trip(dtype: np.dtype[object], shape: tuple[int, ...], seed: int) -> None:
    x = _values(dtype, shape, seed)
    device = tl.devices()[0]
    buf = _xla.device_put(x, device)
    y = _xla.to_numpy(buf)
    assert y.dtype == dtype
    assert y.shape == x.shape
    np.testing.assert_array_equal(_bits(y), _bits(x))
    assert _xla.buffer_device(buf) == device


def test_device_put_strided_and_scalar() -> None:
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    strided = base[::2, 1::2]
    np.testing.assert_array_equal(_xla.to_numpy(_xla.device_put(strided, tl.devices()[0])), strided)
    scalar = _xla.to_numpy(_xla.device_put(np.float64(2.5), tl.devices()[0]))
    assert scalar.shape == () and scalar.dtype == np.float64 and scalar == 2.5
    bf = np.array([1.5, -2.25], dtype=ml_dtypes.bfloat16)[::-1]
    np.testing.assert_array_equal(_xla.to_numpy(_xla.device_put(bf, tl.devices()[0])), bf)


def _add_executable(dtype: np.dtype[object], shape: tuple[int, ...]) -> _xla.Executable:
    text = _hlo.build_module(
        [_hlo.ArgSpec(shape, dtype), _hlo.ArgSpec(shape, dtype)],
        [(shape, dtype)],
        lambda _m, xs: [stablehlo.AddOp(xs[0], xs[1]).result],
        name="add",
    )
    return _xla.compile_module(text, [tl.devices()[0]])


_ADD = {d: _add_executable(np.dtype(d), (2, 3)) for d in (np.float32, np.int32, np.complex64)}


@pytest.mark.parametrize("dtype", sorted(_ADD, key=str), ids=str)
@given(seed=st.integers(0, 1000))
def test_compile_and_run_add(dtype: type, seed: int) -> None:
    dt = np.dtype(dtype)
    x, y = _values(dt, (2, 3), seed), _values(dt, (2, 3), seed + 1)
    device = tl.devices()[0]
    (out,) = _xla.execute(
        _ADD[dtype],
        [_xla.device_put(x, device), _xla.device_put(y, device)],
        [_xla.result_handler(_Aval((2, 3), dt), device)],
    )
    np.testing.assert_array_equal(_xla.to_numpy(out), x + y)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_constants_of_every_dtype(dtype: np.dtype[object]) -> None:
    value = _values(dtype, (2, 3), 7)
    text = _hlo.build_module([], [((2, 3), dtype)], lambda _m, _: [_hlo.constant(value)])
    device = tl.devices()[0]
    exe = _xla.compile_module(text, [device])
    (out,) = _xla.execute(exe, [], [_xla.result_handler(_Aval((2, 3), dtype), device)])
    np.testing.assert_array_equal(_bits(_xla.to_numpy(out)), _bits(value))


def test_broadcast_and_convert_helpers() -> None:
    def body(_m: object, xs: list[_hlo.Value]) -> list[_hlo.Value]:
        wide = _hlo.broadcast_in_dim(xs[0], (2, 3), (1,))
        return [_hlo.convert(wide, np.int32)]

    text = _hlo.build_module([_hlo.ArgSpec((3,), np.float32)], [((2, 3), np.int32)], body)
    device = tl.devices()[0]
    exe = _xla.compile_module(text, [device])
    x = np.array([1.7, -2.2, 3.0], np.float32)
    (out,) = _xla.execute(
        exe,
        [_xla.device_put(x, device)],
        [_xla.result_handler(_Aval((2, 3), np.dtype(np.int32)), device)],
    )
    np.testing.assert_array_equal(_xla.to_numpy(out), np.broadcast_to(x.astype(np.int32), (2, 3)))


@pytest.mark.parametrize("how", ["alias", "donor"])
def test_donation_deletes_the_input(how: str) -> None:
    shape, dt = (4,), np.dtype(np.float32)
    arg = (
        _hlo.ArgSpec(shape, dt, alias_output=0)
        if how == "alias"
        else _hlo.ArgSpec(shape, dt, donor=True)
    )
    text = _hlo.build_module(
        [arg, _hlo.ArgSpec(shape, dt)],
        [(shape, dt)],
        lambda _m, xs: [stablehlo.MulOp(xs[0], xs[1]).result],
    )
    assert ("tf.aliasing_output = 0" in text) == (how == "alias")
    assert ("jax.buffer_donor = true" in text) == (how == "donor")
    device = tl.devices()[0]
    exe = _xla.compile_module(text, [device])
    a = _xla.device_put(np.full(4, 3.0, np.float32), device)
    b = _xla.device_put(np.arange(4, dtype=np.float32), device)
    (out,) = _xla.execute(exe, [a, b], [_xla.result_handler(_Aval(shape, dt), device)])
    np.testing.assert_array_equal(_xla.to_numpy(out), [0.0, 3.0, 6.0, 9.0])
    assert a.is_deleted()
    assert not b.is_deleted()


def test_cost_analysis_and_hlo_text() -> None:
    exe = _ADD[np.float32]
    cost = _xla.cost_analysis(exe)
    assert cost.get("flops", 0.0) >= 6.0
    assert "add" in _xla.hlo_text(exe)
    stats = _xla.memory_analysis(exe)
    assert stats.argument_size_in_bytes == 2 * 6 * 4


def test_unsupported_dtype_names_the_fix() -> None:
    with pytest.raises(TypeError, match="not supported on XLA devices"):
        _hlo.build_module([_hlo.ArgSpec((2,), np.dtype("U3"))], [], lambda _m, xs: [])


def test_plugin_libraries_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.setenv("PJRT_NAMES_AND_LIBRARY_PATHS", "fancy:/opt/fancy/pjrt.so,other:/x.so")
    found = _xla.plugin_libraries()
    assert found["fancy"] == "/opt/fancy/pjrt.so"
    assert found["other"] == "/x.so"


def test_unknown_plugin_platform_raises() -> None:
    with pytest.raises(RuntimeError, match="no PJRT plugin"):
        _xla.make_client("nonexistent_platform")


def test_jaxlib_version_is_supported() -> None:
    assert (0, 10, 2) <= _xla.JAXLIB_VERSION < (0, 12)


def test_dialects_are_imported_by_the_first_lowering() -> None:
    # ``import tessela_lowering`` leaves jaxlib's dialect modules unimported;
    # the first lowering imports them, and ops of both dialects lower.
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import tessela_lowering as tl\n"
        "from tessela_tracer import lax\n"
        "names = ['jaxlib.mlir.dialects.' + d for d in ('stablehlo', 'chlo', 'func', 'sdy')]\n"
        "print([n for n in names if n in sys.modules])\n"
        "f = tl.jit(lambda x: lax.add(lax.asin(x), x))\n"
        "print(f(np.float32(0.5)).item(), [n for n in names[:3] if n not in sys.modules])\n"
        "print(tl._xla.stablehlo.AddOp is sys.modules[names[0]].AddOp)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "[]"
    value, missing = out[1].split(" ", 1)
    assert abs(float(value) - (np.arcsin(0.5) + 0.5)) < 1e-6 and missing == "[]"
    assert out[2] == "True"
