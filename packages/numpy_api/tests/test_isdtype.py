"""``isdtype`` against JAX for every dtype, the narrow ``ml_dtypes`` types included.

``golden/isdtype.json`` (made by ``golden/generate_isdtype.py`` under JAX)
holds, per dtype, whether each array API kind name, the dtype itself and two
tuples of kinds hold: ``float8_*`` and ``float4_*`` are "real floating",
``int2``/``int4`` "signed integer", all of them "numeric".
"""

from __future__ import annotations

import json
import pathlib

import ml_dtypes
import numpy as np
import pytest
import tessela_numpy as tnp

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "isdtype.json").read_text())
_TUPLES = {
    "(bool, float32)": ("bool", np.float32),
    "(integral, complex floating)": ("integral", "complex floating"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN["isdtype"]))
def test_matches_jax(name: str) -> None:
    dt = getattr(ml_dtypes, name, None) or np.dtype(name)
    got = {kind: tnp.isdtype(dt, kind) for kind in GOLDEN["kinds"]}
    got["itself"] = tnp.isdtype(dt, dt)
    got.update({label: tnp.isdtype(dt, kinds) for label, kinds in _TUPLES.items()})
    assert got == GOLDEN["isdtype"][name]


def test_unknown_kind_name_raises() -> None:
    with pytest.raises(ValueError, match="Unrecognized kind='floating'"):
        tnp.isdtype(np.float32, "floating")


def test_every_kind_of_a_tuple_is_checked() -> None:
    # A match on the first kind does not hide an unknown later one.
    with pytest.raises(ValueError, match="Unrecognized kind='foo'"):
        tnp.isdtype(np.bool_, ("bool", "foo"))
    with pytest.raises(TypeError, match="got kind=3"):
        tnp.isdtype(np.int8, ("integral", 3))


@pytest.mark.parametrize("kind", ["signed integer", "integral", "numeric"])
def test_time_and_object_dtypes_are_no_numbers(kind: str) -> None:
    # NumPy files timedelta64 under its signed integers; the array API kinds do not.
    for dt in (np.dtype("m8[s]"), np.dtype("M8[s]"), np.dtype(object)):
        assert not tnp.isdtype(dt, kind)
    assert tnp.isdtype(np.dtype("m8[s]"), np.dtype("m8[s]"))
