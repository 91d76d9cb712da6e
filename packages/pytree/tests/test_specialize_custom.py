"""Specialised flattening of structures with custom nodes: same results, same calls.

A specialised function calls the custom nodes' flatten functions itself; when a
later tree fails its checks, the replay must finish the flattening without
calling any flatten function twice, in the generic path's order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree import _specialize
from tessela_pytree._registry import SPECS
from tessela_pytree.testing import pytrees

flatten_calls: list[int] = []  # ids of the nodes whose flatten function ran, in order
AUX = ("tag",)


class Node:
    def __init__(self, children: Any, aux: Any = AUX, lazy: bool = False) -> None:
        self.children = children
        self.aux = aux
        self.lazy = lazy  # flatten gives an iterator over the children

    def __eq__(self, other: object) -> bool:
        return type(other) is Node and list(other.children) == list(self.children)

    def __repr__(self) -> str:
        return f"Node({self.children!r})"


def _flatten(node: Node) -> tuple[Any, Any]:
    flatten_calls.append(id(node))
    return iter(node.children) if node.lazy else node.children, node.aux


tp.register_pytree_node(Node, _flatten, lambda _, c: Node(list(c)))


class Fresh:
    """A custom node whose aux data is a new (equal) object every call."""

    def __init__(self, v: Any) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        return type(other) is Fresh and other.v == self.v


tp.register_pytree_node(Fresh, lambda f: ((f.v,), ("f", [1][0])), lambda _, c: Fresh(*c))


@tp.register_dataclass
@dataclasses.dataclass
class Holder:
    table: Any
    node: Any


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    SPECS.clear()
    _specialize._last.clear()
    _specialize._compiles.clear()
    yield


def _reference(tree: Any) -> tuple[list[Any], tp.PyTreeDef, list[int]]:
    """The is_leaf traversal (no handlers, no specialisation) and its flatten calls."""
    flatten_calls.clear()
    leaves, treedef = tp.tree_flatten(tree, is_leaf=lambda _: False)
    return leaves, treedef, list(flatten_calls)


def _check(tree: Any) -> None:
    """Every entry point agrees with the reference, flatten calls included."""
    ref_leaves, ref_treedef, ref_calls = _reference(tree)
    flatten_calls.clear()
    leaves, treedef = tp.tree_flatten(tree)
    assert flatten_calls == ref_calls
    assert all(a is b for a, b in zip(leaves, ref_leaves, strict=True))
    assert treedef == ref_treedef
    assert repr(treedef) == repr(ref_treedef)
    assert hash(treedef) == hash(ref_treedef)
    flatten_calls.clear()
    assert tp.tree_leaves(tree) == ref_leaves
    assert flatten_calls == ref_calls


def _learn(tree: Any, root: type[Any]) -> Any:
    for _ in range(_specialize.CUSTOM_REPEATS + 1):
        _check(tree)
    assert root in SPECS
    return SPECS[root][0]


def _base() -> Any:
    return Node([Node([1.0, 2.0]), [3.0, Node((4.0, None))], 5.0])


def test_custom_nodes_are_specialised_after_repeats() -> None:
    tree = _base()
    for _ in range(_specialize.CUSTOM_REPEATS):  # a first sight, then repeats
        tp.tree_flatten(tree)
    assert Node not in SPECS
    tp.tree_flatten(tree)
    assert Node in SPECS
    spec = _learn(tree, Node)
    flatten_calls.clear()
    assert spec(tree) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert len(flatten_calls) == 3
    treedef = tp.tree_structure(_base())
    assert treedef.node_data()[1] is AUX  # the very aux object, as the generic path keeps


@pytest.mark.parametrize(
    "other",
    [
        Node([Node([1.0, Node([2.0])]), [3.0, Node((4.0, None))], 5.0]),  # a leaf became a node
        Node([Node([1.0, 2.0]), [Node([3.0]), Node((4.0, None))], 5.0]),  # before a custom node
        Node([Node([1.0, 2.0, 2.5]), [3.0, Node((4.0, None))], 5.0]),  # more children
        Node([Node([1.0, 2.0]), [3.0, Node((4.0, 0.0))], 5.0]),  # None became a leaf
        Node([Node([1.0, 2.0]), [3.0, Node((4.0, None))], 5]),  # another leaf type
        Node([Node([1.0, 2.0]), (3.0, Node((4.0, None))), 5.0]),  # list became tuple
        Node([Node([1.0, 2.0]), [3.0, Node((4.0, None), ("tag",))], 5.0]),  # equal aux
        Node([Node([1.0, 2.0], lazy=True), [3.0, Node((4.0, None))], 5.0]),  # an iterator
        Node([Node([1.0, 2.0]), [3.0, {"b": Node([4.0]), "a": None}], 5.0]),  # a dict
        Node([Node([1.0, 2.0]), [3.0, Fresh(Node([4.0]))], 5.0]),  # another custom type
        Node([[1.0, 2.0], [3.0, Node((4.0, None))], 5.0]),  # a node became a list
        Node([Node([Node([Node([1.0])])])]),  # deeper everywhere
        [1.0],  # another root type
    ],
)
def test_trees_failing_the_checks_call_each_flatten_function_once(other: Any) -> None:
    _learn(_base(), Node)
    _check(other)
    _check(_base())  # the specialisation still serves the first structure


def test_a_flatten_function_error_is_raised_once() -> None:
    _learn(_base(), Node)
    bad = Node([Node([1.0, 2.0]), [3.0, Node(5)], 5.0])  # children not iterable
    flatten_calls.clear()
    with pytest.raises(TypeError):
        tp.tree_flatten(bad)
    assert len(flatten_calls) == 3  # root, first child, the bad node: once each


def test_new_aux_data_every_call_is_not_specialised() -> None:
    tree = [Fresh(1.0), Fresh((2.0,))]
    for _ in range(2 * _specialize.CUSTOM_REPEATS):
        _check(tree)
    assert list not in SPECS


def test_dicts_above_custom_nodes_are_specialised() -> None:
    tree = {"b": Node([1.0]), "a": [Node([2.0, 3.0])]}
    spec = _learn(tree, dict)
    assert spec(tree) == [2.0, 3.0, 1.0]
    _check({"b": Node([1.0]), "a": [Node([2.0, [3.0]])]})
    _check({"a": [Node([2.0, 3.0])], "b": Node([1.0])})  # another insertion order


def test_a_shared_subtree_is_flattened_at_each_occurrence() -> None:
    inner = Node([1.0, 2.0])
    _learn(Node([inner, inner]), Node)
    _check(Node([inner, Node([inner, 3.0])]))
    _check(Node([inner, inner]))


def _make_node(cs: list[Any]) -> Node:
    return Node(cs)


def _make_tuple_node(cs: list[Any]) -> Node:
    return Node(tuple(cs))


TREES = pytrees(custom=(_make_node, _make_tuple_node), max_leaves=12)


@settings(max_examples=25, deadline=None)
@given(TREES, TREES, st.booleans())
def test_random_trees_after_a_specialisation(first: Any, second: Any, wrap: bool) -> None:
    if wrap:
        first, second = Node([first]), Node([second])
    for _ in range(_specialize.CUSTOM_REPEATS + 1):
        _check(first)
    _check(second)
    _check(first)


def test_children_that_are_not_a_list_or_tuple_drop_the_specialisation() -> None:
    tree = Node([Node([1.0, 2.0], lazy=True), 3.0])
    _learn(Node([Node([1.0, 2.0]), 3.0]), Node)
    _check(tree)  # its checks fail: replayed, and the specialisation is dropped
    assert Node not in SPECS
    for _ in range(2 * _specialize.CUSTOM_REPEATS):
        _check(tree)
    assert Node not in SPECS  # rarely tried again


def test_dicts_below_dataclasses_are_specialised_not_below_custom_nodes() -> None:
    tree = [Holder({"b": 1.0, "a": 2.0}, Node([3.0]))]
    spec = _learn(tree, list)
    assert spec(tree) == [2.0, 1.0, 3.0]
    _check([Holder({"b": 1.0, "a": 2.0}, Node([[3.0]]))])
    _check([Holder({"a": 2.0, "b": 1.0}, Node([3.0]))])
    SPECS.clear()
    below = [Node([{"k": 3.0}])]
    for _ in range(2 * _specialize.CUSTOM_REPEATS):
        _check(below)
    assert list not in SPECS
