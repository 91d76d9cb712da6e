"""jit: compile cache, static arguments, nesting, AOT stages, donation and flags."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import warnings
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering import _xla
from tessela_tracer import ShapeDtypeStruct, config, eval_jaxpr, lax, make_jaxpr


def _counting(fn: Any) -> tuple[Any, list[int]]:
    count = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return fn(*args, **kwargs)

    wrapped.__name__ = getattr(fn, "__name__", "f")
    return wrapped, count


def test_traces_once_per_signature() -> None:
    f, count = _counting(lambda x, y: lax.add(lax.mul(x, 2.0), y))
    jf = tl.jit(f)
    x = tl.device_put(np.arange(3, dtype=np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(jf(x, x)), [0, 3, 6])
    assert count[0] == 1
    jf(np.ones(3, np.float32), np.ones(3, np.float32))  # NumPy inputs: same avals
    assert count[0] == 1
    jf(x, 1.0)  # a weakly typed scalar is a new signature
    jf(x, np.float32(1.0))  # a strongly typed one is another
    assert count[0] == 3
    jf(np.ones(4, np.float32), np.ones(4, np.float32))
    assert count[0] == 4
    out = jf([x][0], y=x)  # keyword arguments: a new tree structure
    assert count[0] == 5 and out.shape == (3,)


def test_weak_types_flow_through_jit() -> None:
    out = tl.jit(lambda x: lax.mul(x, 2.0))(3.0)
    assert out.weak_type and out.dtype == np.float32
    assert repr(out) == "Array(6., dtype=float32, weak_type=True)"


def test_pytrees_in_and_out() -> None:
    @tl.jit
    def f(tree: dict[str, Any]) -> tuple[Any, list[Any]]:
        return tree["a"], [lax.add(tree["a"], tree["b"][0]), None]

    a, (s, none) = f({"a": np.float32(1), "b": (np.float32(2),)})
    assert float(a) == 1 and float(s) == 3 and none is None


def test_static_argnums_and_argnames() -> None:
    f, count = _counting(lambda x, n: lax.mul(x, float(n)))
    jf = tl.jit(f, static_argnums=1)
    assert float(jf(2.0, 3)) == 6.0 and float(jf(2.0, 3)) == 6.0 and count[0] == 1
    assert float(jf(2.0, 4)) == 8.0 and count[0] == 2
    named = tl.jit(lambda x, n: lax.mul(x, float(n)), static_argnums=1)
    assert float(named(2.0, n=4)) == 8.0  # the name is inferred from the signature

    def g(x: Any, *, scale: float) -> Any:
        return lax.mul(x, scale)

    jg = tl.jit(g, static_argnames="scale")
    assert float(jg(2.0, scale=1.5)) == 3.0
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        jf(2.0, np.arange(3))


def test_shape_dependent_code_needs_static() -> None:
    def f(x: Any, n: int) -> Any:
        return lax.reshape(x, (n, 3))

    jf = tl.jit(f, static_argnums=1)
    assert jf(np.arange(6, dtype=np.float32), 2).shape == (2, 3)
    with pytest.raises(TypeError, match=r"static_argnums|concrete"):
        tl.jit(f)(np.arange(6, dtype=np.float32), 2)


def test_nested_jit_lowers_as_a_call_and_inline_does_not() -> None:
    inner = tl.jit(lambda v: lax.sin(v))
    outer = tl.jit(lambda v: lax.mul(inner(v), 2.0))
    x = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(outer(x)), 2 * np.sin(x), rtol=1e-6)
    text = outer.lower(x).as_text()
    assert "call @" in text and "func.func private" in text
    inlined = tl.jit(lambda v: lax.mul(tl.jit(lax.sin, inline=True)(v), 2.0))
    assert "call @" not in inlined.lower(x).as_text()
    assert "name=<lambda>" in str(make_jaxpr(outer)(x))


def test_aot_stages() -> None:
    f = tl.jit(lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))))
    spec = ShapeDtypeStruct((8, 8), np.float32)
    traced = f.trace(spec, spec)
    assert traced.out_info.shape == (8, 8)
    assert "dot_general" in str(traced.jaxpr)
    lowered = traced.lower()
    assert "stablehlo.dot_general" in lowered.as_text()
    assert "stablehlo.dot_general" in str(lowered.compiler_ir())
    hlo = lowered.compiler_ir(dialect="hlo").as_hlo_text()
    assert hlo.startswith("HloModule") and " dot(" in hlo and "ENTRY" in hlo
    with pytest.raises(ValueError, match='use "stablehlo" or "hlo"'):
        lowered.compiler_ir(dialect="mhlo")
    assert lowered.cost_analysis()["flops"] >= 2 * 8**3 - 64
    compiled = lowered.compile()
    x = np.eye(8, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(compiled(x, x)), x)
    assert compiled.memory_analysis().argument_size_in_bytes == 2 * 8 * 8 * 4
    assert "dot" in compiled.as_text()
    assert compiled.cost_analysis()["flops"] > 0
    with pytest.raises(TypeError, match="Argument types differ"):
        compiled(np.eye(4, dtype=np.float32), x)
    assert f.eval_shape(spec, spec).shape == (8, 8)


def test_keep_unused() -> None:
    f = tl.jit(lambda x, y: lax.neg(x))
    x = np.ones(3, np.float32)
    assert "%arg1" not in f.lower(x, x).as_text()
    g = tl.jit(lambda x, y: lax.neg(x), keep_unused=True)
    assert "%arg1" in g.lower(x, x).as_text()
    np.testing.assert_array_equal(np.asarray(g(x, x)), -x)


def test_closed_over_arrays_are_passed_not_embedded() -> None:
    big = tl.device_put(np.arange(1000, dtype=np.float32))
    f = tl.jit(lambda x: lax.add(x, big))
    text = (
        f.lower(np.float32(1)).as_text() if False else f.lower(np.ones(1000, np.float32)).as_text()
    )
    assert "dense<" not in text.split("func.func public @main")[1].split("\n")[0]
    np.testing.assert_array_equal(np.asarray(f(np.ones(1000, np.float32))), np.arange(1000) + 1)


# ---------------------------------------------------------------- donation


def test_donated_buffers_are_reused_and_deleted() -> None:
    add = tl.jit(lambda x, y: lax.add(x, y), donate_argnums=(1,))
    x = tl.device_put(np.ones((2, 3), np.float32))
    y = tl.device_put(np.ones((2, 3), np.float32))
    assert "tf.aliasing_output = 0" in add.lower(x, y).as_text()
    z = add(x, y)
    np.testing.assert_array_equal(np.asarray(z), 2 * np.ones((2, 3)))
    assert y.is_deleted() and not x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        lax.add(y, 1.0)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        add(x, y)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(y)


def test_using_a_donated_array_says_what_xla_says_and_how_to_fix_it() -> None:
    add = tl.jit(lambda x, y: lax.add(x, y), donate_argnums=(1,))
    x = tl.device_put(np.ones((2, 3), np.float32))
    y = tl.device_put(np.ones((2, 3), np.float32))
    add(x, y)
    for use in (lambda: lax.add(y, 1.0), lambda: np.asarray(y), lambda: add(x, y),
                lambda: str(y), lambda: y.block_until_ready()):  # fmt: skip
        with pytest.raises(RuntimeError) as info:
            use()
        message = str(info.value)
        assert message.startswith(
            "Invalid argument: CopyToHostAsync() called on invalid buffer: "
            "Array has been deleted with shape=float32[2,3]."
        )
        assert "donated" in message and "Use the value the call returned" in message
        assert "don't donate this argument" in message
    assert not x.is_deleted()


def test_unusable_donations_warn() -> None:
    add = tl.jit(lambda x, y: lax.add(x, y), donate_argnums=(0, 1))
    x = tl.device_put(np.ones((2, 3), np.float32))
    y = tl.device_put(np.ones((2, 3), np.float32))
    with pytest.warns(
        UserWarning, match=r"Some donated buffers were not usable: f32\[2,3\]\{1,0\}"
    ):
        add(x, y)
    add2 = tl.jit(lambda x, y: lax.add(x, y), donate_argnums=(1,))
    with pytest.warns(UserWarning, match=r"not usable: f32\[1,3\]\{1,0\}"):
        add2(np.ones((2, 3), np.float32), np.ones((1, 3), np.float32))


def test_pytree_donation_and_keywords_not_donated_by_position() -> None:
    add_ones = tl.jit(lambda xs: [lax.add(x, 1.0) for x in xs], donate_argnums=0)
    xs = [tl.device_put(np.ones(2, np.float32)), tl.device_put(np.zeros(3, np.float32))]
    add_ones(xs)
    assert all(x.is_deleted() for x in xs)
    f = tl.jit(lambda x, y: lax.add(x, y), donate_argnums=(0, 1))
    x = tl.device_put(np.ones(2, np.float32))
    y = tl.device_put(np.ones(2, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(x=x, y=y)
    assert not x.is_deleted() and not y.is_deleted()
    g = tl.jit(lambda x, y: lax.add(x, y), donate_argnames="y")
    g(x, y=y)
    assert y.is_deleted() and not x.is_deleted()


# ---------------------------------------------------------------- flags


def test_disable_jit(flag: Any) -> None:
    seen: list[str] = []
    f = tl.jit(lambda x: seen.append(type(x).__name__) or x)
    flag("jax_disable_jit", True)
    f(np.float32(1))
    flag("tessela_disable_jit", False)
    f(np.float32(1))
    assert seen[0] == "float32" and "Tracer" in seen[1]


def test_debug_nans_names_the_primitive(flag: Any) -> None:
    flag("jax_debug_nans", True)
    f = tl.jit(lambda x: lax.add(lax.div(x, x), 1.0))
    with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in div"):
        f(np.zeros(2, np.float32))
    with pytest.raises(FloatingPointError, match=r"nan\) encountered in div"):
        lax.div(tl.device_put(np.float32(0)), np.float32(0))
    np.testing.assert_array_equal(np.asarray(f(np.ones(2, np.float32))), [2, 2])
    flag("jax_debug_nans", False)
    flag("jax_debug_infs", True)
    with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in div"):
        tl.jit(lambda x: lax.div(1.0, x))(np.zeros(2, np.float32))


def _nan_body(x: Any, y: Any) -> Any:
    a = lax.mul(x, y)
    b = lax.div(lax.add(x, y), lax.sub(x, y))  # the line that makes the NaN
    return lax.add(a, b)


_NAN_LINE = _nan_body.__code__.co_firstlineno + 2
_DEOPT = (
    "Invalid value encountered in the output of a jit function. Calling the de-optimized version."
)


def _raises_at_user_line(call: Any) -> None:
    with pytest.raises(
        FloatingPointError, match=r"^invalid value \(nan\) encountered in div$"
    ) as info:
        call()
    lines = [e.lineno + 1 for e in info.traceback if e.frame.code.raw is _nan_body.__code__]
    assert lines == [_NAN_LINE]
    assert info.value.__context__ is None


def test_debug_nans_reruns_the_python_function_without_jit(flag: Any, capsys: Any) -> None:
    flag("jax_debug_nans", True)
    x = tl.device_put(np.array([2.0, 0.0], np.float32))
    y = tl.device_put(np.array([3.0, 0.0], np.float32))
    calls: list[int] = []

    def f(x: Any, y: Any) -> Any:
        calls.append(1)
        return _nan_body(x, y)

    _raises_at_user_line(lambda: tl.jit(f)(x, y))
    assert capsys.readouterr().out == _DEOPT + "\n"
    assert len(calls) == 2  # traced once, then called again without jit

    # Nested jitted calls check their own outputs: one level of jit at a time,
    # the primitive (not jit) is named.
    inner = tl.jit(_nan_body)
    outer = tl.jit(lambda x, y: lax.add(inner(x, y), 1.0))
    _raises_at_user_line(lambda: outer(x, y))
    assert capsys.readouterr().out == (_DEOPT + "\n") * 2

    # Static arguments and keywords reach the re-run as they were passed.
    g = tl.jit(lambda x, y, *, scale: lax.mul(_nan_body(x, y), scale), static_argnames="scale")
    _raises_at_user_line(lambda: g(x, y=y, scale=2.0))
    assert capsys.readouterr().out == _DEOPT + "\n"

    # No NaN anywhere: nothing printed, the value comes back.
    np.testing.assert_allclose(np.asarray(outer(x, lax.add(y, 1.0))), [6.0, 0.0], rtol=1e-6)
    assert capsys.readouterr().out == ""


def test_debug_nans_when_the_rerun_finds_nothing(flag: Any, capsys: Any) -> None:
    flag("jax_debug_nans", True)
    nan_in = np.array([np.nan], np.float32)
    with pytest.raises(FloatingPointError) as info:
        tl.jit(lambda x: x)(nan_in)
    message = str(info.value)
    assert message.startswith("invalid value (nan) encountered in jit(<lambda>). Because")
    assert "the de-optimized function did not produce invalid values" in message
    assert capsys.readouterr().out == _DEOPT + "\n"
    # Donated arguments are gone after the compiled run: say so instead.
    x = tl.device_put(np.zeros(2, np.float32))
    with pytest.raises(FloatingPointError, match="donated and have been deleted"):
        tl.jit(lambda x: lax.div(x, x), donate_argnums=0)(x)


def test_debug_nans_inside_an_eager_jit_equation_names_the_primitive(flag: Any) -> None:
    inner = tl.jit(_nan_body)
    closed = make_jaxpr(lambda x, y: lax.neg(inner(x, y)))(
        np.ones(2, np.float32), np.ones(2, np.float32)
    )
    assert "jit" in str(closed)
    flag("jax_debug_nans", True)
    x = tl.device_put(np.array([2.0, 0.0], np.float32))
    y = tl.device_put(np.array([3.0, 0.0], np.float32))
    with pytest.raises(FloatingPointError, match=r"^invalid value \(nan\) encountered in div$"):
        eval_jaxpr(closed.jaxpr, closed.consts, x, y)


def test_log_compiles_and_cache_miss_explanations(flag: Any, caplog: Any) -> None:
    flag("jax_log_compiles", True)
    flag("jax_explain_cache_misses", True)
    # Another test's program of the same text would be reused, without a log line.
    tl.clear_caches()
    f = tl.jit(lambda x: lax.neg(x))
    with caplog.at_level(logging.WARNING, logger="tessela_lowering"):
        f(np.ones(2, np.float32))
        f(np.ones(3, np.float32))
    text = caplog.text
    assert "Finished XLA compilation of jit(<lambda>)" in text
    assert "TRACING CACHE MISS" in text and "f32[3] instead of f32[2]" in text


def test_log_compiles_names_eager_primitives_and_eager_jit_equations(
    flag: Any, caplog: Any
) -> None:
    # As JAX, every compilation is logged: an eager primitive's program, and a
    # jit equation evaluated eagerly (a jaxpr holding one, run op by op).
    flag("jax_log_compiles", True)
    inner = tl.jit(lambda x: lax.neg(lax.cos(x)))
    shape = (3, 11)  # a shape no other test compiles sin for
    closed = make_jaxpr(lambda x: lax.sin(inner(x)))(np.ones(shape, np.float32))
    x = tl.device_put(np.ones(shape, np.float32))
    with caplog.at_level(logging.WARNING, logger="tessela_lowering"):
        eval_jaxpr(closed.jaxpr, closed.consts, x)
    text = caplog.text
    assert "Finished XLA compilation of jit(<lambda>) for arguments (f32[3,11])" in text
    assert "Finished XLA compilation of jit(sin) for arguments (f32[3,11])" in text


def test_persistent_compilation_cache(
    flag: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    flag("jax_compilation_cache_dir", str(tmp_path))
    flag("jax_persistent_cache_min_compile_time_secs", 0)
    compiled: list[int] = []
    compile_module = _xla.compile_module
    monkeypatch.setattr(
        _xla, "compile_module", lambda *a, **k: compiled.append(1) or compile_module(*a, **k)
    )
    f = tl.jit(lambda x: lax.mul(x, 7.0))
    np.testing.assert_array_equal(np.asarray(f(np.ones(2, np.float32))), [7, 7])
    files = os.listdir(tmp_path)
    assert len(files) == 1 and len(compiled) == 1
    g = tl.jit(lambda x: lax.mul(x, 7.0))  # same program: loaded from the cache
    np.testing.assert_array_equal(np.asarray(g(np.ones(2, np.float32))), [7, 7])
    assert os.listdir(tmp_path) == files and len(compiled) == 1
    # An eager primitive's program goes through the same cache.
    x = tl.device_put(np.full((3, 13), 0.5, np.float32))  # a shape no other test uses
    want = np.asarray(lax.cos(x))
    assert len(os.listdir(tmp_path)) == 2 and len(compiled) == 2
    tl.clear_caches()
    np.testing.assert_array_equal(np.asarray(lax.cos(x)), want)
    assert len(compiled) == 2


def test_threads_compiling_one_program_share_the_persistent_cache(
    flag: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each thread writes its own temporary file before the atomic replace;
    # with one name per process, one thread's replace removed another's file
    # (FileNotFoundError).
    flag("jax_compilation_cache_dir", str(tmp_path))
    flag("jax_persistent_cache_min_compile_time_secs", 0)
    start = threading.Barrier(8)
    compile_module = _xla.compile_module

    def compile_together(*args: Any, **kwargs: Any) -> Any:
        exe = compile_module(*args, **kwargs)
        start.wait(timeout=30)  # every thread writes the cache file at once
        return exe

    monkeypatch.setattr(_xla, "compile_module", compile_together)
    errors: list[BaseException] = []
    outs: list[Any] = []

    def work() -> None:
        try:
            f = tl.jit(lambda x: lax.mul(x, 11.0))  # a new function object per thread
            outs.append(np.asarray(f(np.ones(3, np.float32))))
        except BaseException as err:  # re-raised below
            errors.append(err)

    tl.clear_caches()
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(outs) == 8 and all(o.tolist() == [11.0] * 3 for o in outs)
    assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []
    assert len(os.listdir(tmp_path)) == 1


def test_persistent_cache_keeps_only_slow_compiles_by_default(flag: Any, tmp_path: Any) -> None:
    env = {k: v for k, v in os.environ.items() if "MIN_COMPILE_TIME" not in k}
    default = subprocess.run(
        [sys.executable, "-c", "import tessela_lowering, tessela_tracer as t; "
         "print(t.config.read('jax_persistent_cache_min_compile_time_secs'))"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert default.strip() == "1.0"  # JAX's default
    flag("jax_persistent_cache_min_compile_time_secs", 1.0)
    flag("jax_compilation_cache_dir", str(tmp_path))
    np.testing.assert_array_equal(
        np.asarray(tl.jit(lambda x: lax.mul(x, 5.0))(np.ones(2, np.float32))), [5, 5]
    )
    assert os.listdir(tmp_path) == []  # compiled in well under a second


def test_min_compile_time_rejects_a_negative_or_non_number() -> None:
    before = config.read("jax_persistent_cache_min_compile_time_secs")
    for bad in (-1, "soon", True):
        with pytest.raises(ValueError, match="jax_persistent_cache_min_compile_time_secs"):
            config.update("jax_persistent_cache_min_compile_time_secs", bad)
    assert config.read("jax_persistent_cache_min_compile_time_secs") == before


@settings(max_examples=10)
@given(x=hnp.arrays(np.float32, (3,), elements=st.floats(-5, 5, width=32)))
def test_jit_matches_eager(x: np.ndarray) -> None:
    def f(v: Any) -> Any:
        return lax.add(lax.tanh(v), lax.mul(v, v))

    # XLA fuses the jitted body (its tanh may differ from the eager one by an
    # ulp), and tanh(v) + v*v cancels near v = -0.8: compare with an atol too.
    np.testing.assert_allclose(
        np.asarray(_JF(x)), np.asarray(f(tl.device_put(x))), rtol=1e-6, atol=1e-7
    )


_JF = tl.jit(lambda v: lax.add(lax.tanh(v), lax.mul(v, v)))


def test_clear_caches_drops_jit_and_eager_executables() -> None:
    traces: list[int] = []

    @tl.jit
    def f(x):
        traces.append(1)
        return lax.mul(x, x)

    x = np.float32(3)
    f(x)
    f(x)
    assert len(traces) == 1
    lax.add(tl.device_put(np.float32(1)), tl.device_put(np.float32(2)))
    assert tl.eager_cache_size() > 0
    tl.clear_caches()
    assert tl.eager_cache_size() == 0
    assert float(f(x)) == 9.0
    assert len(traces) == 2  # traced and compiled again
    f(x)
    assert len(traces) == 2
