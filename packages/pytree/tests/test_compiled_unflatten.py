"""A treedef unflattened again uses a compiled builder; it must rebuild the same trees."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import pytest
import tessela_pytree as tp
from hypothesis import given, settings
from tessela_pytree._compile import compile_unflatten
from tessela_pytree.testing import pytrees

Point = collections.namedtuple("Point", "x y")


@tp.register_dataclass
@dataclasses.dataclass
class Layer:
    w: Any
    b: Any
    name: str = dataclasses.field(default="dense", metadata={"static": True})


@dataclasses.dataclass
class Odd:
    a: Any
    b: Any


# Meta before data and a keyword-named field: still rebuilt through __init__.
tp.register_dataclass(Odd, data_fields=["b"], meta_fields=["a"])


class Bag:
    def __init__(self, items: list[Any], tag: str = "t") -> None:
        self.items = list(items)
        self.tag = tag

    def __eq__(self, other: object) -> bool:
        return type(other) is Bag and (other.items, other.tag) == (self.items, self.tag)


tp.register_pytree_node(Bag, lambda b: (b.items, b.tag), lambda tag, xs: Bag(list(xs), tag))


def same(a: Any, b: Any, *, ordered: bool = True) -> bool:
    """Equal and of the same types all the way down (dict key order too if ``ordered``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(
            same(x, y, ordered=ordered) for x, y in zip(a, b, strict=True)
        )
    if isinstance(a, dict):
        keys_match = list(a) == list(b) if ordered else set(a) == set(b)
        return keys_match and all(same(a[k], b[k], ordered=ordered) for k in a)
    return bool(a == b)


def calls_to_compile(treedef: tp.PyTreeDef) -> int:
    """Enough unflatten calls for the treedef to switch to its compiled builder."""
    return max(2, -(-4096 // max(treedef.num_leaves, 1)))


def unflatten_three_times(tree: Any) -> list[Any]:
    """The generic rebuild, the compiled builder, and unflatten after many calls."""
    leaves, treedef = tp.tree_flatten(tree)
    first = treedef.unflatten(leaves)
    node = treedef._node
    builder = compile_unflatten(node) if node is not None else None
    direct = builder(list(leaves)) if builder is not None else first
    for _ in range(calls_to_compile(treedef)):
        last = treedef.unflatten(leaves)
    return [first, direct, last]


TREES: list[Any] = [
    [1, 2, 3],
    {"b": 1, "a": (2, None, [])},
    (),
    [[], (), {}, None],
    [Point(i, i + 1) for i in range(10)],
    [Layer(float(i), float(-i)) for i in range(12)],
    [Layer([1, 2], {"k": (3,)}, "x"), Layer(None, 4, "y")],
    [Odd(1, 2), Odd(3, [4, 5])],
    collections.OrderedDict([("z", 1), ("a", [2, 3])]),
    collections.defaultdict(list, {"q": 1, "p": (2, 3)}),
    Bag([Bag([1, 2, 3, 4, 5, 6, 7, 8]), Bag([])], "outer"),
    [{"x": i, "y": [i, i]} for i in range(9)] + [{"x": 0}, 7, None, (1,)],
    tuple(range(20)),
    Point(*range(2)),
    {i: [i] * 3 for i in range(10)},
    [[[[[[1]]]]]] * 5,
    [None] * 5,
    [[], [], [], [], 1, (), (), (), (), {}, {}, {}, {}],
    {"a": [None] * 4, "b": [[None, ()]] * 6},
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_compiled_rebuild_equals_tree(tree: Any) -> None:
    first, second, third = unflatten_three_times(tree)
    assert same(first, tree, ordered=False)
    assert same(second, first)
    assert same(third, first)


def test_compiled_builder_is_kept_and_used() -> None:
    leaves, treedef = tp.tree_flatten([{"a": 1, "b": 2}] * 8)
    for _ in range(calls_to_compile(treedef) - 1):
        treedef.unflatten(leaves)
    assert isinstance(treedef._builder, int)  # not compiled yet
    treedef.unflatten(leaves)
    assert callable(treedef._builder)
    assert treedef.unflatten(tuple(x * 10 for x in leaves)) == [{"a": 10, "b": 20}] * 8


def test_leaf_count_is_still_checked() -> None:
    leaves, treedef = tp.tree_flatten([1, (2, 3)])
    for _ in range(calls_to_compile(treedef)):
        assert treedef.unflatten(leaves) == [1, (2, 3)]
    assert callable(treedef._builder)
    with pytest.raises(ValueError, match="Too few leaves"):
        treedef.unflatten(leaves[:-1])
    with pytest.raises(ValueError, match="Too many leaves"):
        treedef.unflatten([*leaves, 4])


def test_custom_unflatten_called_in_the_same_order() -> None:
    calls: list[str] = []

    class Tag:
        def __init__(self, name: str, kids: list[Any]) -> None:
            self.name, self.kids = name, kids

    tp.register_pytree_node(
        Tag, lambda t: (t.kids, t.name), lambda n, kids: calls.append(n) or Tag(n, list(kids))
    )
    tree = Tag("root", [Tag("a", [1]), 2, Tag("b", [Tag("c", [3])])])
    leaves, treedef = tp.tree_flatten(tree)
    orders = []
    for _ in range(calls_to_compile(treedef)):
        calls.clear()
        treedef.unflatten(leaves)
        orders.append(list(calls))
    assert callable(treedef._builder)
    assert all(order == ["a", "c", "b", "root"] for order in orders)


def test_deep_trees_fall_back_to_the_generic_rebuild() -> None:
    tree: Any = 0
    for _ in range(60):
        tree = [tree, 1]
    leaves, treedef = tp.tree_flatten(tree)
    assert compile_unflatten(treedef._node) is None
    assert all(treedef.unflatten(leaves) == tree for _ in range(calls_to_compile(treedef)))


@settings(max_examples=80, deadline=None)
@given(pytrees(custom=(Bag,)))
def test_compiled_rebuild_of_random_trees(tree: Any) -> None:
    first, *compiled = unflatten_three_times(tree)
    assert same(first, tree, ordered=False)
    for got in compiled:
        assert same(got, first)
