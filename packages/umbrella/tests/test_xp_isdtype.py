"""``isdtype`` of the array API view and of ``tessela.numpy``, against JAX 0.10.2's ``jnp.isdtype``.

``golden/isdtype_cases.py`` crosses every dtype (the standard ones, the
ml_dtypes ones, object, timedelta64, ...) with every kind edge (names, unknown
names, tuples, dtype objects, ``None``, ...); ``golden/generate_isdtype.py``
wrote JAX's outcomes, exceptions included, to ``golden/isdtype_golden.json``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela.numpy as tnp
import tessela_numpy
from _golden import cases_module, load_json
from tessela import _xp

isdtype_cases = cases_module("isdtype_cases")
GOLDEN: dict[str, Any] = load_json("isdtype_golden.json")["cases"]
XP = isdtype_cases.run(_xp.namespace.isdtype)
TNP = isdtype_cases.run(tnp.isdtype)


def test_every_case_was_recorded() -> None:
    assert sorted(XP) == sorted(GOLDEN)


def _differences(got: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {case: (got[case], want) for case, want in GOLDEN.items() if got[case] != want}


def test_array_api_view_matches_jax() -> None:
    assert _differences(XP) == {}


def test_tessela_numpy_matches_jax() -> None:
    assert _differences(TNP) == {}


def test_unknown_kind_name_is_a_value_error_naming_kind() -> None:
    with pytest.raises(ValueError, match=r"kind='real'"):
        _xp.namespace.isdtype(np.float32, "real")
    with pytest.raises(TypeError, match=r"kind=3"):
        _xp.namespace.isdtype(np.float32, ("bool", 3))


def test_the_view_asks_tessela_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # One kind table: the view's answers come from tessela.numpy.isdtype.
    calls: list[tuple[Any, Any]] = []

    def spy(dtype: Any, kind: Any) -> bool:
        calls.append((dtype, kind))
        return True

    monkeypatch.setattr(tessela_numpy, "isdtype", spy)
    assert _xp.namespace.isdtype("int8", ("bool", "real floating"))
    assert calls == [("int8", ("bool",)), ("int8", ("real floating",))]
