"""flatten_one_level, flatten_one_level_with_keys and default_registry against JAX."""

from __future__ import annotations

import collections
import dataclasses
import json
import pathlib
from typing import Any

import pytest
import tessela_pytree as tp
import trees
from hypothesis import given, settings
from tessela_pytree.testing import pytrees

_DATA: dict[str, Any] = json.loads(
    (pathlib.Path(__file__).parent / "golden" / "one_level.json").read_text()
)
# JAX 0.10.2 keys every child of a namedtuple by its first field in
# flatten_one_level_with_keys (as in its structure-error messages); the
# keys here name each child's own field, as tree_flatten_with_path does.
_NAMEDTUPLE_KEY_FIX = ("(GetAttrKey(name='x'), [2, 3])", "(GetAttrKey(name='y'), [2, 3])")

trees.register(tp)


@pytest.mark.parametrize("name", sorted(_DATA["cases"]))
def test_one_level_matches_jax(name: str) -> None:
    ours = trees.record_one_level(trees.build(trees.CASES[name], tp), tp)
    want = json.loads(json.dumps(_DATA["cases"][name]))
    if name == "namedtuple":
        for field in ("flatten_one_level_with_keys", "registry_with_keys"):
            block = want[field]
            if isinstance(block, dict):
                block["children"] = block["children"].replace(*_NAMEDTUPLE_KEY_FIX)
            else:
                want[field] = block.replace(*_NAMEDTUPLE_KEY_FIX)
    assert ours == want


def test_static_root_and_is_node_match_jax() -> None:
    assert trees.record_one_level(trees.Tag("relu"), tp) == _DATA["static_root"]
    types = {t.__name__: t for t in (int, str, list, tuple, dict, type(None))}
    types.update(Point=trees.Point, Box=trees.Box, Param=trees.Param)
    assert {n: tp.default_registry.is_node(t) for n, t in types.items()} == _DATA["is_node"]


def test_leaf_raises_value_error() -> None:
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'float'>"):
        tp.flatten_one_level(1.5)
    with pytest.raises(ValueError, match="can't tree-flatten"):
        tp.flatten_one_level_with_keys(object())
    assert tp.default_registry.flatten_one_level(3) is None


@settings(max_examples=200, deadline=None)
@given(pytrees())
def test_one_level_rebuilds_the_node(tree: Any) -> None:
    """Unflattening the node's structure with its one-level children gives the tree back."""
    td = tp.tree_structure(tree)
    if td.node_data() is None:
        with pytest.raises(ValueError):
            tp.flatten_one_level(tree)
        return
    children, meta = tp.flatten_one_level(tree)
    pairs, meta_k = tp.flatten_one_level_with_keys(tree)
    assert meta == meta_k
    assert [c for _, c in pairs] == list(children)
    # Children's structures composed under the root rebuild the tree.
    kids = td.children()
    assert [tp.tree_structure(c) for c in children] == kids
    assert tp.tree_unflatten(td, [leaf for c in children for leaf in tp.tree_leaves(c)]) == tree
    # The keys are the first step of every leaf's key path below each child.
    paths = [p for p, _ in tp.tree_flatten_with_path(tree)[0]]
    firsts = [k for (k, c) in pairs for _ in range(tp.tree_structure(c).num_leaves)]
    assert [p[0] for p in paths] == firsts


def test_registry_registers_nodes() -> None:
    class Pair:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    tp.default_registry.register_node(Pair, lambda p: ((p.a, p.b), None), lambda _, ch: Pair(*ch))
    assert tp.default_registry.is_node(Pair)
    assert tp.tree_leaves(Pair(1, [2])) == [1, 2]

    class Keyed2:
        def __init__(self, a: Any) -> None:
            self.a = a

    tp.default_registry.register_node(
        Keyed2,
        lambda k: ((k.a,), None),
        lambda _, ch: Keyed2(*ch),
        lambda k: (((tp.GetAttrKey("a"), k.a),), None),
    )
    assert tp.keystr(tp.tree_flatten_with_path(Keyed2([5]))[0][0][0]) == ".a[0]"

    @dataclasses.dataclass
    class D:
        w: Any
        tag: str

    tp.default_registry.register_dataclass_node(D, ["w"], ["tag"])
    leaves, td = tp.default_registry.flatten(D(1, "t"))
    assert leaves == [1] and td.unflatten([2]) == D(2, "t")
    assert tp.flatten_one_level(D(1, "t")) == ([1], ("t",))
    with pytest.raises(ValueError, match="Duplicate"):
        tp.default_registry.register_dataclass_node(D, ["w"], ["tag"])


def test_registry_flatten_with_path_predicate_takes_path() -> None:
    tree = {"a": [1, 2], "b": collections.OrderedDict(z=3)}
    seen: list[Any] = []

    def pred(path: Any, x: Any) -> bool:
        seen.append(path)
        return tp.keystr(path) == "['a']"

    pairs, td = tp.default_registry.flatten_with_path(tree, pred)
    assert [tp.keystr(p) for p, _ in pairs] == ["['a']", "['b']['z']"]
    assert () in seen and td.num_leaves == 2
    assert tp.default_registry.flatten_with_path(tree)[0] == tp.tree_flatten_with_path(tree)[0]
