"""The jit, grad and control-flow examples of "The Sharp Bits", with the seed's output."""

from __future__ import annotations

import pytest
import tessela.numpy as jnp
from tessela import grad, jit, lax
from tessela.errors import TracerBoolConversionError


def test_impure_functions(capsys: pytest.CaptureFixture[str]) -> None:
    def impure_print_side_effect(x):
        print("Executing function")
        return x

    print("First call: ", jit(impure_print_side_effect)(4.0))
    print("Second call: ", jit(impure_print_side_effect)(5.0))
    print("Third call, different type: ", jit(impure_print_side_effect)(jnp.array([5.0])))
    out = capsys.readouterr().out
    assert out.count("Executing function") >= 2
    assert "First call:  4.0\n" in out and "Second call:  5.0\n" in out
    assert out.endswith("Executing function\nThird call, different type:  [5.]\n")


def test_pure_function_with_internal_state(capsys: pytest.CaptureFixture[str]) -> None:
    def pure_uses_internal_state(x):
        state = {"even": 0, "odd": 0}
        for i in range(10):
            state["even" if i % 2 == 0 else "odd"] += x
        return state["even"] + state["odd"]

    print(jit(pure_uses_internal_state)(5.0))
    array = jnp.arange(10)
    print(lax.fori_loop(0, 10, lambda i, x: x + array[i], 0))
    iterator = iter(range(10))
    print(lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0))
    assert capsys.readouterr().out == "50.0\n45\n0\n"


def test_python_control_flow(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x):
        if x < 3:
            return 3.0 * x**2
        return -4 * x

    print(grad(f)(2.0))
    print(grad(f)(4.0))

    @jit
    def doubled(x):
        for _ in range(3):
            x = 2 * x
        return x

    @jit
    def g(x):
        y = 0.0
        for i in range(x.shape[0]):
            y = y + x[i]
        return y

    print(doubled(3))
    print(g(jnp.array([1.0, 2.0, 3.0])))
    print(jit(f, static_argnums=(0,))(2.0))
    assert capsys.readouterr().out == "12.0\n-4.0\n24\n6.0\n12.0\n"
    with pytest.raises(TracerBoolConversionError, match=r"depends on the value of the argument x"):
        jit(f)(2)


def test_static_loop_bound_and_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x, n):
        y = 0.0
        for i in range(n):
            y = y + x[i]
        return y

    assert repr(jit(f, static_argnums=(1,))(jnp.array([2.0, 3.0, 4.0]), 2)) == (
        "Array(5., dtype=float32)"
    )

    def example_fun(length, val):
        return jnp.ones((length,)) * val

    print(example_fun(5, 4))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        jit(example_fun)(10, 4)
    good_example_jit = jit(example_fun, static_argnums=(0,))
    print(good_example_jit(10, 4))
    print(good_example_jit(5, 4))
    assert capsys.readouterr().out == (
        "[4. 4. 4. 4. 4.]\n[4. 4. 4. 4. 4. 4. 4. 4. 4. 4.]\n[4. 4. 4. 4. 4.]\n"
    )
