"""The generated per-type flatten handlers agree with the generic traversal."""

from __future__ import annotations

import collections
import dataclasses
import enum
from typing import Any

import pytest
import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree.testing import leaves, pytrees

Wide = collections.namedtuple("Wide", [f"f{i}" for i in range(10)])  # type: ignore[misc]


@tp.register_dataclass
@dataclasses.dataclass
class Two:
    w: Any
    b: Any
    tag: str = dataclasses.field(default="t", metadata={"static": True})


@tp.register_dataclass
@dataclasses.dataclass
class Many:
    a0: Any
    a1: Any
    a2: Any
    a3: Any
    a4: Any
    a5: Any
    a6: Any
    a7: Any
    a8: Any


class Odd:
    """Fields that are not identifiers, registered explicitly."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)

    def __eq__(self, other: object) -> bool:
        return type(other) is Odd and other.__dict__ == self.__dict__


tp.register_dataclass(Odd, data_fields=["x-1", "class"], meta_fields=["m m"])


def _reference(tree: Any) -> tuple[list[Any], tp.PyTreeDef]:
    """The is_leaf traversal, which does not use the handlers."""
    return tp.tree_flatten(tree, is_leaf=lambda _: False)


def _make_two(cs: list[Any]) -> Two:
    return Two(cs, len(cs), tag=str(len(cs)))


def _make_many(cs: list[Any]) -> Many:
    return Many(cs, *range(7), None)


def _make_odd(cs: list[Any]) -> Odd:
    return Odd(**{"x-1": cs, "class": 1, "m m": "aux"})


def _make_wide(cs: list[Any]) -> Any:
    return Wide(cs, *range(9))


TREES = pytrees(custom=(_make_two, _make_many, _make_odd, _make_wide))
FAST = settings(max_examples=100, deadline=None)


@FAST
@given(TREES)
def test_handlers_match_reference(tree: Any) -> None:
    got_leaves, got_td = tp.tree_flatten(tree)
    want_leaves, want_td = _reference(tree)
    assert got_leaves == want_leaves
    assert got_td == want_td
    assert repr(got_td) == repr(want_td)
    assert got_td.unflatten(got_leaves) == tree


@FAST
@given(st.lists(st.sampled_from(["dict", "list", "tuple", "point", "two", "leaf"]), max_size=20))
def test_rows_of_siblings(kinds: list[str]) -> None:
    Point = collections.namedtuple("Point", "x y")
    make = {
        "dict": lambda i: {"b": i, "a": [i]} if i % 5 == 4 else {"b": i, "a": i},
        "list": lambda i: [i, i + 1],
        "tuple": lambda i: (i, None) if i % 3 else (i, i),
        "point": lambda i: Point(i, (i,) if i % 7 == 6 else i),
        "two": lambda i: Two(i, [i]),
        "leaf": lambda i: float(i),
    }
    for row in (
        [make[k](i) for i, k in enumerate(kinds)],
        [make[kinds[0]](i) for i in range(len(kinds) * 3)] if kinds else [],
    ):
        for tree in (row, tuple(row), {"r": row}):
            assert tp.tree_flatten(tree) == _reference(tree)


@given(st.lists(leaves(), min_size=16, max_size=40), st.integers(0, 39))
def test_leaf_rows_with_one_node(items: list[Any], where: int) -> None:
    items = list(items)
    items[where % len(items)] = [None, 1]
    assert tp.tree_flatten(items) == _reference(items)


def test_namedtuple_fast_path_shares_the_node() -> None:
    Point = collections.namedtuple("Point", "x y")
    a, b = tp.tree_structure(Point(1, 2)), tp.tree_structure(Point(3, 4))
    assert a._node is b._node
    assert tp.tree_flatten(Point([1], 2)) == ([1, 2], _reference(Point([1], 2))[1])


def test_registering_a_type_seen_as_a_leaf() -> None:
    class Late:
        def __init__(self, v: Any) -> None:
            self.v = v

    x = Late(3)
    assert tp.tree_leaves([x]) == [x]
    tp.register_pytree_node(Late, lambda o: ((o.v,), None), lambda _, c: Late(*c))
    assert tp.tree_leaves([x]) == [3]


def test_unsortable_dict_keys_raise() -> None:
    with pytest.raises(ValueError, match="Comparator raised exception"):
        tp.tree_flatten({1: 1, "a": 2})
    with pytest.raises(ValueError, match="Comparator raised exception"):
        tp.tree_flatten([{1: 1, "a": 2}] * 10)


@FAST
@given(TREES)
def test_map_handlers_match_flatten_and_unflatten(tree: Any) -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        seen.append(x)
        return ("mapped", x)

    got = tp.tree_map(f, tree)
    leaves, treedef = _reference(tree)
    assert seen == leaves
    want = treedef.unflatten([("mapped", x) for x in leaves])
    assert got == want
    assert tp.tree_structure(got, is_leaf=lambda x: type(x) is tuple and x[:1] == ("mapped",)) == (
        treedef
    )


def test_map_of_a_leaf_and_of_unsortable_keys() -> None:
    assert tp.tree_map(lambda x: x + 1, 1) == 2
    assert tp.tree_map(lambda x: x, None) is None
    with pytest.raises(ValueError, match="Comparator raised exception"):
        tp.tree_map(lambda x: x, {1: 1, "a": 2})


def test_namedtuple_children_are_read_by_iteration() -> None:
    class Odd(collections.namedtuple("Base", "x y")):
        def __getitem__(self, i: Any) -> Any:
            return "not a field"

    tree = Odd(1, [2])
    assert tp.tree_flatten(tree) == _reference(tree)
    assert tp.tree_leaves(Odd(1, 2)) == [1, 2]
    assert tp.tree_map(lambda v: v * 10, Odd(1, 2)) == (10, 20)


class K(enum.StrEnum):
    a = "a"
    b = "b"


def test_dict_sort_cache_keeps_each_dicts_own_keys() -> None:
    """Dicts whose keys equal cached ones (str and a str enum; 1, 1.0, True) keep their keys."""
    for first, second in (({"b": 1, "a": 2}, {K.b: 1, K.a: 2}), ({2: 0, 1: 0}, {2.0: 0, True: 0})):
        for rows in (1, 6):
            td1 = tp.tree_structure([first] * rows)
            td2 = tp.tree_structure([second] * rows)
            keys2 = td2.children()[0].node_data()[1]
            assert [type(k) for k in keys2] == [type(k) for k in sorted(second)]
            assert repr(td2) != repr(td1)
            assert td2.unflatten(tp.tree_leaves([second] * rows)) == [second] * rows
            assert list(td2.unflatten(tp.tree_leaves([second] * rows))[0]) == sorted(second)


def test_dict_sort_cache_unsortable_keys_raise_every_time() -> None:
    for _ in range(2):
        with pytest.raises(ValueError, match="Comparator raised exception"):
            tp.tree_flatten({1: 1, "a": 2})
        with pytest.raises(ValueError, match="Comparator raised exception"):
            tp.tree_flatten([{1: 1, "a": 2}] * 6)
