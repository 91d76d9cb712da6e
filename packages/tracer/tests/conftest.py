from __future__ import annotations

import json
import os
import pathlib
import sys
from typing import Any

import pytest

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "golden"))


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    root = pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR", HERE / "golden"))
    path = (
        root / "jaxprs.json" if (root / "jaxprs.json").exists() else HERE / "golden" / "jaxprs.json"
    )
    return json.loads(path.read_text())["jaxprs"]  # type: ignore[no-any-return]
