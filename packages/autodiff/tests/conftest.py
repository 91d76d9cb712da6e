"""Shared fixtures: eager numerics through tessela-lowering, float64 on demand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tessela_lowering  # noqa: F401  (registers eager implementations)
from tessela_tracer import config


def _enable_x64() -> Iterator[None]:
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)


x64 = pytest.fixture(_enable_x64, name="x64")
"""float64 for one test."""

x64_module = pytest.fixture(_enable_x64, name="x64_module", scope="module")
"""float64 for every test of a module (``pytestmark = pytest.mark.usefixtures("x64_module")``)."""
