"""``zeros``, ``ones``, ``full``, ``empty`` and their ``*_like`` with a PRNG key dtype, against JAX.

``golden/key_fill.json`` (made by ``golden/generate_key_fill.py`` under JAX)
records, for each expression of ``golden/key_fill_cases.py``, the exception
class JAX raises, or the keys it makes (a scalar fill value fills every data
word of every key, converted to ``uint32``; a key fill value is repeated),
eagerly and under ``jit``, and the jaxpr.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from tessela_lowering import jit
from tessela_tracer import make_jaxpr
from tessela_tracer.extend import random_unwrap, random_wrap

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

from key_fill_cases import CASES, outcomes  # noqa: E402

GOLDEN = json.loads((GOLDEN_DIR / "key_fill.json").read_text())["cases"]


def _wrap(data: Any) -> Any:
    return jit(random_wrap)(np.asarray(data, np.uint32))


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return outcomes(tnp, _wrap, random_unwrap, jit, make_jaxpr)


def test_every_case_recorded() -> None:
    assert sorted(GOLDEN) == sorted(CASES)


@pytest.mark.parametrize("src", CASES)
def test_matches_jax(src: str, ours: dict[str, Any]) -> None:
    assert ours[src] == GOLDEN[src]


def test_key_dtype_on_like_names_the_fix() -> None:
    key = _wrap([0, 1])
    with pytest.raises(TypeError, match="zeros_like takes a key dtype only from its argument"):
        tnp.zeros_like(np.ones(2), dtype=key.dtype)


def test_array_fill_of_numbers_is_refused() -> None:
    key = _wrap([0, 1])
    with pytest.raises(TypeError, match="cannot fill an array of key dtype"):
        tnp.full(3, np.ones(2, np.uint32), key.dtype)
