"""Compiled unflattening of uniform subtrees (C-level pipelines) rebuilds the same trees."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree._compile import _pipe, _Writer, compile_unflatten
from tessela_pytree._registry import init_order
from tessela_pytree._treedef import build

Point = collections.namedtuple("Point", "x y")


@tp.register_dataclass
@dataclasses.dataclass
class Cell:
    w: Any
    b: Any
    name: str = dataclasses.field(default="c", metadata={"static": True})


CALLS: list[Any] = []


class Node:
    def __init__(self, tag: int, kids: list[Any]) -> None:
        self.tag, self.kids = tag, kids

    def __eq__(self, other: object) -> bool:
        return type(other) is Node and (other.tag, other.kids) == (self.tag, self.kids)


def _node_unflatten(tag: int, kids: Any) -> Node:
    CALLS.append((tag, tuple(kids)))
    return Node(tag, list(kids))


tp.register_pytree_node(Node, lambda n: (n.kids, n.tag), _node_unflatten)

MAKERS: dict[str, Any] = {
    "list": list,
    "tuple": tuple,
    "dict": lambda xs: {f"k{i}": x for i, x in enumerate(xs)},
    "node": lambda xs: Node(len(xs), xs),
    "none": lambda xs: None,
    "empty": lambda xs: [],
}


def _uniform(levels: list[tuple[str, int]], leaf: str) -> Any:
    counter = iter(range(10**6))

    def make(depth: int) -> Any:
        if depth == len(levels):
            if leaf == "point":
                return Point(next(counter), next(counter))
            if leaf == "cell":
                return Cell(next(counter), next(counter), "x")
            return next(counter)
        kind, width = levels[depth]
        return MAKERS[kind]([make(depth + 1) for _ in range(width)])

    return make(0)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, Node):
        return a.tag == b.tag and _same(a.kids, b.kids)
    return bool(a == b)


LEVEL = st.tuples(st.sampled_from(sorted(MAKERS)), st.integers(0, 6))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(LEVEL, min_size=1, max_size=4),
    st.sampled_from(["int", "point", "cell"]),
    st.integers(0, 3),
)
def test_uniform_trees_rebuild_like_the_generic_path(
    levels: list[tuple[str, int]], leaf: str, extra: int
) -> None:
    tree = _uniform(levels, leaf)
    tree = [*(["x"] * extra), tree, tree] if extra else tree
    leaves, treedef = tp.tree_flatten(tree)
    if treedef._node is None:
        return
    builder = compile_unflatten(treedef._node)
    assert builder is not None
    marked = [("leaf", i) for i in range(len(leaves))]
    CALLS.clear()
    want = build(treedef._node, iter(marked))
    want_calls = list(CALLS)
    CALLS.clear()
    got = builder(marked)
    assert _same(got, want)
    assert want_calls == CALLS  # custom nodes built in the same order
    assert _same(builder(leaves), tp.tree_unflatten(treedef, leaves))


def test_pipeline_is_used_for_wide_uniform_rows() -> None:
    tree = {
        "layers": [{"w": i, "b": i} for i in range(50)],
        "cells": [Cell(i, i) for i in range(9)],
    }
    leaves, treedef = tp.tree_flatten(tree)
    builder = compile_unflatten(treedef._node)
    assert builder is not None
    assert builder(leaves) == tree
    uniform = tp.tree_structure([{"w": 0, "b": 0}] * 3)._node
    mixed = tp.tree_structure([{"w": 0, "b": 0}, {"w": 0, "b": [0]}])._node
    assert _pipe(_Writer(), uniform, 2, "L", 0) is not None
    assert _pipe(_Writer(), mixed, 2, "L", 0) is None


@dataclasses.dataclass
class KwOnly:
    w: Any
    b: Any
    name: str = dataclasses.field(default="k", kw_only=True, metadata={"static": True})


class Reordered:
    """``__init__`` takes the data fields in the other order."""

    def __init__(self, b: Any, w: Any) -> None:
        self.w, self.b = w, b

    def __eq__(self, other: object) -> bool:
        return type(other) is Reordered and (other.w, other.b) == (self.w, self.b)


class Starred:
    def __init__(self, *args: Any, **kw: Any) -> None:
        self.__dict__.update(kw)

    def __eq__(self, other: object) -> bool:
        return type(other) is Starred and other.__dict__ == self.__dict__


tp.register_dataclass(KwOnly)
tp.register_dataclass(Reordered, data_fields=["w", "b"], meta_fields=[])
tp.register_dataclass(Starred, data_fields=["w", "b"], meta_fields=[])


def _starred(w: Any, b: Any) -> Starred:
    s = Starred()
    s.w, s.b = w, b
    return s


def test_init_order_is_used_only_when_it_binds_the_same() -> None:
    assert init_order(Cell, ("w", "b"), ("name",)) == (["w", "b", "name"], [])
    assert init_order(KwOnly, ("w", "b"), ("name",)) == (["w", "b"], ["name"])
    assert init_order(Reordered, ("w", "b"), ()) is None  # data out of order
    assert init_order(Starred, ("w", "b"), ()) is None
    assert init_order(Point, ("x", "y"), ()) is None  # a custom __new__
    for make in (
        lambda i: KwOnly(i, [i], name="n"),
        lambda i: Reordered(b=[i], w=i),
        lambda i: _starred(i, (i,)),
        lambda i: Cell(i, [i], "c"),
    ):
        for n in (3, 5, 3000):
            tree = [make(i) for i in range(n)]
            leaves, treedef = tp.tree_flatten(tree)
            builder = compile_unflatten(treedef._node)
            assert builder is not None
            assert builder(leaves) == tree
