"""The traversals: flattening (plain, with ``is_leaf``, with key paths).

Each traversal is a recursive function called only on nodes; children that
are leaves are handled inline in the parent's loop, so the common case costs
one dict lookup (``_KIND``, keyed by exact type) and one append per leaf, and
a node whose children are all leaves allocates no per-child structure.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from itertools import chain, repeat
from typing import Any

from ._registry import (
    _KIND,
    CUSTOM,
    DATACLASS_GETTERS,
    DICT,
    FLATTEN_OF,
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
    "tree_flatten",
    "tree_leaves",
    "tree_structure",
]

_NONE_NODE: Node = (NONE, type(None), None, 0)


def flat(x: Any, kind: int, leaves: list[Any]) -> Node:
    """Flattens node ``x`` of ``kind``, appending its leaves; returns its node."""
    typ = type(x)
    if kind == DICT:
        aux = _sorted_keys(x)
        children: Any = list(map(x.__getitem__, aux))
    elif kind in (LIST, TUPLE, NAMEDTUPLE):
        aux = None
        children = x
    elif kind == NONE:
        return _NONE_NODE
    else:
        how = FLATTEN_OF[typ]
        if type(how) is tuple:  # a dataclass: (data getter, meta getter)
            children = how[0](x)
            aux = how[1](x)
        else:
            children, aux = how(x)
    kind_of = _KIND  # a missing type is classified on lookup
    if (
        (type(children) is list or type(children) is tuple)
        and len(children) >= _BATCH_MIN
        and kind_of[type(children[0])] in _BATCH_KINDS
    ):
        batch = _flat_siblings(children, leaves)
        if batch is not None:
            return (kind, typ, aux, batch)
    start = len(leaves)
    kids: list[Node] | None = None
    append = leaves.append
    for c in children:
        k = kind_of[type(c)]
        if k:
            if kids is None:
                kids = [None] * (len(leaves) - start)
            kids.append(flat(c, k, leaves))
        else:
            append(c)
            if kids is not None:
                kids.append(None)
    if kids is None:
        return (kind, typ, aux, len(leaves) - start)
    return (kind, typ, aux, tuple(kids))


_BATCH_MIN = 8
_BATCH_KINDS = frozenset((LIST, TUPLE, NAMEDTUPLE, DICT, CUSTOM))
_GETITEM = operator.attrgetter("__getitem__")


def _flat_siblings(children: list[Any] | tuple[Any, ...], leaves: list[Any]) -> Node | None:
    """Flattens many sibling nodes of one type whose children are all leaves.

    Wide containers of equally typed small nodes (a list of namedtuples, of
    registered dataclasses, of lists) are common; here the whole row is taken
    apart with C-level ``map``/``chain`` calls instead of one Python call per
    node. Returns the tuple of the siblings' nodes, or None (leaving ``leaves``
    untouched) when the siblings are mixed or any of them has a non-leaf child.
    """
    types = set(map(type, children))
    if len(types) != 1:
        return None
    t = types.pop()
    k = _KIND[t]
    auxes: Any
    if k in (LIST, TUPLE, NAMEDTUPLE):
        grand: Any = children
        auxes = repeat(None)
    elif k == DICT:
        try:
            auxes = list(map(tuple, map(sorted, children)))
        except TypeError:
            return None  # the per-node path raises the proper error
        grand = auxes
        row = list(chain.from_iterable(map(map, map(_GETITEM, children), auxes)))
        for gt in set(map(type, row)):
            if _KIND[gt]:
                return None
        leaves += row
        return tuple(zip(repeat(DICT), repeat(t), auxes, map(len, auxes)))
    elif k == CUSTOM:
        fields = REGISTRY[t].fields
        if fields is None:
            return None
        grand = _columns(fields[0], children)
        auxes = _columns(fields[1], children)
    else:
        return None
    row = list(chain.from_iterable(grand))
    kind_of = _KIND
    for gt in set(map(type, row)):
        if kind_of[gt]:
            return None
    leaves += row
    return tuple(zip(repeat(k), repeat(t), auxes, map(len, grand)))


def _columns(names: tuple[str, ...], objs: list[Any] | tuple[Any, ...]) -> list[Any]:
    """``[(o.a, o.b, ...) for o in objs]`` for attribute ``names``, at C speed."""
    if len(names) >= 2:
        return list(map(operator.attrgetter(*names), objs))
    if names:
        return list(zip(map(operator.attrgetter(names[0]), objs)))
    return [()] * len(objs)


def map_node(f: Callable[[Any], Any], x: Any, kind: int) -> Any:
    """``tree_map(f, x)`` for node ``x`` in one pass, with no treedef built.

    Calls ``f`` in flattening order and rebuilds exactly as unflattening would
    (dicts in sorted key order, custom nodes through their unflatten).
    """
    if kind == NONE:
        return None
    if kind == DICT:
        keys = _sorted_keys(x)
        children: Any = map(x.__getitem__, keys)
    elif kind in (LIST, TUPLE, NAMEDTUPLE):
        children = x
    else:
        getters = DATACLASS_GETTERS.get(type(x))
        if getters is None:
            children, keys = REGISTRY[type(x)].flatten(x)
        else:
            children = getters[0](x)
            keys = getters[1](x)
    kind_of = _KIND  # a missing type is classified on lookup
    out: list[Any] = []
    append = out.append
    for c in children:
        k = kind_of[type(c)]
        append(map_node(f, c, k) if k else f(c))
    if kind == LIST:
        return out
    if kind == DICT:
        return dict(zip(keys, out, strict=True))
    if kind == TUPLE:
        return tuple(out)
    if kind == NAMEDTUPLE:
        return type(x)(*out)
    return REGISTRY[type(x)].unflatten(keys, tuple(out))


def flat_is_leaf(x: Any, kind: int, leaves: list[Any], is_leaf: Callable[[Any], bool]) -> Node:
    """Like ``flat`` but asks ``is_leaf`` about every child first."""
    if kind == DICT:
        aux = _sorted_keys(x)
        children: Any = [x[k] for k in aux]
    elif kind in (LIST, TUPLE, NAMEDTUPLE):
        aux = None
        children = x
    elif kind == NONE:
        return _NONE_NODE
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
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
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
        kind = _KIND.get(type(tree))
        if kind is None:
            kind = classify(type(tree))
        if not kind:
            return [tree], LEAF_TREEDEF
        node = flat(tree, kind, leaves)
    else:
        if is_leaf(tree):
            return [tree], LEAF_TREEDEF
        kind = classify(type(tree))
        if not kind:
            return [tree], LEAF_TREEDEF
        node = flat_is_leaf(tree, kind, leaves, is_leaf)
    return leaves, PyTreeDef(node, len(leaves))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
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
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
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
