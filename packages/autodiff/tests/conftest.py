"""Shared fixtures: eager numerics through tessela-lowering, float64 on demand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tessela_lowering  # noqa: F401  (registers eager implementations)
from tessela_tracer import config


@pytest.fixture
def x64() -> Iterator[None]:
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)
