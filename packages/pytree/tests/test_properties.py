"""Property tests over random pytrees drawn with tessela_pytree.testing."""

from __future__ import annotations

import pickle
from typing import Any

import tessela_pytree as tp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_pytree.testing import pytrees


class Cell:
    """A custom node with aux data, registered with keys."""

    def __init__(self, children: list[Any], tag: str = "c") -> None:
        self.children = list(children)
        self.tag = tag

    def __eq__(self, other: object) -> bool:
        return type(other) is Cell and (other.children, other.tag) == (self.children, self.tag)


tp.register_pytree_with_keys(
    Cell,
    lambda c: ([(tp.GetAttrKey(f"c{i}"), x) for i, x in enumerate(c.children)], c.tag),
    lambda tag, xs: Cell(list(xs), tag),
)

TREES = pytrees(custom=(Cell,))
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(TREES)
def test_flatten_unflatten_round_trip(tree: Any) -> None:
    leaves, treedef = tp.tree_flatten(tree)
    assert tp.tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)
    assert tp.tree_structure(tree) == treedef


@FAST
@given(TREES)
def test_map_identity_and_leafwise(tree: Any) -> None:
    assert tp.tree_map(lambda x: x, tree) == tree
    marked = tp.tree_map(lambda x: ("m", x), tree)
    assert tp.tree_structure(
        marked, is_leaf=lambda x: isinstance(x, tuple) and x[:1] == ("m",)
    ) == (tp.tree_structure(tree))
    assert tp.tree_leaves(tp.tree_map(lambda x, y: (x, y), tree, tree)) == [
        v for x in tp.tree_leaves(tree) for v in (x, x)
    ]


@FAST
@given(TREES)
def test_paths_agree_with_leaves(tree: Any) -> None:
    pairs, treedef = tp.tree_flatten_with_path(tree)
    assert [x for _, x in pairs] == tp.tree_leaves(tree)
    assert treedef == tp.tree_structure(tree)
    paths = [p for p, _ in pairs]
    assert len(set(paths)) == len(paths)
    strs = [tp.keystr(p) for p in paths]
    assert len(set(strs)) == len(strs)
    mapped = tp.tree_map_with_path(lambda p, x: p, tree)
    assert tp.tree_leaves(mapped, is_leaf=lambda x: isinstance(x, tuple) and x in paths) == paths


@FAST
@given(TREES, TREES)
def test_treedef_equality_and_hash(a: Any, b: Any) -> None:
    ta, tb = tp.tree_structure(a), tp.tree_structure(b)
    assert ta == tp.tree_structure(tp.tree_map(lambda x: 0, a))
    assert hash(ta) == hash(tp.tree_structure(tp.tree_map(lambda x: 0, a)))
    if ta == tb:
        assert hash(ta) == hash(tb)
    assert (ta == tb) == (repr(ta) == repr(tb) and _same_structure(a, b))
    assert pickle.loads(pickle.dumps(ta)) == ta


def _same_structure(a: Any, b: Any) -> bool:
    try:
        tp.tree_structure(a).flatten_up_to(b)
    except ValueError:
        return False
    return tp.tree_structure(a).num_leaves == tp.tree_structure(b).num_leaves


@FAST
@given(TREES)
def test_treedef_children_and_counts(tree: Any) -> None:
    treedef = tp.tree_structure(tree)
    children = treedef.children()
    assert sum(c.num_leaves for c in children) == treedef.num_leaves or tp.treedef_is_leaf(treedef)
    if not tp.treedef_is_leaf(treedef):
        assert 1 + sum(c.num_nodes for c in children) == treedef.num_nodes
    assert tp.treedef_tuple(children).num_leaves == sum(c.num_leaves for c in children)


@FAST
@given(TREES, st.sampled_from([(0, 0), [0, {"k": 0}], None, 0]))
def test_compose_and_transpose(tree: Any, inner: Any) -> None:
    outer_td = tp.tree_structure(tree)
    inner_td = tp.tree_structure(inner)
    composed = outer_td.compose(inner_td)
    assert composed.num_leaves == outer_td.num_leaves * inner_td.num_leaves
    nested = tp.tree_map(lambda x: tp.tree_map(lambda _: x, inner), tree)
    if inner_td.num_leaves:
        assert tp.tree_structure(nested) == composed
    if outer_td.num_leaves and inner_td.num_leaves:
        flipped = tp.tree_transpose(outer_td, inner_td, nested)
        back = tp.tree_transpose(inner_td, outer_td, flipped)
        assert back == nested


@FAST
@given(TREES)
def test_flatten_up_to_own_structure(tree: Any) -> None:
    treedef = tp.tree_structure(tree)
    assert treedef.flatten_up_to(tree) == tp.tree_leaves(tree)
    assert tp.tree_broadcast(tree, tree) == tree


@FAST
@given(TREES)
def test_is_leaf_everything_is_one_leaf(tree: Any) -> None:
    leaves, treedef = tp.tree_flatten(tree, is_leaf=lambda x: True)
    assert leaves == [tree] and tp.treedef_is_leaf(treedef)
    leaves, treedef = tp.tree_flatten(tree, is_leaf=lambda x: False)
    assert treedef == tp.tree_structure(tree)
