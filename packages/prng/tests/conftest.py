"""Shared fixtures: golden data location and a clean configuration per test."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tessela_prng as tr

GOLDEN_FILE = "prng_golden.json"
# The golden generator's case codec (``golden/case_codec.py``) replays cases here too.
sys.path.insert(0, str(Path(__file__).parent / "golden"))


def golden_path() -> Path:
    root = os.environ.get("TESSELA_GOLDEN_DIR")
    base = Path(root) if root else Path(__file__).parent / "golden"
    return base / GOLDEN_FILE


def load_golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden_path().read_text())
    return data


@pytest.fixture(autouse=True)
def _restore_config() -> Iterator[None]:
    part = tr.config.threefry_partitionable
    x64 = tr.config.enable_x64
    yield
    tr.config.update("jax_threefry_partitionable", part)
    tr.config.update("jax_enable_x64", x64)
