"""``tree_map`` of a repeated structure of built-in containers, through its specialisation."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from typing import Any

import pytest
import tessela_pytree as tp
from hypothesis import given, settings
from tessela_pytree import _specialize
from tessela_pytree._registry import SPECS
from tessela_pytree.testing import pytrees

Point = collections.namedtuple("Point", "x y")


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    SPECS.clear()
    _specialize._last.clear()
    _specialize._compiles.clear()
    yield


def _check_map(tree: Any) -> None:
    calls: list[Any] = []
    ref_calls: list[Any] = []

    def f(x: Any) -> Any:
        calls.append(x)
        return (x,)

    def ref_f(x: Any) -> Any:
        ref_calls.append(x)
        return (x,)

    got = tp.tree_map(f, tree)
    want = tp.tree_map(ref_f, tree, is_leaf=lambda _: False)
    assert got == want
    assert tp.tree_structure(got) == tp.tree_structure(want)
    assert repr(got) == repr(want)
    assert len(calls) == len(ref_calls)
    assert all(a is b for a, b in zip(calls, ref_calls, strict=True))


@settings(max_examples=25, deadline=None)
@given(pytrees(), pytrees())
def test_map_after_a_specialisation(first: Any, second: Any) -> None:
    for _ in range(3):
        tp.tree_flatten(first)
    for _ in range(2):
        _check_map(first)
    _check_map(second)
    _check_map(first)


def test_built_in_structures_keep_a_treedef_for_map() -> None:
    tree = {"a": [1.0, (2.0, None)], "b": {3: 4.0, 5: 6.0}}
    for _ in range(3):
        tp.tree_flatten(tree)
    assert SPECS[dict][3] == tp.tree_structure(tree)
    for _ in range(3):  # the kept treedef compiles its rebuild on a repeat
        _check_map(tree)
    _check_map({"a": [1.0, (2.0, None)], "b": {3: 4.0, 5: [6.0]}})


@pytest.mark.parametrize(
    "tree",
    [
        {"a": Point(1.0, 2.0)},  # a namedtuple's class is called to rebuild it
        {"a": collections.OrderedDict(b=1.0)},
        {1.5: 1.0, 2.5: 2.0},  # float keys: their hash is computed again
    ],
)
def test_other_structures_map_through_their_handlers(tree: Any) -> None:
    for _ in range(3):
        tp.tree_flatten(tree)
    assert SPECS.get(dict, (None, None, None, None))[3] is None
    _check_map(tree)
