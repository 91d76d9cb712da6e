"""Differentiating through host callbacks: debug calls see primals, opaque ones refuse."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from tessela_autodiff import grad, jvp, linearize
from tessela_tracer import (
    ShapeDtypeStruct,
    checkpoint,
    custom_jvp,
    debug_callback,
    debug_print,
    io_callback,
    lax,
    make_jaxpr,
    pure_callback,
)
from tessela_tracer.extend import has_effects

SCALAR = ShapeDtypeStruct((), np.float32)


def _printing_sin(x: Any) -> Any:
    debug_print("x={}", x)
    return lax.sin(x)


def test_grad_prints_the_primal(capsys: pytest.CaptureFixture[str]) -> None:
    g = grad(_printing_sin)(np.float32(1.0))
    assert float(g) == pytest.approx(np.cos(1.0), rel=1e-6)
    assert capsys.readouterr().out == "x=1.0\n"
    tl.jit(grad(_printing_sin))(np.float32(0.5))
    grad(tl.jit(_printing_sin))(np.float32(0.25))  # jit equation evaluated eagerly
    assert capsys.readouterr().out == "x=0.5\nx=0.25\n"


def test_jvp_calls_back_with_primals_only() -> None:
    seen: list[float] = []

    def f(x: Any) -> Any:
        debug_callback(lambda v: seen.append(float(v)), x)
        return lax.mul(x, x)

    out, tangent = jvp(f, (np.float32(3.0),), (np.float32(1.0),))
    assert (float(out), float(tangent)) == (9.0, 6.0)
    assert seen == [3.0]
    _, f_lin = linearize(f, np.float32(2.0))
    assert float(f_lin(np.float32(1.0))) == 4.0
    assert seen == [3.0, 2.0]


def test_checkpoint_keeps_the_print_in_the_recomputation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # As in JAX 0.10.2: printed by the forward pass and by the recomputation.
    grad(checkpoint(_printing_sin))(np.float32(1.0))
    assert capsys.readouterr().out == "x=1.0\nx=1.0\n"
    closed = make_jaxpr(grad(checkpoint(_printing_sin)))(np.float32(1.0))
    (remat,) = [e for e in closed.eqns if e.primitive.name == "remat2"]
    assert closed.eqns[0].primitive.name == "debug_print"
    assert has_effects(remat)


def test_grad_through_scan_prints_every_iteration(capsys: pytest.CaptureFixture[str]) -> None:
    def body(c: Any, x: Any) -> Any:
        debug_print("it {}", x)
        return lax.mul(c, x), None

    def f(c: Any) -> Any:
        return lax.scan(body, c, np.arange(1, 4, dtype=np.float32))[0]

    assert float(grad(f)(np.float32(2.0))) == 6.0
    assert capsys.readouterr().out == "it 1.0\nit 2.0\nit 3.0\n"


def test_pure_and_io_callbacks_refuse_differentiation() -> None:
    def pure(x: Any) -> Any:
        return pure_callback(np.sin, SCALAR, x)

    with pytest.raises(ValueError, match=r"Pure callbacks do not support JVP.*custom_jvp"):
        grad(pure)(np.float32(1.0))
    with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
        jvp(lambda x: io_callback(np.sin, SCALAR, x), (np.float32(1.0),), (np.float32(1.0),))
    # Without a tangent flowing in, the callback is a constant: no error.
    assert float(grad(lambda x: lax.mul(x, pure(np.float32(0.0))))(np.float32(2.0))) == 0.0


def test_pure_callback_differentiates_through_custom_jvp() -> None:
    @custom_jvp
    def host_sin(x: Any) -> Any:
        return pure_callback(lambda v: np.sin(np.asarray(v)), SCALAR, x)

    @host_sin.defjvp
    def _jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return host_sin(x), lax.mul(pure_callback(lambda v: np.cos(np.asarray(v)), SCALAR, x), t)

    for v in (0.0, 0.7, -2.0):
        assert float(grad(host_sin)(np.float32(v))) == pytest.approx(np.cos(v), rel=1e-6)
