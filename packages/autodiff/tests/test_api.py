"""The public transformations: seeds' semantics, errors, control flow, custom rules, nesting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from tessela_autodiff import (
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linear_transpose,
    linearize,
    stop_gradient,
    value_and_grad,
    vjp,
)
from tessela_batching import vmap
from tessela_lowering import Array, jit
from tessela_tracer import checkpoint, custom_jvp, custom_vjp, dtypes, lax, make_jaxpr
from tessela_tracer.extend import tangent_aval


def _close(a: Any, b: Any, tol: float = 1e-5) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ------------------------------------------------------------------ seeds


def test_grad_through_python_control_flow() -> None:
    def f(x: Any) -> Any:
        if x < 3:
            return 3.0 * x**2
        return -4 * x

    assert float(grad(f)(2.0)) == 12.0
    assert float(grad(f)(4.0)) == -4.0


def test_grad_of_divide_resolves_condition_concretely() -> None:
    def divide(x: Any, y: Any) -> Any:
        return x / y if y >= 1.0 else 0.0

    _close(grad(divide)(3.0, 2.0), 0.5)


def test_where_gradient_nan_and_safe_version() -> None:
    def my_log(x: Any) -> Any:
        return tnp.where(x > 0.0, tnp.log(x), 0.0)

    def safe_for_grad_log(x: Any) -> Any:
        return tnp.log(tnp.where(x > 0.0, x, 1.0))

    assert float(my_log(0.0)) == 0.0
    assert np.isnan(float(grad(my_log)(0.0)))
    assert float(grad(safe_for_grad_log)(0.0)) == 0.0


def test_sort_order_gradients_are_zero() -> None:
    def f(x: Any) -> Any:
        return (x > 0).astype(float)

    x = tnp.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    assert f"{vmap(grad(f))(x)}" == "[0. 0. 0. 0. 0.]"
    _close(grad(lambda x: tnp.argmax(x).astype(float))(x), np.zeros(5))


def test_quickstart_grad_jacobian_hessian() -> None:
    def sum_logistic(x: Any) -> Any:
        return tnp.sum(1.0 / (1.0 + tnp.exp(-x)))

    x_small = tnp.arange(3.0)
    derivative_fn = grad(sum_logistic)
    # The Quickstart prints this line.
    assert f"{derivative_fn(x_small)}" == "[0.25       0.19661197 0.10499357]"
    _close(jacobian(lambda x: tnp.sin(x))(x_small), np.diag(np.cos(np.arange(3.0))))
    h = hessian(sum_logistic)(x_small)
    s = 1 / (1 + np.exp(-np.arange(3.0)))
    _close(h, np.diag(s * (1 - s) * (1 - 2 * s)))


# ------------------------------------------------------------------ errors


def test_non_scalar_output_error() -> None:
    with pytest.raises(
        TypeError,
        match=r"Gradient only defined for scalar-output functions\. Output had shape: \(3,\)\.",
    ):
        grad(lambda x: x * 2.0)(tnp.ones(3))


def test_integer_input_error_and_allow_int() -> None:
    with pytest.raises(
        TypeError,
        match=r"grad requires real- or complex-valued inputs .* but got int32\. If you want",
    ):
        grad(lambda x: x * 2.0)(3)
    g = grad(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(g[0]) == 3.0
    assert (
        np.asarray(g[1]).dtype.name == "void" or str(np.asarray(g[1]).dtype) == "[('float0', 'V')]"
    )


def test_integer_output_error() -> None:
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        grad(lambda x: lax.convert_element_type(x, np.int32))(1.0)


def test_while_reverse_mode_error() -> None:
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)  # noqa: E731
    with pytest.raises(
        ValueError, match=r"Reverse-mode differentiation does not work for lax\.while_loop"
    ):
        grad(f)(1.0)
    p, t = jvp(f, (1.0,), (1.0,))
    assert float(p) == 16.0 and float(t) == 16.0


# ------------------------------------------------------------------ API


def test_jvp_vjp_linearize_value_and_grad() -> None:
    x = np.float32(0.7)
    p, t = jvp(lax.sin, (x,), (np.float32(2.0),))
    _close(p, np.sin(x))
    _close(t, 2 * np.cos(x))
    _, f_jvp = linearize(lax.sin, x)
    _close(f_jvp(np.float32(3.0)), 3 * np.cos(x))
    _y, pullback = vjp(lambda a, b: lax.mul(a, b), x, np.float32(3.0))
    ga, gb = pullback(np.float32(1.0))
    _close(ga, 3.0)
    _close(gb, x)
    v, g = value_and_grad(lambda a: lax.mul(a, a))(x)
    _close(v, x * x)
    _close(g, 2 * x)


def test_has_aux_and_pytrees() -> None:
    def loss(params: Any, x: Any) -> Any:
        y = tnp.dot(x, params["w"]) + params["b"]
        return tnp.sum(y**2), y

    params = {"w": tnp.ones((3, 2)), "b": tnp.zeros(2)}
    x = tnp.arange(3.0)
    g, aux = grad(loss, has_aux=True)(params, x)
    assert set(g) == {"w", "b"}
    _close(g["b"], 2 * np.asarray(aux))
    _close(g["w"], np.outer(np.arange(3.0), 2 * np.asarray(aux)))


def test_int_tangents_are_float0() -> None:
    f = lambda x, n: x * n  # noqa: E731
    _p, t = jvp(f, (2.0, 3), (1.0, np.zeros((), dtype=[("float0", "V0")])))
    assert float(t) == 3.0
    with pytest.raises(TypeError, match="tangent dtype must be float0"):
        jvp(f, (2.0, 3), (1.0, 1))


def test_stop_gradient_and_linear_transpose() -> None:
    _close(grad(lambda x: x * stop_gradient(x))(3.0), 3.0)
    f_t = linear_transpose(lambda x: tnp.sum(x * 2.0), tnp.ones(3))
    (ct,) = f_t(np.float32(1.5))
    _close(ct, np.full(3, 3.0))


# ------------------------------------------------------------------ control flow


def test_cond_and_switch() -> None:
    def f(x: Any) -> Any:
        return lax.cond(x > 0, lambda x: lax.sin(x) * x, lambda x: lax.cos(x), x)

    _close(grad(f)(1.0), np.cos(1.0) + np.sin(1.0))
    _close(grad(f)(-1.0), np.sin(1.0))
    g = lambda x: lax.switch(1, [lax.sin, lax.cos, lax.exp], x)  # noqa: E731
    _close(grad(g)(0.5), -np.sin(0.5))
    _close(jit(grad(f))(1.0), np.cos(1.0) + np.sin(1.0))


def test_scan_and_fori_loop() -> None:
    def f(x: Any) -> Any:
        def body(c: Any, xi: Any) -> Any:
            return c * xi + lax.sin(c), c

        c, ys = lax.scan(body, x, tnp.arange(1.0, 4.0))
        return c + tnp.sum(ys)

    eps = 1e-3
    fd = (float(f(0.5 + eps)) - float(f(0.5 - eps))) / (2 * eps)
    _close(grad(f)(0.5), fd, 1e-3)
    h = lambda x: lax.fori_loop(0, 3, lambda i, c: c * c + 1.0, x)  # noqa: E731
    _close(grad(h)(0.3), jvp(h, (0.3,), (1.0,))[1])


def test_jit_inside_grad() -> None:
    f = jit(lambda x: tnp.sum(tnp.tanh(x) ** 2))
    x = tnp.arange(3.0)
    t = np.tanh(np.arange(3.0))
    _close(grad(f)(x), 2 * t * (1 - t**2))
    _close(jit(grad(f))(x), 2 * t * (1 - t**2))


# ------------------------------------------------------------------ custom rules


def test_custom_jvp() -> None:
    @custom_jvp
    def f(x: Any) -> Any:
        return lax.sin(x)

    f.defjvp(lambda primals, tangents: (f(primals[0]), lax.mul(2.0, tangents[0])))
    assert float(grad(f)(1.0)) == 2.0
    assert float(jvp(f, (1.0,), (3.0,))[1]) == 6.0


def test_custom_vjp() -> None:
    @custom_vjp
    def f(x: Any) -> Any:
        return lax.sin(x)

    f.defvjp(lambda x: (f(x), lax.cos(x)), lambda c, g: (lax.mul(lax.mul(g, c), 10.0),))
    _close(grad(f)(0.5), 10 * np.cos(0.5))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jvp(f, (0.5,), (1.0,))


# ------------------------------------------------------------------ nesting


def test_nested_transformations() -> None:
    _close(grad(grad(lax.sin))(1.0), -np.sin(1.0))
    _close(grad(grad(grad(lax.sin)))(1.0), -np.cos(1.0))
    _, t = jvp(lambda x: vjp(lax.sin, x)[1](1.0)[0], (1.0,), (1.0,))
    _close(t, -np.sin(1.0))
    _close(vmap(grad(lax.sin))(tnp.arange(3.0)), np.cos(np.arange(3.0)))
    x = tnp.arange(1.0, 4.0)
    _close(jacfwd(tnp.sin)(x), jacrev(tnp.sin)(x))
    assert "cos" in str(make_jaxpr(grad(lax.sin))(1.0))


def test_checkpoint() -> None:
    f = checkpoint(lambda x: lax.sin(lax.sin(x)))
    _close(grad(f)(0.7), np.cos(np.sin(0.7)) * np.cos(0.7))
    _close(jvp(f, (0.7,), (1.0,))[1], np.cos(np.sin(0.7)) * np.cos(0.7))
    assert "remat2" in str(make_jaxpr(grad(f))(0.7))


def test_grad_outputs_are_backend_arrays_with_the_inputs_weak_types() -> None:
    # JAX returns Array(2., weak_type=True) and Array(0., weak_type=True) here.
    gx, gy = grad(lambda x, y: x * 2.0, argnums=(0, 1))(1.0, 2.0)
    for g, want in ((gx, 2.0), (gy, 0.0)):
        assert type(g) is Array and g.weak_type
        assert float(g) == want
    strong = grad(lambda x: x * 2.0)(tnp.ones((), tnp.float32))
    assert type(strong) is Array and not strong.weak_type


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"])
def test_narrow_floats_are_their_own_tangent_type(dtype: str) -> None:
    # NumPy's issubdtype does not count ml_dtypes' floats as inexact; the
    # tangent type must (jvp raised for bfloat16 tangents, pmean widened).
    x = tnp.ones(3, dtype=dtype)
    assert tangent_aval(x.aval).dtype == x.dtype
    y, t = jvp(lambda v: v * 2, (x,), (x,))
    assert y.dtype == t.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(t, np.float32), 2.0)
    cts = vjp(lambda v, w: v * 2, x, x)[1](x)
    assert [c.dtype for c in cts] == [x.dtype, x.dtype]
    assert vmap(lambda v: lax.pmean(v, "i"), axis_name="i")(x).dtype == x.dtype
    assert dtypes.issubdtype(x.dtype, np.inexact)


@pytest.mark.parametrize(
    "fn",
    [
        lax.bessel_i1e,
        lambda v: lax.igamma(v + 1, v),
        lambda v: lax.igammac(v + 1, v),
        lambda v: lax.betainc(lax.full_like(v, 2), lax.full_like(v, 3), v * 0.5),
    ],
    ids=["i1e", "igamma", "igammac", "betainc"],
)
def test_special_gradients_of_bfloat16_follow_float32(fn: Any) -> None:
    # The rules' constants take the operand's dtype (a Python 1.0 made the
    # bfloat16 rule's lax.div/sub raise TypeError).
    x = np.array([0.3, 0.7, 1.3], np.float32)

    def loss(v: Any) -> Any:
        return lax.convert_element_type(tnp.sum(fn(v)), np.float32)

    narrow = grad(loss)(tnp.asarray(x, dtype="bfloat16"))
    assert narrow.dtype == tnp.bfloat16
    _close(np.asarray(narrow, np.float32), grad(loss)(x), tol=0.05)
