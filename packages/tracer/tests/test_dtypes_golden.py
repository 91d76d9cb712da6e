"""Type promotion, weak types and machine limits agree with JAX's tables."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tessela_tracer import config, dtypes

PY_TYPES = {"py:bool": bool, "py:int": int, "py:float": float, "py:complex": complex}
PY_VALUES = {"py:bool": True, "py:int": 1, "py:float": 1.0, "py:complex": 1j}


def _mismatches(table: dict[str, list[Any]]) -> list[str]:
    bad = []
    for key, (promoted, result, weak) in sorted(table.items()):
        a, b = key.split("|")
        ta, tb = PY_TYPES.get(a, a), PY_TYPES.get(b, b)
        va = PY_VALUES[a] if a in PY_VALUES else dtypes.dtype(a)
        vb = PY_VALUES[b] if b in PY_VALUES else dtypes.dtype(b)
        try:
            got_p: str | None = str(dtypes.promote_types(ta, tb))
        except dtypes.TypePromotionError:
            got_p = None
        if got_p != promoted:
            bad.append(f"promote_types({a}, {b}) = {got_p}, JAX: {promoted}")
        try:
            dt, w = dtypes.result_type(va, vb, return_weak_type_flag=True)
            got_r: list[Any] = [str(dt), bool(w)]
        except dtypes.TypePromotionError:
            got_r = [None, None]
        if got_r != [result, weak]:
            bad.append(f"result_type({a}, {b}) = {got_r}, JAX: {[result, weak]}")
    return bad


def test_promotion_table_x32(golden_dtypes: dict[str, Any]) -> None:
    assert not config.jax_enable_x64
    bad = _mismatches(golden_dtypes["x32"])
    assert not bad, "\n".join(bad)


@pytest.mark.usefixtures("x64")
def test_promotion_table_x64(golden_dtypes: dict[str, Any]) -> None:
    bad = _mismatches(golden_dtypes["x64"])
    assert not bad, "\n".join(bad)


def test_table_covers_every_pair(golden_dtypes: dict[str, Any]) -> None:
    names = [*PY_TYPES, *golden_dtypes["dtypes"]]
    assert len(golden_dtypes["x32"]) == len(names) ** 2


@pytest.mark.parametrize(
    "name",
    ["bfloat16", "float16", "float32", "float64", "float8_e4m3fn", "float8_e5m2",
     "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz"],
)  # fmt: skip
def test_finfo_matches_jax(name: str, golden_dtypes: dict[str, Any]) -> None:
    want = golden_dtypes["limits"][name]
    fi = dtypes.finfo(name)
    for field, value in want.items():
        got = getattr(fi, field)
        if isinstance(value, int):
            assert int(got) == value, field
        else:
            assert float(got) == value, field


@pytest.mark.parametrize(
    "name", ["int4", "uint4", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
             "uint64"]
)  # fmt: skip
def test_iinfo_matches_jax(name: str, golden_dtypes: dict[str, Any]) -> None:
    want = golden_dtypes["limits"][name]
    ii = dtypes.iinfo(name)
    assert (int(ii.bits), int(ii.min), int(ii.max)) == (want["bits"], want["min"], want["max"])


def test_promotion_is_symmetric(golden_dtypes: dict[str, Any]) -> None:
    names = golden_dtypes["dtypes"]
    for a in names:
        for b in names:
            try:
                ab = dtypes.promote_types(a, b)
            except dtypes.TypePromotionError:
                with pytest.raises(dtypes.TypePromotionError):
                    dtypes.promote_types(b, a)
                continue
            assert ab == dtypes.promote_types(b, a), (a, b)


def test_promotion_error_names_the_fix() -> None:
    with pytest.raises(dtypes.TypePromotionError, match="astype"):
        dtypes.promote_types(np.dtype("int4"), np.float16)


# jnp.issubdtype under JAX 0.10.2 for the ml_dtypes types, against each kind.
_KINDS = (
    np.integer, np.floating, np.complexfloating, np.signedinteger, np.unsignedinteger,
    np.number, np.inexact, np.generic, np.float32,
)  # fmt: skip
_JAX_ISSUBDTYPE = {
    "bfloat16": (False, True, False, False, False, True, True, True, False),
    "int4": (True, False, False, True, False, True, False, True, False),
    "uint4": (True, False, False, False, True, True, False, True, False),
    "float8_e4m3fn": (False, True, False, False, False, True, True, True, False),
}


@pytest.mark.parametrize("name", sorted(_JAX_ISSUBDTYPE))
def test_issubdtype_of_ml_dtypes_matches_jax(name: str) -> None:
    dt = dtypes.dtype(name)
    assert tuple(dtypes.issubdtype(dt, k) for k in _KINDS) == _JAX_ISSUBDTYPE[name]
    assert dtypes.issubdtype(dt, dt) and dtypes.issubdtype(name, name)
