"""Invariants of tracing, checking, evaluating and printing, over generated programs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_tracer as tt
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import config, lax

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)

UNARY = {
    "float": [lax.sin, lax.exp, lax.neg, lax.tanh, lax.abs, lax.floor, lax.sqrt],
    "int": [lax.neg, lax.abs, lax.sign, lax.population_count],
}
BINARY = {
    "float": [lax.add, lax.mul, lax.sub, lax.max, lax.div],
    "int": [lax.add, lax.mul, lax.sub, lax.min, lax.bitwise_xor],
}
DTYPES = {"float": np.float32, "int": np.int32}


@st.composite
def programs(draw: st.DrawFn) -> tuple[Callable[..., Any], list[np.ndarray]]:
    """A random straight-line or control-flow program and its arguments."""
    kind = draw(st.sampled_from(["float", "int"]))
    dt = DTYPES[kind]
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    nargs = draw(st.integers(1, 3))
    steps = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["unary", "binary", "scalar", "reduce", "cond", "jit", "remat"]),
                st.integers(0, 100),
                st.integers(0, 100),
            ),
            min_size=1,
            max_size=8,
        )
    )
    closed_over = np.full(shape, 2, dt)

    def fun(*args: Any) -> Any:
        pool = list(args)
        for op, i, j in steps:
            a, b = pool[i % len(pool)], pool[j % len(pool)]
            if op == "unary":
                new = UNARY[kind][i % len(UNARY[kind])](a)
            elif op == "binary":
                new = BINARY[kind][j % len(BINARY[kind])](a, b)
            elif op == "scalar":
                new = lax.add(a, 3 if kind == "int" else 0.5)
            elif op == "reduce" and a.ndim:
                s = lax.reduce_sum(a, tuple(range(a.ndim)))
                new = lax.broadcast_in_dim(s, a.shape, ())
            elif op == "cond":
                pred = lax.gt(lax.reduce_max(a, tuple(range(a.ndim))), dt(0))
                new = lax.cond(
                    pred, lambda u: lax.add(u, closed_over), lambda u, b=b: lax.mul(u, b), a
                )
            elif op == "jit":
                new = tt.jit(BINARY[kind][0])(a, b)
            elif op == "remat":
                new = tt.checkpoint(lambda u: UNARY[kind][0](lax.mul(u, closed_over)))(a)
            else:
                new = a
            pool.append(new)
        return pool[-1], pool[len(args) :]

    args = [np.ones(shape, dt) for _ in range(nargs)]
    return fun, args


@SETTINGS
@given(programs())
def test_traced_programs_typecheck(prog: Any) -> None:
    fun, args = prog
    tt.check_jaxpr(tt.make_jaxpr(fun)(*args))


@SETTINGS
@given(programs())
def test_eval_jaxpr_agrees_with_eval_shape(prog: Any) -> None:
    fun, args = prog
    closed = tt.make_jaxpr(fun)(*args)
    shapes = tt.eval_shape(fun, *args)
    flat_expected = [shapes[0], *shapes[1]]
    replay = tt.eval_shape(lambda *xs: tt.eval_jaxpr(closed.jaxpr, closed.consts, *xs), *args)
    assert [(s.shape, s.dtype) for s in replay] == [(s.shape, s.dtype) for s in flat_expected]
    assert [a.shape for a in closed.out_avals] == [s.shape for s in flat_expected]


@SETTINGS
@given(programs())
def test_printer_round_trip_is_stable(prog: Any) -> None:
    fun, args = prog
    closed = tt.make_jaxpr(fun)(*args)
    text = str(closed)
    assert str(tt.make_jaxpr(fun)(*args)) == text
    replay = tt.make_jaxpr(lambda *xs: tt.eval_jaxpr(closed.jaxpr, closed.consts, *xs))(*args)
    assert str(replay) == text
    # Names are given in order of first binding: a, b, c, ...
    binders = re.findall(r"\b([a-z]+):[a-z0-9]+\[", text)
    order = list(dict.fromkeys(binders))
    n = len(closed.jaxpr.constvars) + len(args)
    assert order[:n] == [chr(97 + i) for i in range(n)]


# ----------------------------------------------------------------- config


@pytest.fixture
def restore_x64() -> Any:
    before = config.jax_enable_x64
    yield
    config.update("jax_enable_x64", before)


@pytest.mark.usefixtures("restore_x64")
@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    st.sampled_from(["jax_enable_x64", "tessela_enable_x64", "enable_x64"]),
    st.sampled_from(["jax_enable_x64", "tessela_enable_x64", "enable_x64"]),
    st.booleans(),
)
def test_config_spellings_are_one_flag(set_as: str, read_as: str, value: bool) -> None:
    config.update(set_as, value)
    assert getattr(config, read_as) is value
    assert config.x64_enabled is value
    want = np.dtype("float64" if value else "float32")
    assert tt.make_jaxpr(lambda x: x)(1.0).in_avals[0].dtype == want


def test_config_rejects_unknown_flags_and_non_bools() -> None:
    with pytest.raises(AttributeError, match="unrecognized config flag"):
        config.update("jax_enable_x65", True)
    with pytest.raises((TypeError, ValueError)):
        config.update("jax_enable_x64", "sure")
    with pytest.raises(AttributeError, match=r"config\.update"):
        config.jax_enable_x64 = True


@pytest.mark.parametrize(
    ("var", "text", "want"),
    [
        ("JAX_ENABLE_X64", "1", True),
        ("TESSELA_ENABLE_X64", "true", True),
        ("JAX_ENABLE_X64", "0", False),
        ("TESSELA_ENABLE_X64", "off", False),
    ],
)
def test_config_environment_variables(var: str, text: str, want: bool) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_ENABLE_X64")}
    env[var] = text
    code = "from tessela_tracer import config; print(config.jax_enable_x64)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(want)
