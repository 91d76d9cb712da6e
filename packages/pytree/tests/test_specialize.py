"""Flattening specialised to a repeated structure agrees with the generic traversal."""

from __future__ import annotations

import collections
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

Point = collections.namedtuple("Point", "x y")


class Pair:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def __eq__(self, other: object) -> bool:
        return type(other) is Pair and (other.a, other.b) == (self.a, self.b)


tp.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))


@tp.register_dataclass
@dataclasses.dataclass
class Layer:
    w: Any
    b: Any
    name: str = dataclasses.field(default="dense", metadata={"static": True})


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    # Each test starts with nothing learnt (hypothesis' trees specialise dicts).
    SPECS.clear()
    _specialize._last.clear()
    _specialize._compiles.clear()
    yield


def _reference(tree: Any) -> tuple[list[Any], tp.PyTreeDef]:
    """The is_leaf traversal, which neither uses nor fills the specialisations."""
    return tp.tree_flatten(tree, is_leaf=lambda _: False)


def _same(got: tuple[list[Any], tp.PyTreeDef], tree: Any) -> None:
    leaves, treedef = got
    ref_leaves, ref_treedef = _reference(tree)
    assert len(leaves) == len(ref_leaves)
    assert all(a is b for a, b in zip(leaves, ref_leaves, strict=True))
    assert treedef == ref_treedef
    assert repr(treedef) == repr(ref_treedef)
    assert treedef.unflatten(leaves) == tree
    assert tp.tree_leaves(tree) == leaves


@settings(max_examples=25, deadline=None)
@given(pytrees(), pytrees())
def test_after_a_repeat_every_tree_flattens_as_the_generic_path(first: Any, second: Any) -> None:
    for _ in range(3):  # the second flatten of one structure specialises
        _same(tp.tree_flatten(first), first)
    _same(tp.tree_flatten(second), second)
    _same(tp.tree_flatten(first), first)


def test_a_repeated_structure_is_specialised_and_rejects_other_trees() -> None:
    tree = {"a": 1.0, "b": (2.0, 3.0), "c": [4.0, None, Point(5.0, 6.0)]}
    tp.tree_flatten(tree)
    tp.tree_flatten(tree)
    assert dict in SPECS
    spec, *_ = SPECS[dict]
    assert spec(tree) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    for other in (
        {"a": 1.0, "b": (2.0, 3.0), "c": [4.0, None, Point(5.0, [6.0])]},  # a leaf became a node
        {"a": 1.0, "b": (2.0, 3.0), "c": [4.0, 0, Point(5.0, 6.0)]},  # None became a leaf
        {"a": 1.0, "b": [2.0, 3.0], "c": [4.0, None, Point(5.0, 6.0)]},  # tuple became list
        {"a": 1.0, "b": (2.0, 3.0), "c": [4.0, None, Point(5.0, 6.0), 7.0]},  # longer
        {"a": 1.0, "b": (2.0, 3.0), "d": [4.0, None, Point(5.0, 6.0)]},  # another key
        {"a": 1, "b": (2.0, 3.0), "c": [4.0, None, Point(5.0, 6.0)]},  # another leaf type
    ):
        assert spec(other) is None
        _same(tp.tree_flatten(other), other)


def test_dict_keys_are_matched_by_identity() -> None:
    # Equal keys of another type (1 and 1.0) build another treedef: not the spec's.
    tree = {1: "x", 2: "y"}
    tp.tree_flatten(tree)
    tp.tree_flatten(tree)
    spec, *_ = SPECS[dict]
    assert spec({1.0: "x", 2: "y"}) is None
    leaves, treedef = tp.tree_flatten({1.0: "x", 2: "y"})
    assert type(next(iter(treedef.unflatten(leaves)))) is float


# Keys (and static metadata) that compare equal but print apart.
_EQUAL_KEYS = st.sampled_from([(1, 1.0, True), (0, 0.0, -0.0, False), (2, 2.0)])


@settings(max_examples=25, deadline=None)
@given(_EQUAL_KEYS, st.data())
def test_a_repeat_with_equal_keys_of_other_types_keeps_its_own(keys: Any, data: Any) -> None:
    # The structure that specialises comes twice in a row, equal both times but
    # with other key objects the second time: the spec must hand out the second.
    pick = st.sampled_from(keys)
    trees = [{data.draw(pick): [7.0], 5: Layer(1.0, 2.0, name=data.draw(pick))} for _ in range(4)]
    for tree in trees:
        leaves, treedef = tp.tree_flatten(tree)
        rebuilt = treedef.unflatten(leaves)
        assert repr(rebuilt) == repr(tree)
        assert [type(k) for k in rebuilt] == [type(k) for k in tree]
        assert type(rebuilt[5].name) is type(tree[5].name)
        _same((leaves, treedef), tree)


def test_a_registration_drops_the_specialisations() -> None:
    class Box:
        def __init__(self, v: Any) -> None:
            self.v = v

    tree = [Box(1), Box(2)]
    tp.tree_flatten(tree)
    tp.tree_flatten(tree)
    assert len(tp.tree_flatten(tree)[0]) == 2
    tp.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(*c))
    assert list not in SPECS
    leaves, treedef = tp.tree_flatten(tree)
    assert leaves == [1, 2]
    assert treedef.num_nodes == 5


def test_structures_that_keep_changing_need_ever_more_repeats() -> None:
    trees = [((0,) * n,) for n in range(4)]
    for tree, calls in zip(trees, (2, 3, 5, 5), strict=True):
        for _ in range(calls):  # a structure after 1, 2, 4 (then 8) repeats
            leaves, treedef = tp.tree_flatten(tree)
            assert treedef.unflatten(leaves) == tree
    assert _specialize._compiles[tuple] == 3
    assert SPECS[tuple][0](trees[3]) is None
    for _ in range(4):
        tp.tree_flatten(trees[3])
    assert _specialize._compiles[tuple] == 4
    assert SPECS[tuple][0](trees[3]) == [0, 0, 0]


def test_trees_with_custom_nodes_or_many_leaves_are_not_specialised() -> None:
    big = tuple(range(_specialize.MAX_LEAVES + 1))
    custom = (Pair(1, 2),)
    for tree in (big, big, custom, custom):
        _same(tp.tree_flatten(tree), tree)
    assert tuple not in SPECS


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), unique=True))
def test_dicts_in_any_insertion_order(keys: list[str]) -> None:
    first = {k: i for i, k in enumerate(keys)}
    second = {k: first[k] for k in reversed(keys)}
    for tree in (first, first, second, second, first):
        _same(tp.tree_flatten(tree), tree)


def test_registered_dataclasses_are_specialised_with_their_metadata() -> None:
    tree = [Layer(1.0, 2.0), Layer(3.0, None)]
    for _ in range(3):
        _same(tp.tree_flatten(tree), tree)
    spec, *_ = SPECS[list]
    assert spec(tree) == [1.0, 2.0, 3.0]
    renamed = [Layer(1.0, 2.0), Layer(3.0, None, name="".join(["den", "se"]))]
    assert spec(renamed) is None  # equal metadata, another object: the generic path
    _same(tp.tree_flatten(renamed), renamed)
    broken = [Layer(1.0, 2.0), Layer(3.0, None)]
    del broken[1].w
    assert spec(broken) is None


def test_specialised_treedefs_hash_as_generic_ones() -> None:
    tree = {"a": [1.0, 2.0], "b": (3.0,)}
    generic = _reference(tree)[1]
    for _ in range(3):
        treedef = tp.tree_flatten(tree)[1]
    assert dict in SPECS
    assert hash(treedef) == hash(generic)
    assert {generic: 1}[treedef] == 1


@settings(max_examples=25, deadline=None)
@given(pytrees())
def test_a_specialised_structure_flattens_to_one_treedef(tree: Any) -> None:
    # Every flatten a specialisation serves returns the same treedef object,
    # equal to the generic path's (a jit cache then compares it by identity).
    expected = _reference(tree)
    results = [tp.tree_flatten(tree) for _ in range(6)]
    for leaves, treedef in results:
        assert leaves == expected[0] or all(
            a is b for a, b in zip(leaves, expected[0], strict=True)
        )
        assert treedef == expected[1]
        assert treedef.num_leaves == len(leaves)
    spec = SPECS.get(type(tree))
    if spec is not None and type(spec[0](tree)) is list:  # the specialisation serves it
        assert tp.tree_flatten(tree)[1] is tp.tree_flatten(tree)[1]
