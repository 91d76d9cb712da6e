from __future__ import annotations

import json
import os
import pathlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from tessela_tracer import config

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "golden"))


def load_golden(filename: str) -> Any:
    """Read a golden file from $TESSELA_GOLDEN_DIR, else from tests/golden."""
    root = pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR", HERE / "golden"))
    path = root / filename if (root / filename).exists() else HERE / "golden" / filename
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    return load_golden("jaxprs.json")["jaxprs"]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def golden_dtypes() -> dict[str, Any]:
    return load_golden("dtypes.json")  # type: ignore[no-any-return]


@pytest.fixture
def x64() -> Iterator[None]:
    """Run a test with 64-bit types enabled, restoring the flag after."""
    before = config.jax_enable_x64
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", before)
