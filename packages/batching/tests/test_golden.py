"""Printed jaxprs of vmapped programs equal the reference's text (golden data)."""

from __future__ import annotations

import json
import os
import re
import sys
import types
from pathlib import Path

import pytest
from tessela_batching import vmap
from tessela_tracer import lax, make_jaxpr

HERE = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(HERE))
import programs  # noqa: E402

GOLDEN = Path(os.environ.get("TESSELA_GOLDEN_DIR", HERE)) / "jaxprs.json"
EXPECTED = json.loads(GOLDEN.read_text())


def _normalize(text: str) -> str:
    # NumPy 2 integer reprs inside the reference's params print as np.int64(1).
    return re.sub(r"np\.int\d+\((-?\d+)\)", r"\1", text)


@pytest.mark.parametrize("case", programs.CASES, ids=lambda c: c.__name__)
def test_jaxpr_text_matches_reference(case):
    f, args = case(types.SimpleNamespace(lax=lax, vmap=vmap))
    assert str(make_jaxpr(f)(*args)) == _normalize(EXPECTED[case.__name__])
