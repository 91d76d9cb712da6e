"""Conformance: every recorded observation of jax.tree_util, replayed here."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

import pytest
import tessela_pytree as tp
import trees

_DIR = pathlib.Path(
    os.environ.get("TESSELA_GOLDEN_DIR") or pathlib.Path(__file__).parent / "golden"
)
_DATA: dict[str, Any] = json.loads((_DIR / "tree_util.json").read_text())
_SUFFIX = "\nThe mismatch is at key path "

# JAX 0.10.2 names every child of a namedtuple after its first field when it
# builds structure-error messages (``.x`` where the mismatch is under ``.y``).
# Key paths from tree_flatten_with_path are right in JAX; ours are right in
# both places, so these messages differ from JAX's by that one key.
_NAMEDTUPLE_KEY_FIX = {"nested_path": ("[0].x\n", "[0].y\n")}

trees.register(tp)


def _split_location(value: Any) -> tuple[Any, str | None]:
    """Our flatten_up_to messages add the key path; separate it out."""
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        message, sep, where = value["message"].partition(_SUFFIX)
        return {**value, "message": message}, (where if sep else None)
    return value, None


@pytest.mark.parametrize("name", sorted(_DATA["cases"]))
def test_case_matches_jax(name: str) -> None:
    ours = trees.record_case(trees.build(trees.CASES[name], tp), tp)
    expected = _DATA["cases"][name]
    assert sorted(ours) == sorted(expected)
    for field, want in expected.items():
        got, _ = _split_location(ours[field])
        assert got == want, field


@pytest.mark.parametrize("name", sorted(_DATA["mismatches"]))
def test_mismatch_matches_jax(name: str) -> None:
    a_spec, b_spec = trees.MISMATCHES[name]
    ours = trees.record_mismatch(trees.build(a_spec, tp), trees.build(b_spec, tp), tp)
    expected = _DATA["mismatches"][name]
    for field, want in expected.items():
        got, where = _split_location(ours[field])
        if name in _NAMEDTUPLE_KEY_FIX and field not in ("flatten_up_to", "equal"):
            jax_key, right_key = _NAMEDTUPLE_KEY_FIX[name]
            want = {**want, "message": want["message"].replace(jax_key, right_key)}
        assert got == want, field
        if field == "flatten_up_to":
            # Beyond JAX: the message also says where the trees differ.
            assert where is not None and "key path" not in where


def test_mismatch_messages_name_the_key_path() -> None:
    a_spec, b_spec = trees.MISMATCHES["nested_path"]
    a, b = trees.build(a_spec, tp), trees.build(b_spec, tp)
    with pytest.raises(ValueError, match=r"key path \['p'\]\[0\]\.y of the tree"):
        tp.tree_structure(a).flatten_up_to(b)
    with pytest.raises(ValueError, match=r"tree_map tree\['p'\]\[0\]\.y"):
        tp.tree_map(lambda x, y: x, a, b)


def test_misc_matches_jax() -> None:
    ours = trees.record_misc(tp)
    assert ours == _DATA["misc"]
