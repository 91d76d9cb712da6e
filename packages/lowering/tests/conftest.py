"""Shared settings and fixtures for the tessela_lowering tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from tessela_tracer import config

settings.register_profile(
    "tessela",
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("tessela")


@pytest.fixture
def x64() -> Iterator[None]:
    """Run a test with 64-bit types enabled, turning them off after."""
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)


@pytest.fixture(params=[np.float32, np.float64], ids=["f32", "f64"])
def dtype(request: pytest.FixtureRequest) -> Iterator[Any]:
    """float32, then float64 with 64-bit types enabled (turned off after)."""
    config.update("jax_enable_x64", request.param is np.float64)
    try:
        yield request.param
    finally:
        config.update("jax_enable_x64", False)


@pytest.fixture
def flag() -> Iterator[Any]:
    """``flag(name, value)`` sets a config flag; each goes back to its value before, after."""
    changed: list[tuple[str, Any]] = []

    def set_flag(name: str, value: Any) -> None:
        changed.append((name, config.read(name)))
        config.update(name, value)

    yield set_flag
    for name, before in reversed(changed):
        config.update(name, before)
