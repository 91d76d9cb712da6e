"""The printer's text equals JAX's for the shared programs."""

from __future__ import annotations

import types
from typing import Any

import pytest
import tessela_tracer as tt
from programs import PROGRAMS
from tessela_tracer import check_jaxpr, lax

NS = types.SimpleNamespace(
    lax=lax,
    jit=tt.jit,
    custom_jvp=tt.custom_jvp,
    custom_vjp=tt.custom_vjp,
    checkpoint=tt.checkpoint,
    pure_callback=tt.pure_callback,
    io_callback=tt.io_callback,
    ShapeDtypeStruct=tt.ShapeDtypeStruct,
)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printer_matches_jax(name: str, golden: dict[str, Any]) -> None:
    fun, args = PROGRAMS[name](NS)
    closed = tt.make_jaxpr(fun)(*args)
    assert str(closed) == golden[name]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_programs_typecheck(name: str) -> None:
    fun, args = PROGRAMS[name](NS)
    check_jaxpr(tt.make_jaxpr(fun)(*args))
