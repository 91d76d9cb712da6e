"""vmap of the host-callback primitives: per-element debug calls, vmap_method semantics."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from tessela_batching import vmap
from tessela_tracer import (
    ShapeDtypeStruct,
    debug_callback,
    debug_print,
    io_callback,
    lax,
    make_jaxpr,
    pure_callback,
)


def test_vmap_debug_print_prints_each_element(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: Any, y: Any) -> Any:
        debug_print("x={} y={}", x, y)
        return lax.add(x, y)

    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    vmap(f, in_axes=(1, None))(xs, np.float32(10))
    assert capsys.readouterr().out == "x=[0. 3.] y=10.0\nx=[1. 4.] y=10.0\nx=[2. 5.] y=10.0\n"
    tl.jit(vmap(f, in_axes=(1, None)))(xs, np.float32(10))
    assert capsys.readouterr().out.count("y=10.0") == 3


def test_nested_vmap_debug_callback_sees_scalars() -> None:
    seen: list[float] = []
    vmap(vmap(lambda x: debug_callback(lambda v: seen.append(float(v)), x)))(
        np.arange(4, dtype=np.float32).reshape(2, 2)
    )
    # The inner vmap unrolls first, as in JAX 0.10.2 (which calls back with 0, 2, 1, 3).
    assert seen == [0.0, 2.0, 1.0, 3.0]


def _shape_logging_fun(log: list[Any], vmap_method: str | None) -> Any:
    def callback(x: Any, y: Any) -> Any:
        log.append((np.shape(x), np.shape(y)))
        return np.asarray(x) + np.asarray(y)

    def fun(x: Any, y: Any) -> Any:
        shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        out = ShapeDtypeStruct(shape, np.float32)
        return pure_callback(callback, out, x, y, vmap_method=vmap_method)

    return fun


@pytest.mark.parametrize(
    ("method", "calls"),
    [
        ("expand_dims", [((4,), (1,))]),
        ("broadcast_all", [((4,), (4,))]),
        ("sequential", [((), ())] * 4),
        ("sequential_unrolled", [((), ())] * 4),
    ],
)
def test_pure_callback_vmap_methods(method: str, calls: list[Any]) -> None:
    log: list[Any] = []
    x = np.arange(4, dtype=np.float32)
    out = vmap(_shape_logging_fun(log, method), in_axes=(0, None))(x, np.float32(1.0))
    np.testing.assert_array_equal(np.asarray(out), x + 1)
    assert log == calls


def test_pure_callback_vmap_without_method_raises() -> None:
    fun = _shape_logging_fun([], None)
    with pytest.raises(NotImplementedError, match="Got vmap_method=None"):
        vmap(fun, in_axes=(0, None))(np.arange(4, dtype=np.float32), np.float32(1.0))


def test_expand_dims_declares_batched_result() -> None:
    fun = _shape_logging_fun([], "expand_dims")
    closed = make_jaxpr(vmap(fun, in_axes=(0, None)))(np.ones(4, np.float32), np.float32(1.0))
    (eqn,) = [e for e in closed.eqns if e.primitive.name == "pure_callback"]
    assert [a.shape for a in eqn.params["result_avals"]] == [(4,)]


@given(st.integers(1, 5), st.sampled_from(["sequential", "expand_dims", "broadcast_all"]))
def test_vmap_pure_callback_matches_numpy(n: int, method: str) -> None:
    x = np.linspace(-1, 1, n * 2, dtype=np.float32).reshape(n, 2)
    spec = ShapeDtypeStruct((2,), np.float32)

    def f(row: Any) -> Any:
        return pure_callback(lambda r: np.cos(np.asarray(r)), spec, row, vmap_method=method)

    # expand_dims/broadcast_all hand the whole batch to the callback, which
    # must then return the batched result; np.cos does.
    np.testing.assert_allclose(np.asarray(tl.jit(vmap(f))(x)), np.cos(x), rtol=1e-6)


def test_vmap_io_callback_calls_once_per_element_in_order() -> None:
    seen: list[float] = []

    def log(v: Any) -> Any:
        seen.append(float(v))
        return np.asarray(v) * 2

    f = functools.partial(io_callback, log, ShapeDtypeStruct((), np.float32))
    out = vmap(f)(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
    assert seen == [0.0, 1.0, 2.0]
    g = functools.partial(io_callback, log, ShapeDtypeStruct((), np.float32), ordered=True)
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
        vmap(g)(np.arange(3, dtype=np.float32))
