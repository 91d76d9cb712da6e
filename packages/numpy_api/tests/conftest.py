"""Shared fixtures: golden data location and the case list."""

from __future__ import annotations

import json
import os
import pathlib
import sys
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("tessela-numpy", database=None, deadline=None, derandomize=True)
settings.load_profile("tessela-numpy")

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))


def golden_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR", GOLDEN_DIR)) / "numpy_api.json"


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden_path().read_text())
    return data
