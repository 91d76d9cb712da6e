"""Promotion and limits of the narrow ml_dtypes types, against JAX 0.10.2.

The golden data comes from ``golden/narrow_dtypes.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest
from tessela_tracer import dtypes
from tessela_tracer.lax import DotAlgorithmPreset

GOLDEN: dict[str, Any] = json.loads(
    (pathlib.Path(__file__).parent / "golden" / "narrow_dtypes.json").read_text()
)
DOT_F8_OUTPUTS: list[str] = GOLDEN.pop("dot_any_f8_outputs")
OTHERS: dict[str, object] = {
    "float32": np.float32, "bfloat16": dtypes.bfloat16, "int8": np.int8,
    "float8_e4m3fn": dtypes.float8_e4m3fn, "int4": dtypes.int4, "bool": np.bool_,
    "py_int": 1, "py_float": 1.0, "py_complex": 1j, "py_bool": True,
}  # fmt: skip
CASES = [(name, other) for name in sorted(GOLDEN) for other in sorted(OTHERS)]


@pytest.mark.parametrize(("name", "other"), CASES)
def test_result_type_matches_jax(name: str, other: str) -> None:
    dt = getattr(dtypes, name)
    want: str = GOLDEN[name]["result_type"][other]
    if want.startswith("TypePromotionError"):
        kind = want.split(": ")[1]
        with pytest.raises(dtypes.TypePromotionError, match=kind):
            dtypes.result_type(dt, OTHERS[other])
    else:
        assert str(dtypes.result_type(dt, OTHERS[other])) == want
        assert str(dtypes.result_type(OTHERS[other], dt)) == want


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_limits_match_jax(name: str) -> None:
    dt = getattr(dtypes, name)
    if "finfo" in GOLDEN[name]:
        fi = dtypes.finfo(dt)
        got = {f: float(getattr(fi, f)) for f in GOLDEN[name]["finfo"]}
        assert got == GOLDEN[name]["finfo"]
        assert dtypes.issubdtype(dt, np.floating)
        assert not dtypes.issubdtype(dt, np.integer)
    else:
        ii = dtypes.iinfo(dt)
        assert {f: int(getattr(ii, f)) for f in GOLDEN[name]["iinfo"]} == GOLDEN[name]["iinfo"]
        signed = GOLDEN[name]["iinfo"]["min"] < 0
        assert dtypes.issubdtype(dt, np.signedinteger) is signed
        assert dtypes.issubdtype(dt, np.unsignedinteger) is not signed


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_narrow_types_promote_only_with_themselves(name: str) -> None:
    dt = getattr(dtypes, name)
    assert dtypes.promote_types(dt, dt) == dt
    assert dtypes.result_type(dt, dt) == dt
    assert dtypes.dtype(name) == dt


def test_the_f8_dot_algorithms_take_the_older_float8_types_only() -> None:
    f8 = dtypes.float8_e4m3fn
    outs = DotAlgorithmPreset.ANY_F8_ANY_F8_F32.supported_output_types(f8, f8)
    assert outs is not None
    assert sorted(np.dtype(t).name for t in outs) == DOT_F8_OUTPUTS
    assert "float8_e4m3" not in DOT_F8_OUTPUTS
