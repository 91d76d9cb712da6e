"""``tessela.debug``, ``tessela.pure_callback`` and ``tessela.experimental.io_callback``.

Expected lines are what JAX 0.10.2 prints for the same programs.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela_lowering
import tessela_tracer
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela.experimental import io_callback


def test_names_are_jax_locations() -> None:
    assert tx.debug.print is tessela_tracer.debug_print
    assert tx.debug.callback is tessela_tracer.debug_callback
    assert tx.pure_callback is tessela_tracer.pure_callback
    assert io_callback is tessela_tracer.io_callback
    assert tx.effects_barrier is tessela_lowering.effects_barrier
    assert not hasattr(tx, "io_callback")  # JAX keeps it under jax.experimental


def test_print_formats_like_jax_under_jit(capsys: pytest.CaptureFixture[str]) -> None:
    @tx.jit
    def f(x: Any) -> Any:
        tx.debug.print("x: {}", x)
        tx.debug.print("{} {}", x[0], x.sum())
        tx.debug.print("x = {x}", x=x * 0.5)
        return x

    f(tnp.arange(5)).block_until_ready()
    assert capsys.readouterr().out == "x: [0 1 2 3 4]\n0 10\nx = [0.  0.5 1.  1.5 2. ]\n"


def test_print_format_specs_and_matrices(capsys: pytest.CaptureFixture[str]) -> None:
    tx.debug.print("{x:.2f}", x=tnp.float32(1 / 3))
    tx.debug.print("{}", tnp.ones((2, 2)))
    assert capsys.readouterr().out == "0.33\n[[1. 1.]\n [1. 1.]]\n"


def test_print_under_vmap_grad_and_while(capsys: pytest.CaptureFixture[str]) -> None:
    def show(x: Any) -> Any:
        tx.debug.print("{}", x)
        return x

    tx.vmap(show)(tnp.arange(3.0))
    tx.lax.while_loop(lambda c: c < 3, lambda c: (tx.debug.print("c={c}", c=c), c + 1)[1], 0)
    g = tx.grad(lambda x: (tx.debug.print("g {}", x), x**2)[1])(2.0)
    assert float(g) == 4.0
    assert capsys.readouterr().out == "0.0\n1.0\n2.0\nc=0\nc=1\nc=2\ng 2.0\n"


def test_jit_cache_hit_prints_again(capsys: pytest.CaptureFixture[str]) -> None:
    traces = []

    def f(x: Any) -> Any:
        traces.append(1)
        tx.debug.print("called with {}", x)
        return x + 1

    jf = tx.jit(f)
    jf(tnp.float32(1.0))
    jf(tnp.float32(2.0))
    tx.jit(f)(tnp.float32(3.0))  # a second jit of the same function shares the cache
    assert len(traces) == 1
    assert capsys.readouterr().out == "called with 1.0\ncalled with 2.0\ncalled with 3.0\n"


def test_unused_print_is_not_eliminated(capsys: pytest.CaptureFixture[str]) -> None:
    @tx.jit
    def f(x: Any) -> Any:
        y = tnp.sin(x)  # only printed: nothing else uses y
        tx.debug.print("y={}", y)
        return x

    f(tnp.float32(0.0))
    assert capsys.readouterr().out == "y=0.0\n"


def test_debug_callback_receives_arrays() -> None:
    got: list[Any] = []
    tx.jit(lambda x: tx.debug.callback(got.append, x))(tnp.arange(2.0))
    assert len(got) == 1 and isinstance(got[0], tx.Array)
    np.testing.assert_array_equal(np.asarray(got[0]), [0.0, 1.0])


def test_pure_callback_vmap_method_doc_example(capsys: pytest.CaptureFixture[str]) -> None:
    # The example of JAX 0.10.2's pure_callback docstring.
    def callback(x: Any, y: Any) -> Any:
        print(np.shape(x), np.shape(y))
        return np.asarray(x) + np.asarray(y)

    def fun(x: Any, y: Any, *, vmap_method: str) -> Any:
        shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        out_type = tx.ShapeDtypeStruct(shape, tnp.result_type(x, y))
        return tx.pure_callback(callback, out_type, x, y, vmap_method=vmap_method)

    x = tnp.arange(4)
    out = tx.vmap(partial(fun, vmap_method="expand_dims"), in_axes=(0, None))(x, 1.0)
    assert repr(out) == "Array([1., 2., 3., 4.], dtype=float32)"
    out = tx.vmap(partial(fun, vmap_method="broadcast_all"), in_axes=(0, None))(x, 1.0)
    assert repr(out) == "Array([1., 2., 3., 4.], dtype=float32)"
    assert capsys.readouterr().out == "(4,) (1,)\n(4,) (4,)\n"


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    # XLA's CPU kernels flush subnormal floats to zero (JAX's do too): normal values only.
    st.lists(st.floats(-10, 10, width=32, allow_subnormal=False), min_size=1, max_size=6)
)
def test_jit_pure_callback_values_match_numpy(values: list[float]) -> None:
    x = tnp.asarray(np.asarray(values, np.float32))
    spec = tx.ShapeDtypeStruct(x.shape, x.dtype)
    f = tx.jit(lambda v: tx.pure_callback(lambda a: np.sin(np.asarray(a)), spec, v) * 2)
    np.testing.assert_allclose(np.asarray(f(x)), 2 * np.sin(np.asarray(values, np.float32)),
                               rtol=1e-6)  # fmt: skip


def test_pure_callback_under_grad_raises() -> None:
    spec = tx.ShapeDtypeStruct((), tnp.float32)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        tx.grad(lambda x: tx.pure_callback(np.sin, spec, x))(1.0)


def test_io_callback_logs_every_iteration_of_scan() -> None:
    log: list[float] = []

    def save(v: Any) -> Any:
        log.append(float(v))
        return v

    def body(c: Any, x: Any) -> Any:
        io_callback(save, tx.ShapeDtypeStruct((), tnp.float32), x)
        return c + x, None

    total, _ = tx.jit(lambda xs: tx.lax.scan(body, 0.0, xs))(tnp.arange(1.0, 4.0))
    assert float(total) == 6.0
    assert log == [1.0, 2.0, 3.0]


def test_faq_print_traced_value_at_runtime(capsys: pytest.CaptureFixture[str]) -> None:
    # FAQ ("How can I convert a JAX Tracer to a NumPy array?"): print a traced
    # value at runtime with debug.print instead of converting the tracer.
    @tx.jit
    def f(x: Any) -> Any:
        tx.debug.print("{}", x)
        return x

    f(tnp.arange(5))
    tx.effects_barrier()
    assert capsys.readouterr().out == "[0 1 2 3 4]\n"
