"""Tokens (``create_token`` / ``after_all``) and ordered effects in compiled programs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from tessela_tracer import ShapeDtypeStruct, debug_callback, debug_print, io_callback, lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Token, abstract_token, get_aval


def _create_token() -> Any:
    return P.create_token_p.bind()


def _after_all(*tokens: Any) -> Any:
    return P.after_all_p.bind(*tokens)


def test_tokens_pass_through_jit_as_arguments_and_results() -> None:
    f = tl.jit(lambda t, x: (_after_all(t, _create_token()), x * 2))
    tok, y = f(Token(), np.float32(1.5))
    assert get_aval(tok) == abstract_token
    assert float(y) == 3.0
    tok2, _ = f(tok, np.float32(0.0))  # a token a compiled call returned is a token again
    assert get_aval(tok2) == abstract_token
    assert isinstance(_after_all(tok, tok2), Token)


def test_tokens_lower_to_stablehlo_tokens_and_cross_main_as_empty_buffers() -> None:
    text = tl.jit(lambda t: _after_all(t, _create_token())).lower(Token()).as_text()
    assert "stablehlo.create_token" in text
    assert "stablehlo.after_all" in text
    assert "@main(%arg0: tensor<0xi1>) -> tensor<0xi1>" in text


def test_after_all_refuses_arrays() -> None:
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        tl.jit(lambda x: _after_all(x))(np.float32(1.0))


def test_ordered_prints_run_in_program_order(capsys: pytest.CaptureFixture[str]) -> None:
    @tl.jit
    def f(x: Any) -> Any:
        debug_print("a {}", x, ordered=True)
        debug_callback(lambda v: print("cb", v), x * 3, ordered=True)
        debug_print("b {}", x + 1, ordered=True)
        return x * 2

    for _ in range(2):
        assert float(f(np.float32(1.0))) == 2.0
    assert capsys.readouterr().out.splitlines() == ["a 1.0", "cb 3.0", "b 2.0"] * 2
    text = f.lower(np.float32(1.0)).as_text()
    assert text.count("!stablehlo.token") >= 3


def _print_if(pred: Any, msg: str, **kw: Any) -> None:
    lax.cond(pred, lambda _: debug_print(msg, **kw, ordered=True), lambda _: None, None)


def test_ordered_prints_keep_their_order_through_control_flow(
    capsys: pytest.CaptureFixture[str],
) -> None:
    @tl.jit
    def f(x: Any) -> Any:
        def body(c: Any) -> Any:
            i, v = c
            debug_print("it {}", i, ordered=True)
            _print_if(v > 2, "big {v}", v=v)
            return i + 1, v * 2

        _, v = lax.while_loop(lambda c: c[0] < 3, body, (0, x))

        def step(c: Any, xx: Any) -> Any:
            debug_print("scan {}", xx, ordered=True)
            return c + xx, c

        s, _ = lax.scan(step, np.float32(0), np.arange(2, dtype=np.float32))
        inner = tl.jit(lambda y: (debug_print("inner {}", y, ordered=True), y + 1)[1])
        debug_print("end {}", inner(v), ordered=True)
        return s

    assert float(f(np.float32(1.5))) == 1.0
    assert capsys.readouterr().out.splitlines() == [
        "it 0", "it 1", "big 3.0", "it 2", "big 6.0", "scan 0.0", "scan 1.0", "inner 12.0",
        "end 13.0",
    ]  # fmt: skip


def test_ordered_io_callback_returns_its_value_under_jit() -> None:
    seen: list[float] = []

    def log(v: Any) -> Any:
        seen.append(float(v))
        return np.asarray(v) + 1

    spec = ShapeDtypeStruct((), np.float32)
    f = tl.jit(
        lambda x: io_callback(log, spec, io_callback(log, spec, x, ordered=True), ordered=True)
    )
    assert float(f(np.float32(1.0))) == 3.0
    assert seen == [1.0, 2.0]


def test_ordered_effects_in_a_while_predicate_are_refused() -> None:
    def cond(i: Any) -> Any:
        debug_print("{}", i, ordered=True)
        return i < 2

    with pytest.raises(NotImplementedError, match="cond_fun"):
        tl.jit(lambda x: lax.while_loop(cond, lambda i: i + 1, x))(np.int32(0))
