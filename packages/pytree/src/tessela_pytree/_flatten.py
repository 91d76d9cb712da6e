"""The traversals: flattening (plain and with ``is_leaf``) and one-pass map.

Plain flattening runs the per-type handlers of ``_handlers``. The other
traversals are recursive functions called only on nodes; children that are
leaves are handled inline in the parent's loop, so the common case costs one
dict lookup (``_KIND``, keyed by exact type) and one append per leaf, and a
node whose children are all leaves allocates no per-child structure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._handlers import NONE_NODE, handler_of
from ._keys import PyTree
from ._registry import (
    _KIND,
    DICT,
    HANDLERS,
    LIST,
    NAMEDTUPLE,
    NONE,
    REGISTRY,
    SPECS,
    TUPLE,
    _sorted_keys,
    classify,
)
from ._specialize import MAX_LEAVES, learn
from ._treedef import LEAF_TREEDEF, Node, PyTreeDef

_new_treedef = object.__new__

__all__ = [
    "tree_flatten",
    "tree_leaves",
    "tree_structure",
]


def flat_is_leaf(x: Any, kind: int, leaves: list[Any], is_leaf: Callable[[Any], bool]) -> Node:
    """Like ``flat`` but asks ``is_leaf`` about every child first."""
    if kind == DICT:
        aux = _sorted_keys(x)
        children: Any = [x[k] for k in aux]
    elif kind in (LIST, TUPLE, NAMEDTUPLE):
        aux = None
        children = x
    elif kind == NONE:
        return NONE_NODE
    else:
        children, aux = REGISTRY[type(x)].flatten(x)
    kids: list[Node] = []
    for c in children:
        if is_leaf(c):
            leaves.append(c)
            kids.append(None)
            continue
        k = _KIND.get(type(c))
        if k is None:
            k = classify(type(c))
        if k:
            kids.append(flat_is_leaf(c, k, leaves, is_leaf))
        else:
            leaves.append(c)
            kids.append(None)
    for k in kids:
        if k is not None:
            return (kind, type(x), aux, tuple(kids))
    return (kind, type(x), aux, len(kids))


def tree_flatten(
    tree: PyTree, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[Any], PyTreeDef]:
    """Flattens a pytree into its leaves and its structure.

    Leaves come in a fixed order: sequences in order, dicts by sorted key,
    custom nodes in the order their flatten function gives. ``None`` is a node
    with no children, so it contributes no leaf.

    Args:
      tree: the pytree to flatten.
      is_leaf: optional predicate called on every subtree (root included);
        where it returns True the subtree is taken whole as a leaf.

    Returns:
      ``(leaves, treedef)``.

    Example:
      >>> from tessela_pytree import tree_flatten
      >>> tree_flatten({"b": [1, None], "a": (2,)})
      ([2, 1], PyTreeDef({'a': (*,), 'b': [*, None]}))
    """
    leaves: list[Any] = []
    if is_leaf is None:
        root = type(tree)
        spec = SPECS.get(root)
        if spec is not None:
            out: list[Any] | tuple[list[Any], Node] | None = spec[0](tree)
            if type(out) is list:
                return out, spec[4]
            if out is not None:  # replayed after a flatten function ran
                leaves, node = out
                if len(leaves) <= MAX_LEAVES:
                    learn(root, node, tree, leaves)
                treedef = _new_treedef(PyTreeDef)
                treedef._node = node
                treedef._num_leaves = len(leaves)
                return leaves, treedef
        try:
            handler = HANDLERS[root]
        except KeyError:
            handler = handler_of(root)
        if handler is None:
            return [tree], LEAF_TREEDEF
        node = handler(tree, leaves)
        if len(leaves) <= MAX_LEAVES:
            learn(root, node, tree, leaves)
    else:
        if is_leaf(tree):
            return [tree], LEAF_TREEDEF
        kind = classify(type(tree))
        if not kind:
            return [tree], LEAF_TREEDEF
        node = flat_is_leaf(tree, kind, leaves, is_leaf)
    treedef = _new_treedef(PyTreeDef)
    treedef._node = node
    treedef._num_leaves = len(leaves)
    return leaves, treedef


def tree_leaves(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of a pytree, in flattening order.

    Args:
      tree: the pytree.
      is_leaf: optional predicate; subtrees where it is True count as leaves.

    Returns:
      The list of leaves.

    Example:
      >>> from tessela_pytree import tree_leaves
      >>> tree_leaves([1, {"y": 3, "x": 2}, None])
      [1, 2, 3]
    """
    if is_leaf is None:
        root = type(tree)
        spec = SPECS.get(root)
        if spec is not None:
            out: list[Any] | tuple[list[Any], Node] | None = spec[0](tree)
            if type(out) is list:
                return out
            if out is not None:  # replayed after a flatten function ran
                leaves, node = out
                if len(leaves) <= MAX_LEAVES:
                    learn(root, node, tree, leaves)
                return leaves
        try:
            handler = HANDLERS[root]
        except KeyError:
            handler = handler_of(root)
        if handler is None:
            return [tree]
        leaves = []
        node = handler(tree, leaves)
        if len(leaves) <= MAX_LEAVES:
            learn(root, node, tree, leaves)
        return leaves
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure (treedef) of a pytree.

    Args:
      tree: the pytree.
      is_leaf: optional predicate; subtrees where it is True count as leaves.

    Returns:
      Its ``PyTreeDef``.

    Example:
      >>> from tessela_pytree import tree_structure
      >>> tree_structure((1, [2, None]))
      PyTreeDef((*, [*, None]))
    """
    return tree_flatten(tree, is_leaf)[1]
