"""Constants cast by ``lax.convert_element_type`` and ``astype`` under ``jit``, ``vmap`` and ``grad``.

``golden/cast_transform.json`` (made by ``golden/generate_cast_transform.py``
under JAX 0.10.2) records, for each case of ``golden/cast_transform_cases.py``,
what the function saw (a tracer under ``jit``, a concrete array under
``vmap`` and ``grad``, with JAX's dtype and weak type) and what it returned:
under ``jit`` a cast scalar constant folds with NumPy's cast (``300.0`` to
int8 is 44), under ``vmap`` and ``grad`` it is converted as XLA converts (127).
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import pytest
import tessela_numpy as tnp
from tessela_autodiff import grad
from tessela_batching import vmap
from tessela_lowering import jit
from tessela_tracer import Tracer, lax

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

from cast_transform_cases import CASES, outcomes  # noqa: E402

GOLDEN = json.loads((GOLDEN_DIR / "cast_transform.json").read_text())["cases"]


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return outcomes(lax, tnp, jit, vmap, grad, lambda v: isinstance(v, Tracer))


def test_every_case_recorded() -> None:
    assert sorted(GOLDEN) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("where", ["jit", "vmap", "grad"])
def test_matches_jax(name: str, where: str, ours: dict[str, Any]) -> None:
    assert ours[name][where] == GOLDEN[name][where]
