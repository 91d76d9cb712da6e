"""Creation functions on host data under ``jit``, ``vmap`` and ``grad``, against JAX.

``golden/traced_const.json`` (made by ``golden/generate_traced_const.py``
under JAX) records, for each expression of ``golden/traced_const_cases.py``,
what JAX gives: a tracer of the jaxpr under ``jit`` (a literal for a scalar,
a constant input for an array) with JAX's dtype and weak type, the methods
and ``.at`` of an array, conversions of known scalars folded as JAX folds
them (``asarray(300.0).astype(int8)`` is 44 under ``jit``), and a concrete
array under ``vmap`` and ``grad``, whose constants are not traced.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from tessela_autodiff import grad
from tessela_batching import vmap
from tessela_lowering import jit
from tessela_tracer import Tracer, make_jaxpr

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

from traced_const_cases import CASES, nested_jaxprs, outcomes  # noqa: E402

_DATA = json.loads((GOLDEN_DIR / "traced_const.json").read_text())
GOLDEN = _DATA["cases"]
_KIND = {"ArrayImpl": "Array"}


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return outcomes(tnp, jit, vmap, grad, make_jaxpr, lambda v: isinstance(v, Tracer))


def test_every_case_recorded() -> None:
    assert sorted(GOLDEN) == sorted(CASES)


@pytest.mark.parametrize("src", CASES)
def test_matches_jax(src: str, ours: dict[str, Any]) -> None:
    want, got = GOLDEN[src], ours[src]
    assert "error" not in got, got
    for where in ("jit", "vmap", "grad"):
        w = dict(want[where], kind=_KIND.get(want[where]["kind"], want[where]["kind"]))
        assert got[where] == w, where
    assert got["value_dtype"] == want["value_dtype"]
    if want["value"] is not None:
        np.testing.assert_array_equal(got["value"], want["value"])
    assert got["jaxpr"] == want["jaxpr"]


def test_constants_made_under_vmap_and_grad_inside_a_jaxpr() -> None:
    got = nested_jaxprs(tnp, vmap, grad, make_jaxpr)
    want = _DATA["nested"]
    assert got["grad_const"] == want["grad_const"]
    assert got["vmap_astype"] == want["vmap_astype"]  # folded: 44:i8[]
    # The batching rule orders its broadcasts differently from JAX's; the
    # constants are JAX's: a literal and a constvar, no staged device_put.
    assert "device_put" not in got["vmap_consts"]
    assert got["vmap_consts"].startswith("{ lambda a:f32[2]; b:f32[2]. let")
    assert "c:f32[2] = mul b 2.0:f32[]" in got["vmap_consts"]
    assert "c:f32[2] = mul b 2.0:f32[]" in want["vmap_consts"]
