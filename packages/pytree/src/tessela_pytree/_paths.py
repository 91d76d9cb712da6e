"""Key paths: flattening into ``(key_path, leaf)`` pairs.

A leaf's key path is, for almost every tree, a function of the tree's
structure alone: dict keys are in the treedef, sequence positions and the
fields of namedtuples and registered dataclasses follow from the node types,
and custom nodes registered without keys get flat indices. So
``tree_flatten_with_path`` flattens as ``tree_flatten`` does and derives the
paths from the treedef's node, keeping the list of paths per structure in a
bounded cache (a training step flattening the same parameters every call
builds its paths once). Only a custom node registered with its own
``flatten_with_keys`` (whose keys could depend on the instance), or an
``is_leaf`` that takes the path, needs the node-by-node traversal that asks
every node for its keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._flatten import tree_flatten
from ._keys import DictKey, FlattenedIndexKey, GetAttrKey, PyTree, SequenceKey
from ._registry import (
    _KIND,
    DICT,
    LIST,
    NAMEDTUPLE,
    NONE,
    REGISTRY,
    TUPLE,
    _sorted_keys,
    classify,
)
from ._treedef import LEAF_TREEDEF, Node, PyTreeDef

__all__ = [
    "keyed_children",
    "tree_flatten_with_path",
    "tree_leaves_with_path",
]

_NONE_NODE: Node = (NONE, type(None), None, 0)
Path = tuple[Any, ...]


class _InstanceKeys(Exception):
    """Internal: a node's keys come from the instance, not the structure."""


# One-element key tuples ``(key,)``, shared: a child's path is its parent's
# path plus one of these (``prefix + k1``, one C-level concatenation).
_SEQ1: list[tuple[SequenceKey]] = []
_FLAT1: list[tuple[FlattenedIndexKey]] = []
_NAMED1: dict[type[Any], tuple[tuple[GetAttrKey], ...]] = {}
_FIELDS1: dict[type[Any], tuple[tuple[GetAttrKey], ...]] = {}
_DICT1: dict[tuple[str, ...], tuple[tuple[DictKey], ...]] = {}
_CACHE_LIMIT = 4096


def _seq1(n: int) -> list[tuple[SequenceKey]]:
    while len(_SEQ1) < n:
        _SEQ1.append((SequenceKey(len(_SEQ1)),))
    return _SEQ1[:n]


def _flat1(n: int) -> list[tuple[FlattenedIndexKey]]:
    while len(_FLAT1) < n:
        _FLAT1.append((FlattenedIndexKey(len(_FLAT1)),))
    return _FLAT1[:n]


def _dict1(keys: tuple[Any, ...], exact: list[bool]) -> tuple[tuple[DictKey], ...]:
    """``(DictKey(k),)`` per key. Only all-``str`` key tuples are cached: equal
    keys of other types can print differently (``1``, ``1.0``, ``True``), so
    those paths are built afresh and ``exact[0]`` is cleared."""
    got = _DICT1.get(keys)
    if got is not None:
        return got
    made = tuple([(DictKey(k),) for k in keys])
    for k in keys:
        if type(k) is not str:
            exact[0] = False
            return made
    if len(_DICT1) > _CACHE_LIMIT:
        _DICT1.clear()
    _DICT1[keys] = made
    return made


def _attrs1(cache: dict[type[Any], Any], typ: type[Any], names: tuple[str, ...]) -> Any:
    got = cache.get(typ)
    if got is None:
        got = cache[typ] = tuple([(GetAttrKey(f),) for f in names])
    return got


def _child_keys1(node: Node, n: int, exact: list[bool]) -> Any:
    """The ``(key,)`` tuples of a node's ``n`` children, from the structure alone."""
    kind, typ, aux, _ = node
    if kind == DICT:
        return _dict1(aux, exact)
    if kind in (TUPLE, LIST):
        return _seq1(n)
    if kind == NAMEDTUPLE:
        return _attrs1(_NAMED1, typ, typ._fields)
    entry = REGISTRY[typ]
    if entry.fields is not None:
        return _attrs1(_FIELDS1, typ, entry.fields[0])
    if entry.flatten_with_keys is None:
        return _flat1(n)
    if entry.aux_keys is not None:
        return _dict1(tuple(entry.aux_keys(aux)), exact)
    raise _InstanceKeys


def _node_paths(node: Node, prefix: Path, out: list[Path], exact: list[bool]) -> None:
    """Appends the key paths of the leaves under ``node`` to ``out``."""
    kids = node[3]
    if type(kids) is int:
        if kids:
            out += map(prefix.__add__, _child_keys1(node, kids, exact))
        return
    for k1, kid in zip(_child_keys1(node, len(kids), exact), kids, strict=False):
        if kid is None:
            out.append(prefix + k1)
        elif kid[3]:
            _node_paths(kid, prefix + k1, out, exact)


# Paths by structure: node -> list of paths (or None: keys need the instances).
# Structures whose dict keys are not all strings are not cached (see _dict1).
_PATHS: dict[Node, list[Path] | None] = {}
# The last structure found in _PATHS and its paths, compared before hashing.
_LAST: list[Any] = [None, None]
_PATHS_MAX_LEAVES = 1 << 20
_paths_cached = 0


def structure_paths(node: Node, num_leaves: int) -> list[Path] | None:
    """The key paths of a treedef's leaves, or None if they need the tree itself."""
    global _paths_cached
    try:
        return _PATHS[node]
    except KeyError:
        hashable = True
    except Exception:  # unhashable (or oddly hashing) aux data: compute, do not cache
        hashable = False
    out: list[Path] | None = []
    exact = [True]
    try:
        _node_paths(node, (), out, exact)  # type: ignore[arg-type]
    except _InstanceKeys:
        out = None
    if hashable and exact[0]:
        if _paths_cached + num_leaves > _PATHS_MAX_LEAVES or len(_PATHS) >= _CACHE_LIMIT:
            _PATHS.clear()
            _paths_cached = 0
        _PATHS[node] = out
        _paths_cached += num_leaves
    return out


def keyed_children(x: Any, kind: int) -> tuple[list[Any], list[Any], Any]:
    """(keys, children, aux) of node ``x``."""
    if kind == DICT:
        aux = _sorted_keys(x)
        return [DictKey(k) for k in aux], [x[k] for k in aux], aux
    if kind in (LIST, TUPLE):
        return [SequenceKey(i) for i in range(len(x))], list(x), None
    if kind == NAMEDTUPLE:
        return [GetAttrKey(f) for f in type(x)._fields], list(x), None
    if kind == NONE:
        return [], [], None
    entry = REGISTRY[type(x)]
    if entry.flatten_with_keys is not None:
        pairs, aux = entry.flatten_with_keys(x)
        pairs = list(pairs)
        return [k for k, _ in pairs], [c for _, c in pairs], aux
    children, aux = entry.flatten(x)
    children = list(children)
    return [FlattenedIndexKey(i) for i in range(len(children))], children, aux


def flat_path(
    x: Any,
    kind: int,
    path: Path,
    out: list[tuple[Path, Any]],
    is_leaf: Callable[[Path, Any], bool] | None,
) -> Node:
    """Flattens node ``x`` appending ``(key_path, leaf)`` pairs to ``out``."""
    if kind == NONE:
        return _NONE_NODE
    keys, children, aux = keyed_children(x, kind)
    kids: list[Node] | None = None
    start = len(out)
    get = _KIND.get
    for key, c in zip(keys, children, strict=False):
        p = (*path, key)
        if is_leaf is not None and is_leaf(p, c):
            k = 0
        else:
            got = get(type(c))
            k = classify(type(c)) if got is None else got
        if k:
            if kids is None:
                kids = [None] * (len(out) - start)
            kids.append(flat_path(c, k, p, out, is_leaf))
        else:
            out.append((p, c))
            if kids is not None:
                kids.append(None)
    if kids is None:
        return (kind, type(x), aux, len(out) - start)
    return (kind, type(x), aux, tuple(kids))


def _traverse(
    tree: Any, pred: Callable[[Path, Any], bool] | None
) -> tuple[list[tuple[Path, Any]], PyTreeDef]:
    if pred is not None and pred((), tree):
        return [((), tree)], LEAF_TREEDEF
    kind = classify(type(tree))
    if not kind:
        return [((), tree)], LEAF_TREEDEF
    out: list[tuple[Path, Any]] = []
    node = flat_path(tree, kind, (), out, pred)
    return out, PyTreeDef(node, len(out))


def tree_flatten_with_path(
    tree: PyTree,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> tuple[list[tuple[Path, Any]], PyTreeDef]:
    """Flattens a pytree into ``(key_path, leaf)`` pairs and its structure.

    Args:
      tree: the pytree.
      is_leaf: optional predicate; subtrees where it is True count as leaves.
      is_leaf_takes_path: if True, ``is_leaf`` is called as
        ``is_leaf(key_path, subtree)`` instead of ``is_leaf(subtree)``.

    Returns:
      ``(pairs, treedef)`` where each pair is ``(key_path, leaf)``.

    Example:
      >>> from tessela_pytree import tree_flatten_with_path
      >>> pairs, _ = tree_flatten_with_path({"a": [7]})
      >>> pairs
      [((DictKey(key='a'), SequenceKey(idx=0)), 7)]
    """
    if is_leaf is not None and is_leaf_takes_path:
        return _traverse(tree, is_leaf)
    # As ``tree_flatten`` (a repeated structure takes its specialised function).
    leaves, treedef = tree_flatten(tree, is_leaf)
    node = treedef._node
    if node is None:
        return [((), leaves[0])], treedef
    last = _LAST
    try:
        if node == last[0]:  # the structure of the previous call (no hashing)
            paths = last[1]
        else:
            paths = _PATHS[node]
            last[0], last[1] = node, paths
    except Exception:  # not cached yet, not hashable, or not comparable
        paths = structure_paths(node, treedef._num_leaves)
    if paths is None:
        if is_leaf is None:
            return _traverse(tree, None)
        leaf_fn = is_leaf
        return _traverse(tree, lambda _, x: leaf_fn(x))
    # Both lists come from the same structure: equal lengths by construction
    # (and a ``strict=`` keyword would double the cost of pairing small trees).
    return [*zip(paths, leaves)], treedef  # noqa: B905


def tree_leaves_with_path(
    tree: PyTree,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> list[tuple[Path, Any]]:
    """The ``(key_path, leaf)`` pairs of a pytree, in flattening order.

    Args:
      tree: the pytree.
      is_leaf: optional predicate; subtrees where it is True count as leaves.
      is_leaf_takes_path: if True, ``is_leaf`` takes ``(key_path, subtree)``.

    Returns:
      The list of pairs.

    Example:
      >>> from tessela_pytree import keystr, tree_leaves_with_path
      >>> [(keystr(p), v) for p, v in tree_leaves_with_path([1, (2,)])]
      [('[0]', 1), ('[1][0]', 2)]
    """
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]
