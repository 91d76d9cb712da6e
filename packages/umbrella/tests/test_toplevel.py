"""tessela.dtypes, tessela.typing and the top-level helpers (disable_jit, ensure_compile_time_eval, ...)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
import tessela.random as random
from tessela import dtypes


def test_disable_jit_runs_python_and_restores_the_flag() -> None:
    seen: list[type] = []

    @tx.jit
    def f(x: object) -> object:
        seen.append(type(x))
        return x

    with tx.disable_jit():
        assert tx.config.read("jax_disable_jit") is True
        f(1.0)
    assert tx.config.read("jax_disable_jit") is False
    assert seen == [float]


def test_ensure_compile_time_eval_gives_concrete_values_under_jit() -> None:
    @tx.jit
    def f(x: object) -> object:
        with tx.ensure_compile_time_eval():
            c = tnp.sum(tnp.arange(4.0))
            n = int(c)  # concrete: would raise on a tracer
            y = x * 2  # traced values are still traced
        return y + n

    assert float(f(1.0)) == 8.0
    assert "mul" in str(tx.make_jaxpr(f)(1.0))


def test_named_call_and_named_scope_leave_the_jaxpr_alone() -> None:
    def g(x: object) -> object:
        return x * 2

    plain = str(tx.make_jaxpr(g)(1.0))
    assert str(tx.make_jaxpr(tx.named_call(g, name="dbl"))(1.0)) == plain

    def h(x: object) -> object:
        with tx.named_scope("scope"):
            return g(x)

    assert str(tx.make_jaxpr(h)(1.0)) == plain
    with pytest.raises(TypeError, match="string"), tx.named_scope(3):  # type: ignore[arg-type]
        pass


def test_environment_and_process_info() -> None:
    text = tx.print_environment_info(return_string=True)
    assert text is not None and "tessela-tracer" in text and "numpy" in text
    assert tx.process_index() == 0 and tx.process_count() == 1
    assert tx.local_device_count() == tx.device_count() >= 1


def test_dtypes_extended_and_prng_key() -> None:
    key = random.key(0)
    assert dtypes.issubdtype(key.dtype, dtypes.prng_key)
    assert dtypes.issubdtype(key.dtype, dtypes.extended)
    assert not dtypes.issubdtype(key.dtype, np.integer)
    assert not dtypes.issubdtype(np.float32, dtypes.extended)
    assert dtypes.issubdtype(dtypes.bfloat16, np.floating)
    assert dtypes.itemsize_bits("int4") == 4 and dtypes.itemsize_bits(np.float64) == 64
    assert dtypes.scalar_type_of(np.bool_(True)) is bool
    assert dtypes.scalar_type_of(tnp.ones(2, "complex64")) is complex
    assert dtypes.canonicalize_dtype(np.int64) == np.int32


@pytest.mark.parametrize(
    "name",
    ["int1", "uint1", "int2", "uint2", "int4", "uint4", "float4_e2m1fn", "float6_e2m3fn",
     "float6_e3m2fn", "float8_e4m3fn", "float8_e8m0fnu", "bfloat16"],
)  # fmt: skip
def test_itemsize_bits_counts_the_bits_of_narrow_types(name: str) -> None:
    # ml_dtypes stores each of these in a whole byte (or two): its info knows the width.
    dt = np.dtype(getattr(ml_dtypes, name))
    info = ml_dtypes.iinfo(dt) if "int" in name else ml_dtypes.finfo(dt)
    assert dtypes.itemsize_bits(getattr(tnp, name)) == info.bits


@pytest.mark.parametrize("name", ["bool", "int8", "int16", "uint16", "int32", "float16",
                                  "float32", "complex64"])  # fmt: skip
def test_itemsize_bits_of_whole_byte_types(name: str) -> None:
    assert dtypes.itemsize_bits(name) == np.dtype(name).itemsize * 8


def test_typing_names() -> None:
    from tessela import typing as ttyping

    assert ttyping.Array is tx.Array
    assert set(ttyping.__all__) == {"Array", "ArrayLike", "DTypeLike"}


def test_block_until_ready_on_a_donated_array_raises_jax_runtime_error() -> None:
    x = tx.device_put(np.ones(3, np.float32))
    tx.jit(lambda v: v * 2, donate_argnums=0)(x)
    with pytest.raises(tx.errors.JaxRuntimeError):
        x.block_until_ready()
