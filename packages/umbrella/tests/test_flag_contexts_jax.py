"""JAX's flag context managers at top level and what the flags do, against JAX 0.10.2.

The expected results come from JAX 0.10.2 (the same programs under
``jax.numpy_dtype_promotion('strict')``, ``jax.default_matmul_precision('float32')``,
``jax.checking_leaks()`` and ``jax.numpy_rank_promotion('raise')``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from tessela.errors import TypePromotionError

CONTEXTS = {
    "numpy_rank_promotion": ("jax_numpy_rank_promotion", "raise"),
    "numpy_dtype_promotion": ("jax_numpy_dtype_promotion", "strict"),
    "default_matmul_precision": ("jax_default_matmul_precision", "highest"),
    "check_tracer_leaks": ("jax_check_tracer_leaks", True),
}


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_context_manager_sets_and_restores(name: str) -> None:
    flag, value = CONTEXTS[name]
    before = tx.config.read(flag)
    with getattr(tx, name)(value):
        assert tx.config.read(flag) == value and getattr(tx, name).value == value
    assert tx.config.read(flag) == before
    assert name in tx.__all__


@pytest.mark.parametrize(
    "name", ["numpy_rank_promotion", "numpy_dtype_promotion", "default_matmul_precision"]
)
def test_enum_context_managers_need_a_value(name: str) -> None:
    with pytest.raises(TypeError) as info, getattr(tx, name)():
        pass
    assert str(info.value) == (
        f"Context manager for {name} config option requires an argument representing the new "
        "value for the config option."
    )


def test_checking_leaks_and_check_tracer_leaks_enable_the_check() -> None:
    with tx.checking_leaks():
        assert tx.config.jax_check_tracer_leaks is True
    with tx.check_tracer_leaks():
        assert tx.config.jax_check_tracer_leaks is True
    assert tx.config.jax_check_tracer_leaks is False
    with tx.default_matmul_precision(None):
        assert tx.config.jax_default_matmul_precision is None


def test_config_has_parse_flags_with_absl_and_x64_enabled() -> None:
    assert callable(tx.config.parse_flags_with_absl) and tx.config.x64_enabled is False
    with tx.enable_x64():
        assert tx.config.x64_enabled is True


@pytest.mark.parametrize(
    "transform",
    [tx.jit, tx.vmap, lambda f: tx.grad(lambda x: f(x).sum())],
    ids=["jit", "vmap", "grad"],
)
def test_checking_leaks_catches_a_stored_tracer(transform: Any) -> None:
    kept: list[Any] = []

    def f(x: Any) -> Any:
        kept.append(x)
        return x * 2

    with tx.checking_leaks(), pytest.raises(Exception, match=r"^Leaked trace"):
        transform(f)(tnp.ones(3))


def test_checking_leaks_passes_programs_that_leak_nothing() -> None:
    with tx.checking_leaks():
        assert float(tx.jit(tx.grad(lambda x: tnp.sin(x).sum()))(tnp.zeros(3))[0]) == 1.0
        out = tx.vmap(lambda x: {"a": x * 2, "b": [x]})(tnp.ones(3))
        assert out["a"].shape == (3,)
        hess = tx.hessian(lambda x: (x**3).sum())(tnp.ones(2))
        np.testing.assert_allclose(np.asarray(hess), [[6.0, 0.0], [0.0, 6.0]])
        carry, ys = tx.lax.scan(lambda c, y: (c + y, c * y), 0.0, tnp.arange(3.0))
        assert ys.shape == (3,)
        assert float(carry) == 3.0


# JAX 0.10.2 under numpy_dtype_promotion('strict'): a dtype, or None for TypePromotionError.
STRICT = {
    "i32+1.0": (lambda: tnp.ones(2, tnp.int32) + 1.0, None),
    "f32+1": (lambda: tnp.ones(2, tnp.float32) + 1, "float32"),
    "i32*f32": (lambda: tnp.ones(2, tnp.int32) * tnp.ones(2, tnp.float32), None),
    "u8+2": (lambda: tnp.ones(2, tnp.uint8) + 2, "uint8"),
    "f16*2.5": (lambda: tnp.ones(2, tnp.float16) * 2.5, "float16"),
    "concat": (lambda: tnp.concatenate([tnp.ones(2, tnp.int32), tnp.ones(2, tnp.float32)]), None),
}


@pytest.mark.parametrize("case", sorted(STRICT))
def test_strict_dtype_promotion_of_numpy_functions(case: str) -> None:
    fn, want = STRICT[case]
    with tx.numpy_dtype_promotion("strict"):
        if want is None:
            with pytest.raises(TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
                fn()
        else:
            assert str(fn().dtype) == want
    assert str((tnp.ones(2, tnp.int32) * tnp.ones(2, tnp.float32)).dtype) == "float32"


def test_default_matmul_precision_reaches_matmul() -> None:
    x = tnp.ones((2, 2))
    with tx.default_matmul_precision("float32"):
        text = str(tx.make_jaxpr(lambda a: a @ a)(x))
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in text
    assert "precision" not in str(tx.make_jaxpr(lambda a: a @ a)(x))


def test_rank_promotion_raise_refuses_implicit_rank_promotion() -> None:
    with tx.numpy_rank_promotion("raise"), pytest.raises(ValueError) as info:
        tnp.ones(3) + tnp.ones((2, 3))
    assert str(info.value).startswith(
        "Operands could not be broadcast together for add on shapes (3,) (2, 3) and with the "
        "config option jax_numpy_rank_promotion='raise'."
    )


def _devices_in_fresh_process(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if "NUM_CPU_DEVICES" not in k and k != "XLA_FLAGS"}
    out = subprocess.run(
        [sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_num_cpu_devices_flag_sizes_the_cpu_backend() -> None:
    code = (
        "import tessela as tx\n"
        "tx.config.update('jax_num_cpu_devices', 3)\n"
        "print(tx.config.jax_num_cpu_devices, len(tx.devices()))"
    )
    assert _devices_in_fresh_process(code) == "3 3"
    read = "import tessela as tx; print(tx.config.jax_num_cpu_devices, len(tx.devices()))"
    assert _devices_in_fresh_process(read, JAX_NUM_CPU_DEVICES="2") == "2 2"
    assert _devices_in_fresh_process(read) == "-1 1"
