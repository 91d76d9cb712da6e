"""Host callbacks eagerly and inside compiled programs."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import (
    ShapeDtypeStruct,
    debug_callback,
    debug_print,
    io_callback,
    lax,
    pure_callback,
)

F32_3 = ShapeDtypeStruct((3,), np.float32)


def _x() -> tl.Array:
    return tl.device_put(np.arange(3, dtype=np.float32))


def test_eager_debug_print_prints_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    debug_print("x = {x}", x=_x())
    assert capsys.readouterr().out == "x = [0. 1. 2.]\n"


def test_eager_callbacks_receive_arrays_and_return_arrays() -> None:
    seen: list[Any] = []
    debug_callback(lambda a, b: seen.append((type(a), type(b))), _x(), np.float32(2.0))
    assert seen == [(tl.Array, tl.Array)]
    out = pure_callback(lambda a: np.asarray(a) * 2, F32_3, _x())
    assert isinstance(out, tl.Array)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])


def test_jit_prints_on_every_call_and_traces_once(capsys: pytest.CaptureFixture[str]) -> None:
    traces: list[int] = []

    @tl.jit
    def f(x: Any) -> Any:
        traces.append(1)
        debug_print("x = {x}", x=x)
        return lax.mul(x, 2.0)

    np.testing.assert_array_equal(np.asarray(f(_x())), [0.0, 2.0, 4.0])
    f(_x())
    assert len(traces) == 1
    assert capsys.readouterr().out == "x = [0. 1. 2.]\n" * 2


def test_debug_print_without_operands_under_jit(capsys: pytest.CaptureFixture[str]) -> None:
    tl.jit(lambda x: (debug_print("hello"), x)[1])(_x())
    assert capsys.readouterr().out == "hello\n"


def test_unused_effectful_callbacks_run_under_jit() -> None:
    calls: list[str] = []

    def f(x: Any) -> Any:
        debug_callback(lambda v: calls.append("debug"), x)
        io_callback(lambda v: (calls.append("io"), v)[1], F32_3, x)  # result unused
        return lax.neg(x)

    tl.jit(f)(_x())
    assert sorted(calls) == ["debug", "io"]


def test_lowered_module_calls_the_cpu_handler() -> None:
    def f(x: Any) -> Any:
        debug_print("{}", x)
        return pure_callback(np.sin, F32_3, x)

    text = tl.jit(f).lower(_x()).as_text()
    assert text.count("@xla_ffi_python_cpu_callback") == 2
    assert text.count("has_side_effect = true") == 1
    assert "index = 0 : ui64" in text and "index = 1 : ui64" in text


def test_callbacks_run_every_iteration_of_control_flow(capsys: pytest.CaptureFixture[str]) -> None:
    def body(c: Any, x: Any) -> Any:
        debug_print("scan {}", x)
        return lax.add(c, x), x

    def f(x: Any) -> Any:
        lax.scan(body, np.float32(0.0), x)
        lax.fori_loop(0, 2, lambda i, c: (debug_print("loop {}", i), c)[1], x)
        lax.cond(lax.gt(lax.reduce_sum(x, (0,)), 0.0),
                 lambda v: debug_print("big {}", v), lambda v: debug_print("small {}", v), x)  # fmt: skip
        return x

    tl.jit(f)(_x())
    out = capsys.readouterr().out.splitlines()
    assert sorted(out) == sorted(
        ["scan 0.0", "scan 1.0", "scan 2.0", "loop 0", "loop 1", "big [0. 1. 2.]"]
    )
    assert [line for line in out if line.startswith("scan")] == ["scan 0.0", "scan 1.0", "scan 2.0"]


def test_callback_errors_surface_from_the_call() -> None:
    def boom(x: Any) -> None:
        raise ValueError("boom from the callback")

    with pytest.raises(Exception, match="boom from the callback"):
        tl.jit(lambda x: (debug_callback(boom, x), x)[1])(_x())
    bad = ShapeDtypeStruct((2,), np.float32)
    with pytest.raises(Exception, match="Incorrect output shape for return value #0"):
        tl.jit(lambda x: pure_callback(lambda a: np.asarray(a), bad, x))(_x())


def test_ordered_callbacks_run_under_jit(capsys: pytest.CaptureFixture[str]) -> None:
    tl.jit(lambda x: (debug_print("{}", x, ordered=True), x)[1])(_x())
    assert capsys.readouterr().out == "[0. 1. 2.]\n"
    out = tl.jit(lambda x: io_callback(lambda a: a, F32_3, x, ordered=True))(_x())
    np.testing.assert_array_equal(np.asarray(out), np.arange(3, dtype=np.float32))


def test_callback_arguments_are_arrays_under_jit() -> None:
    kinds: list[type] = []
    tl.jit(lambda x: (debug_callback(lambda a: kinds.append(type(a)), x), x)[1])(_x())
    assert kinds == [tl.Array]


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.lists(st.floats(-50, 50, width=32), min_size=1, max_size=5))
def test_jit_pure_callback_matches_numpy(values: list[float]) -> None:
    x = np.asarray(values, np.float32)
    spec = ShapeDtypeStruct(x.shape, np.float32)

    def f(v: Any) -> Any:
        y = pure_callback(lambda a: np.exp(np.asarray(a) / 10).astype(np.float32), spec, v)
        return lax.add(y, 1.0)

    np.testing.assert_allclose(np.asarray(tl.jit(f)(x)), np.exp(x / 10) + 1, rtol=1e-6)


def test_effects_barrier_returns() -> None:
    assert tl.effects_barrier() is None


def test_persistent_cache_skips_programs_with_callbacks(
    flag: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    flag("jax_compilation_cache_dir", str(tmp_path))
    flag("jax_persistent_cache_min_compile_time_secs", 0)
    for _ in range(2):  # two jit objects of fresh lambdas: compiled twice, never cached
        tl.jit(lambda x: (debug_print("cached? {}", x), lax.neg(x))[1])(_x())
    assert os.listdir(tmp_path) == []
    assert capsys.readouterr().out == "cached? [0. 1. 2.]\n" * 2


def test_aot_compiled_program_calls_back(capsys: pytest.CaptureFixture[str]) -> None:
    compiled = tl.jit(lambda x: (debug_print("aot {}", x), x)[1]).lower(_x()).compile()
    assert capsys.readouterr().out == ""  # lowering and compiling run nothing
    compiled(_x())
    compiled(_x())
    assert capsys.readouterr().out == "aot [0. 1. 2.]\n" * 2
