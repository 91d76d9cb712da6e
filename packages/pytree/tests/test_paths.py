"""Key paths derived from the structure agree with the node-by-node traversal."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree._paths import _traverse
from tessela_pytree.testing import pytrees


class Keyed:
    """A custom node whose keys come from the instance (its own names)."""

    def __init__(self, names: list[str], children: list[Any]) -> None:
        self.names = names
        self.children = children


tp.register_pytree_with_keys(
    Keyed,
    lambda k: ([(tp.GetAttrKey(n), c) for n, c in zip(k.names, k.children, strict=True)], None),
    lambda _, cs: Keyed([f"n{i}" for i in range(len(cs))], list(cs)),
)


class Plain:
    """A custom node registered without keys: flat indices."""

    def __init__(self, children: list[Any], tag: int = 0) -> None:
        self.children = children
        self.tag = tag


tp.register_pytree_node(Plain, lambda p: (p.children, p.tag), lambda t, cs: Plain(list(cs), t))


@tp.register_dataclass
@dataclasses.dataclass
class Layer:
    w: Any
    b: Any
    name: str = dataclasses.field(default="l", metadata={"static": True})


def _keyed(children: list[Any]) -> Keyed:
    return Keyed([f"k{len(children)}_{i}" for i in range(len(children))], children)


TREES = pytrees(custom=(_keyed, Plain, lambda cs: Layer(cs, len(cs))))
FAST = settings(max_examples=80, deadline=None)


def _expected(tree: Any, is_leaf: Any = None) -> Any:
    pred = None if is_leaf is None else (lambda _, x: is_leaf(x))
    return _traverse(tree, pred)


@FAST
@given(TREES)
def test_paths_match_traversal(tree: Any) -> None:
    pairs, treedef = tp.tree_flatten_with_path(tree)
    want_pairs, want_treedef = _expected(tree)
    assert pairs == want_pairs
    assert [repr(p) for p, _ in pairs] == [repr(p) for p, _ in want_pairs]
    assert treedef == want_treedef
    # Again, now from the cache.
    assert tp.tree_flatten_with_path(tree)[0] == want_pairs


@FAST
@given(TREES, st.sampled_from([list, tuple, dict]))
def test_paths_match_traversal_with_is_leaf(tree: Any, typ: type[Any]) -> None:
    def is_leaf(x: Any) -> bool:
        return type(x) is typ

    pairs, treedef = tp.tree_flatten_with_path(tree, is_leaf=is_leaf)
    want_pairs, want_treedef = _expected(tree, is_leaf)
    assert pairs == want_pairs
    assert treedef == want_treedef


def test_equal_dict_keys_of_other_types_keep_their_own_paths() -> None:
    for key in (1, 1.0, True, 1, True):
        pairs = tp.tree_leaves_with_path({key: [7]})
        assert [repr(p) for p, _ in pairs] == [f"(DictKey(key={key!r}), SequenceKey(idx=0))"]
    for key in (0.0, -0.0, 0.0):
        (path, _), *_ = tp.tree_leaves_with_path(collections.OrderedDict([(key, 1)]))
        assert repr(path[0].key) == repr(key)


def test_instance_keys_are_asked_for_every_time() -> None:
    a = Keyed(["x", "y"], [1, 2])
    b = Keyed(["p", "q"], [1, 2])
    assert tp.tree_structure(a) == tp.tree_structure(b)
    assert [tp.keystr(p) for p, _ in tp.tree_leaves_with_path([a])] == ["[0].x", "[0].y"]
    assert [tp.keystr(p) for p, _ in tp.tree_leaves_with_path([b])] == ["[0].p", "[0].q"]


def test_paths_of_registered_and_builtin_nodes() -> None:
    Point = collections.namedtuple("Point", "x y")
    tree = {
        "od": collections.OrderedDict([("z", 1), ("a", 2)]),
        "dd": collections.defaultdict(list, {"q": 3, "c": 4}),
        "layer": Layer(5, [6, None], "dense"),
        "plain": Plain([7, (8,)], 3),
        "pt": Point(9, 10),
        "partial": tp.Partial(max, 11, key=12),
        "none": None,
        "empty": [(), {}],
    }
    got = [(tp.keystr(p), x) for p, x in tp.tree_leaves_with_path(tree)]
    assert got == [
        ("['dd']['c']", 4),
        ("['dd']['q']", 3),
        ("['layer'].w", 5),
        ("['layer'].b[0]", 6),
        ("['od']['z']", 1),
        ("['od']['a']", 2),
        ("['partial'][<flat index 0>][0]", 11),
        ("['partial'][<flat index 1>]['key']", 12),
        ("['plain'][<flat index 0>]", 7),
        ("['plain'][<flat index 1>][0]", 8),
        ("['pt'].x", 9),
        ("['pt'].y", 10),
    ]
    assert tp.tree_flatten_with_path(5) == ([((), 5)], tp.tree_structure(5))
    assert tp.tree_flatten_with_path([1], is_leaf=lambda x: True)[0] == [((), [1])]


def test_is_leaf_taking_the_path() -> None:
    tree = {"a": [1, 2], "b": [3, [4]]}
    pairs, treedef = tp.tree_flatten_with_path(
        tree, is_leaf=lambda p, x: len(p) == 2, is_leaf_takes_path=True
    )
    assert [(tp.keystr(p), x) for p, x in pairs] == [
        ("['a'][0]", 1),
        ("['a'][1]", 2),
        ("['b'][0]", 3),
        ("['b'][1]", [4]),
    ]
    assert treedef.num_leaves == 4
