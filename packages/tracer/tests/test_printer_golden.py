"""The printer's text equals JAX's for the shared programs."""

from __future__ import annotations

from typing import Any

import pytest
import tessela_tracer as tt
from programs import PROGRAMS, namespace
from tessela_tracer import check_jaxpr, lax

NS = namespace(tt, lax, tt.io_callback)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printer_matches_jax(name: str, golden: dict[str, Any]) -> None:
    fun, args = PROGRAMS[name](NS)
    closed = tt.make_jaxpr(fun)(*args)
    assert str(closed) == golden[name]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_programs_typecheck(name: str) -> None:
    fun, args = PROGRAMS[name](NS)
    check_jaxpr(tt.make_jaxpr(fun)(*args))
