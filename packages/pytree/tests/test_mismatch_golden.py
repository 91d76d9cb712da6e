"""Structure-mismatch errors of flatten_up_to, tree_map and broadcast, against JAX 0.10.2."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import mismatch_cases
import pytest
import tessela_pytree as tp
import trees

_DATA: dict[str, Any] = json.loads(
    (pathlib.Path(__file__).parent / "golden" / "mismatches.json").read_text()
)
_SUFFIX = "\nThe mismatch is at key path "
_OURS = mismatch_cases.record(tp)


@pytest.mark.parametrize("name", sorted(_DATA["cases"]))
def test_mismatch_errors_match_jax(name: str) -> None:
    for field, want in _DATA["cases"][name].items():
        got = _OURS[name][field]
        if field == "flatten_up_to" and isinstance(got, dict):
            # Beyond JAX: flatten_up_to also names the key path where the trees differ.
            message, sep, _ = got["message"].partition(_SUFFIX)
            assert sep
            got = {**got, "message": message}
        assert got == want, field


def test_dict_key_mismatch_wording() -> None:
    mask, params = {"layer": [True, False]}, {"layer": [1.0, {"bias": 2.0}]}
    with pytest.raises(ValueError, match=r"Expected dict, got False\."):
        tp.tree_structure(params).flatten_up_to(mask)
    with pytest.raises(
        ValueError,
        match=r"Dict key mismatch; expected keys: \['a'\]; present keys: \['a', 'b'\]\.",
    ):
        tp.tree_structure({"a": 0}).flatten_up_to({"a": 1, "b": 2})
    with pytest.raises(ValueError, match="different numbers of pytree children"):
        tp.tree_map(lambda m, p: p, {"a": True}, {"a": 1, "b": 2})


def test_dataclass_type_mismatch_names_the_dataclass() -> None:
    param = trees.build(("param", 1, 2, "n"), tp)
    box = trees.build(("box", "m", [1, 2]), tp)
    with pytest.raises(ValueError, match=r"^Custom dataclass node type mismatch"):
        tp.tree_structure(param).flatten_up_to({"w": 1, "b": 2})
    with pytest.raises(ValueError, match=r"^Custom node type mismatch"):
        tp.tree_structure(box).flatten_up_to([1, 2])
