"""Wide rows of sibling nodes take a batched flattening path; it must agree."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import pytest
import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree.testing import pytrees

Pair = collections.namedtuple("Pair", "a b")


@tp.register_dataclass
@dataclasses.dataclass
class Unit:
    v: Any
    tag: str = dataclasses.field(default="u", metadata={"static": True})


@tp.register_dataclass
@dataclasses.dataclass
class Empty:
    tag: str = dataclasses.field(default="e", metadata={"static": True})


def reference(tree: Any) -> tuple[list[Any], tp.PyTreeDef]:
    # the is_leaf traversal visits every node one by one
    return tp.tree_flatten(tree, is_leaf=lambda x: False)


WIDE: list[Any] = [
    [Pair(i, -i) for i in range(20)],
    [Pair(i, [i]) for i in range(20)],
    [Pair(i, None) for i in range(10)],
    [[i, i + 1, i + 2][: i % 4] for i in range(30)],
    [(i,) * (i % 3) for i in range(12)],
    [{"b": i, "a": -i, "c": str(i)} for i in range(16)],
    [{"b": i} if i % 2 else {"a": i, "z": i} for i in range(16)],
    [{"b": i, "a": {"x": i}} for i in range(16)],
    [{} for _ in range(9)],
    [Unit(float(i), f"t{i % 3}") for i in range(25)],
    [Unit((i, i)) for i in range(25)],
    [Empty() for _ in range(10)],
    [Pair(1, 2)] * 7 + [Unit(3)],
    [Unit(1)] * 9 + [Pair(1, 2)],
    {"k": [Pair(i, i) for i in range(8)], "j": tuple([i] for i in range(8))},
    [[list(range(i, i + 3)) for i in range(9)] for _ in range(9)],
]


@pytest.mark.parametrize("tree", WIDE, ids=range(len(WIDE)))
def test_wide_rows_flatten_like_node_by_node(tree: Any) -> None:
    leaves, treedef = tp.tree_flatten(tree)
    want_leaves, want_def = reference(tree)
    assert leaves == want_leaves
    assert [type(x) for x in leaves] == [type(x) for x in want_leaves]
    assert treedef == want_def
    assert repr(treedef) == repr(want_def)
    assert treedef.num_leaves == len(leaves)
    assert tp.tree_unflatten(treedef, leaves) == tree


def test_wide_row_of_dicts_with_unsortable_keys_raises() -> None:
    row = [{1: "a", "x": "b"} for _ in range(10)]
    with pytest.raises(ValueError, match="Comparator raised exception"):
        tp.tree_flatten(row)


@settings(max_examples=60, deadline=None)
@given(st.lists(pytrees(), min_size=8, max_size=12))
def test_random_wide_rows(row: list[Any]) -> None:
    leaves, treedef = tp.tree_flatten(row)
    want_leaves, want_def = reference(row)
    assert treedef == want_def
    assert len(leaves) == len(want_leaves)
    assert all(a is b for a, b in zip(leaves, want_leaves, strict=True))
