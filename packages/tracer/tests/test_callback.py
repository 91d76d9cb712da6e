"""Callback primitives in the tracer: jaxpr text, effects, eager calls, argument checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree import tree_flatten
from tessela_tracer import (
    ShapedArray,
    ShapeDtypeStruct,
    debug_callback,
    debug_print,
    io_callback,
    lax,
    make_jaxpr,
    pure_callback,
)
from tessela_tracer.extend import (
    FlatCallback,
    call_host_callback,
    eqn_effects,
    has_effects,
    jaxpr_effects,
)

F32 = ShapeDtypeStruct((3,), np.float32)


def _all_effects(closed: Any) -> list[str]:
    return sorted(str(e) for e in jaxpr_effects(closed))


def test_debug_print_jaxpr_params_match_jax() -> None:
    # JAX 0.10.2 prints this equation (np_printoptions elided here).
    text = str(make_jaxpr(lambda x: debug_print("x = {x}", x=x))(np.ones(3, np.float32)))
    assert text.startswith("{ lambda ; a:f32[3]. let\n    debug_print[\n      fmt=x = {x}\n")
    assert "      has_placeholders=True\n      in_tree=PyTreeDef(((), {'x': *}))\n" in text
    assert "      logging_record=None\n" in text
    assert "      ordered=False\n      partitioned=False\n      static_args=()\n    ] a\n" in text
    assert text.endswith("  in () }")


def test_callback_params_print_like_jax() -> None:
    def f(x: Any) -> Any:
        debug_callback(print, x)
        y = pure_callback(np.sin, F32, x)
        return io_callback(lambda a: a, F32, y, ordered=True)

    text = str(make_jaxpr(f)(np.ones(3, np.float32)))
    assert (
        "debug_callback[\n      callback=_FlatCallback(callback_func=<built-in function print>"
        in text
    )
    assert "      effect=Debug\n      partitioned=False\n    ] a" in text
    assert "      result_avals=(ShapedArray(float32[3]),)\n      sharding=None\n" in text
    assert "      vmap_method=None\n    ] a" in text
    assert "      ordered=True\n      result_avals=" in text


def test_effects_of_each_callback() -> None:
    def f(x: Any) -> Any:
        debug_print("{}", x)
        debug_callback(print, x, ordered=True)
        y = pure_callback(np.sin, F32, x)
        return io_callback(np.cos, F32, y)

    eqns = make_jaxpr(f)(np.ones(3, np.float32)).eqns
    assert [sorted(map(str, eqn_effects(e))) for e in eqns] == [
        ["Debug"],
        ["OrderedDebug"],
        [],
        ["IO"],
    ]
    assert [has_effects(e) for e in eqns] == [True, True, False, True]


def test_effects_reach_enclosing_control_flow() -> None:
    def body(c: Any, x: Any) -> Any:
        debug_print("x {}", x)
        return c, x

    def f(x: Any) -> Any:
        lax.cond(lax.gt(lax.reduce_sum(x, (0,)), 0.0), lambda v: debug_print("pos {}", v),
                 lambda v: None, x)  # fmt: skip
        return lax.scan(body, np.float32(0.0), x)[1]

    closed = make_jaxpr(f)(np.ones(3, np.float32))
    conds = [e for e in closed.eqns if e.primitive.name in ("cond", "scan")]
    assert len(conds) == 2 and all(has_effects(e) for e in conds)
    assert _all_effects(closed) == ["Debug"]
    assert _all_effects(make_jaxpr(lambda x: lax.sin(x))(1.0)) == []


def test_eager_debug_print_formats_like_str_format(capsys: pytest.CaptureFixture[str]) -> None:
    debug_print("a={} b={b} s={}", np.arange(3), "text", b=np.float32(1.5))
    debug_print(ordered=True)("two-call {}", 7)
    assert capsys.readouterr().out == "a=[0 1 2] b=1.5 s=text\ntwo-call 7\n"


def test_eager_debug_print_honours_numpy_printoptions(capsys: pytest.CaptureFixture[str]) -> None:
    with np.printoptions(precision=2):
        debug_print("{}", np.array([1 / 3], np.float32))
    assert capsys.readouterr().out == "[0.33]\n"


def test_debug_print_format_errors() -> None:
    with pytest.raises(ValueError, match="Unused positional arguments"):
        debug_print("no placeholders", 1)
    with pytest.raises(ValueError, match="f-string"):
        debug_print("{x}", x=1, y=2)
    with pytest.raises(TypeError, match="two-call form"):
        debug_print(ordered=True, x=1)


def test_debug_callback_gets_pytrees_and_static_leaves() -> None:
    seen: list[Any] = []
    debug_callback(lambda d, tag: seen.append((sorted(d), tag)), {"a": 1.0, "b": 2.0}, "tag")
    assert seen == [(["a", "b"], "tag")]
    with pytest.raises(TypeError, match="must be callable"):
        debug_callback(3, 1.0)  # type: ignore[arg-type]


def test_retracing_gives_equal_callback_params() -> None:
    def f(x: Any) -> Any:
        return pure_callback(np.sin, F32, x)

    x = np.ones(3, np.float32)
    a, b = make_jaxpr(f)(x).eqns[0].params, make_jaxpr(f)(x).eqns[0].params
    assert a["callback"] == b["callback"] and hash(a["callback"]) == hash(b["callback"])
    c = make_jaxpr(lambda x: pure_callback(np.cos, F32, x))(x).eqns[0].params
    assert c["callback"] != a["callback"]


def test_pure_callback_argument_checks() -> None:
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
        pure_callback(np.sin, F32, x, vmap_method="vectorized")
    with pytest.raises(ValueError, match="64-bit types"):
        pure_callback(np.sin, ShapeDtypeStruct((3,), np.float64), x)
    with pytest.raises(TypeError, match="ShapeDtypeStruct"):
        io_callback(np.sin, (3,), x)


def test_call_host_callback_checks_results() -> None:
    tree = tree_flatten(((0,), {}))[1]
    aval = [ShapedArray((2,), np.float32)]
    with pytest.raises(RuntimeError, match="Incorrect output shape for return value #0"):
        call_host_callback(FlatCallback(lambda x: np.zeros(3, np.float32), tree), [0], aval)
    with pytest.raises(RuntimeError, match="Incorrect output dtype for return value #0"):
        call_host_callback(FlatCallback(lambda x: np.zeros(2, np.int32), tree), [0], aval)
    with pytest.raises(RuntimeError, match="Expected: 1, Actual: 2"):
        call_host_callback(FlatCallback(lambda x: (x, x), tree), [0], aval)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.floats(-1e3, 1e3, width=32), min_size=1, max_size=6))
def test_eager_pure_callback_matches_numpy(values: list[float]) -> None:
    x = np.asarray(values, np.float32)
    spec = ShapeDtypeStruct(x.shape, np.float32)
    out = pure_callback(lambda a: np.tanh(np.asarray(a)), spec, x)
    np.testing.assert_allclose(np.asarray(out), np.tanh(x), rtol=1e-6)
