"""``make_jaxpr(grad(f))`` text equals the reference's (cotangent sums print as ``add``)."""

from __future__ import annotations

import json
import os
import pathlib
import sys

import pytest
from tessela_autodiff import grad
from tessela_tracer import lax, make_jaxpr

_HERE = pathlib.Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(_HERE))
from programs import CASES  # noqa: E402

_DIR = pathlib.Path(os.environ.get("TESSELA_GOLDEN_DIR", _HERE))
_GOLDEN = json.loads((_DIR / "grad_jaxprs.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_jaxpr_matches_reference(name: str) -> None:
    fun, args = CASES[name](lax)
    text = str(make_jaxpr(grad(fun, argnums=tuple(range(len(args)))))(*args))
    assert text == _GOLDEN[name].replace(" add_any ", " add ")
