"""The seed documents' jit, placement, benchmarking and donation examples."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_numpy as tnp
from tessela_lowering import jit


def test_impure_print_side_effect(capsys: Any) -> None:
    def impure_print_side_effect(x: Any) -> Any:
        print("Executing function")
        return x

    print("First call: ", jit(impure_print_side_effect)(4.0))
    print("Second call: ", jit(impure_print_side_effect)(5.0))
    print("Third call, different type: ", jit(impure_print_side_effect)(tnp.array([5.0])))
    assert capsys.readouterr().out == (
        "Executing function\nFirst call:  4.0\nSecond call:  5.0\n"
        "Executing function\nThird call, different type:  [5.]\n"
    )


def test_cached_jit_does_not_rerun_side_effects(capsys: Any) -> None:
    def impure_print_side_effect(x: Any) -> Any:
        print("Executing function")
        return x

    f = jit(impure_print_side_effect)
    print("First call: ", f(4.0))
    print("Second call: ", f(5.0))
    print("Third call, different type: ", f(tnp.array([5.0])))
    assert capsys.readouterr().out == (
        "Executing function\nFirst call:  4.0\nSecond call:  5.0\n"
        "Executing function\nThird call, different type:  [5.]\n"
    )


def test_impure_uses_globals(capsys: Any) -> None:
    scope: dict[str, Any] = {"g": 0.0}

    def impure_uses_globals(x: Any) -> Any:
        return x + scope["g"]

    f = jit(impure_uses_globals)
    print("First call: ", f(4.0))
    scope["g"] = 10.0
    print("Second call: ", f(5.0))
    print("Third call, different type: ", f(tnp.array([4.0])))
    assert capsys.readouterr().out == (
        "First call:  4.0\nSecond call:  5.0\nThird call, different type:  [14.]\n"
    )


def test_impure_saves_global_and_pure_internal_state(capsys: Any) -> None:
    saved: list[Any] = []

    def impure_saves_global(x: Any) -> Any:
        saved.append(x)
        return x

    print("First call: ", jit(impure_saves_global)(4.0))
    print("Saved global: ", saved[0])

    def pure_uses_internal_state(x: Any) -> Any:
        state = {"even": 0, "odd": 0}
        for i in range(10):
            state["even" if i % 2 == 0 else "odd"] += x
        return state["even"] + state["odd"]

    print(jit(pure_uses_internal_state)(5.0))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "First call:  4.0"
    assert out[1].startswith("Saved global:  ") and "float32[]" in out[1]
    assert out[2] == "50.0"


def test_static_argnums_examples(capsys: Any) -> None:
    def f(x: Any) -> Any:
        if x < 3:
            return 3.0 * x**2
        return -4 * x

    print(jit(f, static_argnums=(0,))(2.0))

    def g(x: Any, n: int) -> Any:
        y = 0.0
        for i in range(n):
            y = y + x[i]
        return y

    out = jit(g, static_argnums=(1,))(tnp.array([2.0, 3.0, 4.0]), 2)
    print(repr(out))
    assert capsys.readouterr().out == "12.0\nArray(5., dtype=float32)\n"


def test_shape_dependent_code(capsys: Any) -> None:
    def example_fun(length: Any, val: Any) -> Any:
        return tnp.ones((length,)) * val

    print(example_fun(5, 4))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        jit(example_fun)(10, 4)
    good_example_jit = jit(example_fun, static_argnums=(0,))
    print(good_example_jit(10, 4))
    print(good_example_jit(5, 4))
    assert capsys.readouterr().out == (
        "[4. 4. 4. 4. 4.]\n[4. 4. 4. 4. 4. 4. 4. 4. 4. 4.]\n[4. 4. 4. 4. 4.]\n"
    )


def test_faq_benchmarking_recipe() -> None:
    def f(x: Any) -> Any:
        return x.T @ (x - x.mean(axis=0))

    x_np = np.ones((1000, 1000), dtype=np.float32)
    x_dev = tl.device_put(x_np)
    f_jit = jit(f)
    out = f_jit(x_dev).block_until_ready()
    np.testing.assert_allclose(np.asarray(out), f(x_np), atol=1e-3)


def test_faq_donation() -> None:
    def add(x: Any, y: Any) -> Any:
        return x + y

    x = tl.device_put(np.ones((2, 3)))
    y = tl.device_put(np.ones((2, 3)))
    assert x.dtype == np.float32
    z = jit(add, donate_argnums=(1,))(x, y)
    assert y.is_deleted()
    np.testing.assert_array_equal(np.asarray(z), 2 * np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="deleted"):
        y + 1

    def add_ones(xs: list[Any]) -> list[Any]:
        return [x + 1 for x in xs]

    xs = [tl.device_put(np.ones((2, 3))), tl.device_put(np.ones((3, 4)))]
    jit(add_ones, donate_argnums=0)(xs)
    assert all(v.is_deleted() for v in xs)
    x = tl.device_put(np.ones((2, 3)))
    y = tl.device_put(np.ones((2, 3)))
    with pytest.warns(
        UserWarning, match=r"Some donated buffers were not usable: f32\[2,3\]\{1,0\}"
    ):
        jit(add, donate_argnums=(0, 1))(x, y)
    y = tl.device_put(np.ones((1, 3)))
    with pytest.warns(
        UserWarning, match=r"Some donated buffers were not usable: f32\[1,3\]\{1,0\}"
    ):
        jit(add, donate_argnums=(1,))(tl.device_put(np.ones((2, 3))), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = tl.device_put(np.ones(2)), tl.device_put(np.ones(2))
        jit(add, donate_argnums=(0, 1))(x=a, y=b)
    assert not a.is_deleted() and not b.is_deleted()


def _run(code: str) -> str:
    env = dict(os.environ, TESSELA_NUM_CPU_DEVICES="4")
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
        text=True, check=False, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_faq_placement_on_four_devices() -> None:
    out = _run(
        """
        import numpy as np
        import tessela_lowering as tl
        import tessela_numpy as tnp
        print(tnp.ones(3).devices())
        arr = tl.device_put(1, tl.devices()[2])
        print(arr.devices(), arr.committed)
        y = arr + tnp.ones(())
        print(y.devices(), y.committed)
        f = tl.jit(lambda a, b: a * b)
        print(f(arr, 2.0).devices(), f(arr, 2.0).committed, f(1.0, 2.0).devices())
        other = tl.device_put(1, tl.devices()[3])
        for op in (lambda: arr + other, lambda: f(arr, other)):
            try:
                op()
            except ValueError as e:
                print("ValueError", "CpuDevice(id=2)" in str(e) and "CpuDevice(id=3)" in str(e))
        with tl.default_device(tl.devices()[1]):
            print(tnp.ones(3).devices(), f(1.0, 2.0).devices())
        print(tl.device_put(arr) is arr)
        """
    )
    assert out.splitlines() == [
        "{CpuDevice(id=0)}",
        "{CpuDevice(id=2)} True",
        "{CpuDevice(id=2)} True",
        "{CpuDevice(id=2)} True {CpuDevice(id=0)}",
        "ValueError True",
        "ValueError True",
        "{CpuDevice(id=1)} {CpuDevice(id=1)}",
        "True",
    ]
