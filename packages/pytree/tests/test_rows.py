"""Rows that start with a registered dataclass: its row function against the reference."""

from __future__ import annotations

import dataclasses
from typing import Any

import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree._registry import HANDLERS


@tp.register_dataclass
@dataclasses.dataclass
class Cell:
    w: Any
    b: Any
    tag: str = dataclasses.field(default="c", metadata={"static": True})


@tp.register_dataclass
@dataclasses.dataclass
class Wide:
    f0: Any
    f1: Any
    f2: Any
    f3: Any
    f4: Any
    f5: Any
    f6: Any
    f7: Any
    f8: Any


def _reference(tree: Any) -> tuple[list[Any], tp.PyTreeDef]:
    return tp.tree_flatten(tree, is_leaf=lambda _: False)


MAKE = {
    "cell": lambda i: Cell(float(i), i, tag=str(i % 3)),
    "deep": lambda i: Cell([i, (i, None)], {"k": i}),
    "none_child": lambda i: Cell(None, i),
    "wide": lambda i: Wide(*range(i, i + 9)),
    "leaf": lambda i: float(i),
    "none": lambda i: None,
    "list": lambda i: [i, i],
}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(MAKE)), min_size=8, max_size=24))
def test_rows_starting_with_a_dataclass(kinds: list[str]) -> None:
    row = [Cell(0.0, 1.0)] + [MAKE[k](i) for i, k in enumerate(kinds)]
    tp.tree_leaves(Cell(1, 2))
    assert hasattr(HANDLERS[Cell], "row")
    for tree in (row, tuple(row), {"r": row}, [row, row]):
        for _ in range(2):  # the handlers exist from the first flatten on
            leaves, treedef = tp.tree_flatten(tree)
            ref_leaves, ref_treedef = _reference(tree)
            assert all(a is b for a, b in zip(leaves, ref_leaves, strict=True))
            assert treedef == ref_treedef
            assert treedef.unflatten(leaves) == tree


def test_a_row_of_wide_dataclasses_takes_their_handlers() -> None:
    row = [Wide(*range(i, i + 9)) for i in range(10)]
    tp.tree_leaves(row)
    assert not hasattr(HANDLERS[Wide], "row")  # more fields than the unrolled fast path reads
    assert tp.tree_flatten(row) == _reference(row)


def test_a_leaf_type_registered_later_is_a_node_in_small_containers() -> None:
    class Late:
        def __init__(self, v: Any) -> None:
            self.v = v

    trees = [[Late(1), Late(2)], {"a": Late(1), "b": Late(2)}, (Late(1),), Cell(Late(1), 2)]
    for _ in range(3):  # the small containers' checks have seen Late as a leaf
        for tree in trees:
            assert tp.tree_leaves(tree) == _reference(tree)[0]
    tp.register_pytree_node(Late, lambda o: ((o.v,), None), lambda _, c: Late(*c))
    assert [tp.tree_leaves(tree) for tree in trees] == [[1, 2], [1, 2], [1], [1, 2]]
