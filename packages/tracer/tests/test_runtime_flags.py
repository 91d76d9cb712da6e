"""The tracer's ``jax_no_tracing``, ``jax_no_execution``, ``jax_enable_checks`` and
``jax_allow_f16_reductions`` flags, and the debug effect classes."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import config, jit, lax, make_jaxpr
from tessela_tracer.extend import (
    DebugEffect,
    Effect,
    OrderedDebugEffect,
    debug_effect,
    ordered_debug_effect,
)
from tessela_tracer.primitives import reduce_sum_p


def add_one(x: object) -> object:
    return lax.add(x, np.float32(1))


def test_no_tracing_refuses_a_jit_cache_miss() -> None:
    f = jit(add_one)
    make_jaxpr(f)(np.float32(1))
    config.update("jax_no_tracing", True)
    try:
        make_jaxpr(f)(np.float32(2))  # cached: no trace of add_one
        with pytest.raises(RuntimeError) as info:
            make_jaxpr(f)(np.ones(3, np.float32))
    finally:
        config.update("jax_no_tracing", False)
    code = add_one.__code__
    assert str(info.value) == (
        f"re-tracing function add_one at {code.co_filename}:{code.co_firstlineno} for `jit`, "
        "but 'no_tracing' is set"
    )


def identity(x: object) -> object:
    return x


def test_no_execution_refuses_concrete_jit_calls_only() -> None:
    f = jit(identity)
    config.update("jax_no_execution", True)
    try:
        assert "add" in str(make_jaxpr(jit(add_one))(np.float32(1)))
        with pytest.raises(RuntimeError, match=r"execute function jit\(identity\), but the no_exe"):
            f(np.float32(1))
    finally:
        config.update("jax_no_execution", False)
    assert float(f(np.float32(1))) == 1.0  # evaluated again (no primitive to run)


def test_enable_checks_runs_the_jaxpr_checker() -> None:
    config.update("jax_enable_checks", True)
    try:
        assert "sin" in str(make_jaxpr(lax.sin)(np.float32(1)))
    finally:
        config.update("jax_enable_checks", False)


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_f16_reductions_refused_when_disallowed(dtype: object) -> None:
    x = np.ones((2, 3), dtype)  # type: ignore[call-overload]
    assert make_jaxpr(lambda v: reduce_sum_p.bind(v, axes=(1,)))(x) is not None
    config.update("jax_allow_f16_reductions", False)
    try:
        with pytest.raises(ValueError, match=r"reduce_sum on operand b?f16\[2,3\] is not allowed"):
            make_jaxpr(lambda v: reduce_sum_p.bind(v, axes=(1,)))(x)
        ones = np.ones((1, 3), dtype)  # type: ignore[call-overload]
        make_jaxpr(lambda v: reduce_sum_p.bind(v, axes=(0,)))(ones)  # size-one axis
        make_jaxpr(lambda v: reduce_sum_p.bind(v, axes=(1,)))(x.astype(np.float32))
    finally:
        config.update("jax_allow_f16_reductions", True)


def test_debug_effect_classes() -> None:
    assert isinstance(debug_effect, DebugEffect) and isinstance(debug_effect, Effect)
    assert isinstance(ordered_debug_effect, OrderedDebugEffect)
    assert not isinstance(ordered_debug_effect, DebugEffect)  # as in JAX
    assert (str(debug_effect), ordered_debug_effect.ordered) == ("Debug", True)
