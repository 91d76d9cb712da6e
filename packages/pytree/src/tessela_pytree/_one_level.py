"""One level of flattening, and ``default_registry``, the registry as an object.

``flatten_one_level`` takes a node apart into its children (not flattened any
further) and its node data, the way the node's flatten function does;
``flatten_one_level_with_keys`` pairs each child with its key entry. Both
follow ``jax.tree_util``: dicts give their values in sorted key order and
the sorted keys as node data; lists, tuples and ``None`` give no node data;
namedtuples give their type; custom nodes give what their flatten function
gives. ``default_registry`` answers the methods of JAX's ``PyTreeRegistry``
object with this package's one global registry.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from ._flatten import tree_flatten
from ._keys import DictKey, FlattenedIndexKey, GetAttrKey, KeyEntry, PyTree, SequenceKey
from ._paths import tree_flatten_with_path
from ._registry import (
    DICT,
    LIST,
    NAMEDTUPLE,
    NONE,
    REGISTRY,
    TUPLE,
    _sorted_keys,
    classify,
    is_tree_node,
    register_dataclass,
    register_pytree_node,
    register_pytree_with_keys,
)
from ._treedef import PyTreeDef

__all__ = [
    "PyTreeRegistry",
    "default_registry",
    "flatten_one_level",
    "flatten_one_level_with_keys",
]


def _not_a_node(tree: Any) -> ValueError:
    return ValueError(f"can't tree-flatten type: {type(tree)}")


def _one_level(tree: Any) -> tuple[Iterable[Any], Any] | None:
    kind = classify(type(tree))
    if not kind:
        return None
    if kind == DICT:
        keys = _sorted_keys(tree)
        return tuple([tree[k] for k in keys]), keys
    if kind == LIST:
        return list(tree), None
    if kind == TUPLE:
        return tuple(tree), None
    if kind == NAMEDTUPLE:
        return list(tree), type(tree)
    if kind == NONE:
        return (), None
    entry = REGISTRY[type(tree)]
    children, aux = entry.flatten(tree)
    if entry.fields is not None or type(children) not in (list, tuple):
        children = list(children)
    return children, aux


def _one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[KeyEntry, Any]], Any] | None:
    kind = classify(type(tree))
    if not kind:
        return None
    if kind == DICT:
        keys = _sorted_keys(tree)
        return tuple([(DictKey(k), tree[k]) for k in keys]), keys
    if kind in (LIST, TUPLE):
        return tuple([(SequenceKey(i), c) for i, c in enumerate(tree)]), None
    if kind == NAMEDTUPLE:
        fields = type(tree)._fields
        return [(GetAttrKey(f), c) for f, c in zip(fields, tree, strict=False)], type(tree)
    if kind == NONE:
        return (), None
    entry = REGISTRY[type(tree)]
    if entry.flatten_with_keys is not None:
        pairs, aux = entry.flatten_with_keys(tree)
        return [(k, c) for k, c in pairs], aux
    children, aux = entry.flatten(tree)
    return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux


def flatten_one_level(tree: PyTree) -> tuple[Iterable[Any], Hashable]:
    """Takes one pytree node apart: its children (not flattened) and its node data.

    Args:
      tree: a node: a built-in container or an instance of a registered type.

    Returns:
      ``(children, node_data)``. Dicts give their values in sorted key order and
      the sorted keys; lists, tuples and ``None`` give ``None`` as node data;
      namedtuples give their type; custom nodes what their flatten function
      returns.

    Raises:
      ValueError: if ``tree`` is a leaf.

    Example:
      >>> from tessela_pytree import flatten_one_level
      >>> flatten_one_level({"b": {"c": 3}, "a": [1, 2]})
      (([1, 2], {'c': 3}), ('a', 'b'))
    """
    out = _one_level(tree)
    if out is None:
        raise _not_a_node(tree)
    return out


def flatten_one_level_with_keys(tree: PyTree) -> tuple[Iterable[tuple[KeyEntry, Any]], Hashable]:
    """Like ``flatten_one_level``, with each child paired with its key entry.

    Args:
      tree: a node: a built-in container or an instance of a registered type.

    Returns:
      ``(pairs, node_data)`` where each pair is ``(key_entry, child)``; custom
      nodes registered without keys get ``FlattenedIndexKey`` entries.

    Raises:
      ValueError: if ``tree`` is a leaf.

    Example:
      >>> from tessela_pytree import flatten_one_level_with_keys
      >>> flatten_one_level_with_keys([7, (8,)])
      (((SequenceKey(idx=0), 7), (SequenceKey(idx=1), (8,))), None)
    """
    out = _one_level_with_keys(tree)
    if out is None:
        raise _not_a_node(tree)
    return out


class PyTreeRegistry:
    """The pytree registry as an object, as ``jax.tree_util.default_registry``.

    There is one registry per process; this object's methods read and extend
    it, so a type registered here is a node for every function of the package.

    Example:
      >>> from tessela_pytree import default_registry
      >>> default_registry.flatten({"a": 1, "b": None})
      ([1], PyTreeDef({'a': *, 'b': None}))
      >>> default_registry.is_node(list), default_registry.is_node(int)
      (True, False)
    """

    __slots__ = ()

    def flatten(
        self, tree: PyTree, leaf_predicate: Callable[[Any], bool] | None = None
    ) -> tuple[list[Any], PyTreeDef]:
        """``tree_flatten(tree, leaf_predicate)``.

        Args:
          tree: the pytree.
          leaf_predicate: optional ``is_leaf``.

        Returns:
          ``(leaves, treedef)``.
        """
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(
        self, tree: PyTree, leaf_predicate: Callable[[Any, Any], bool] | None = None
    ) -> tuple[list[tuple[tuple[KeyEntry, ...], Any]], PyTreeDef]:
        """``tree_flatten_with_path`` with a predicate that takes ``(key_path, subtree)``.

        Args:
          tree: the pytree.
          leaf_predicate: optional ``is_leaf(key_path, subtree)``.

        Returns:
          ``(pairs, treedef)``.
        """
        return tree_flatten_with_path(tree, leaf_predicate, leaf_predicate is not None)

    def flatten_one_level(self, tree: PyTree) -> tuple[Iterable[Any], Any] | None:
        """``flatten_one_level(tree)``, or None where ``tree`` is a leaf.

        Args:
          tree: any value.

        Returns:
          ``(children, node_data)`` or None.
        """
        return _one_level(tree)

    def flatten_one_level_with_keys(
        self, tree: PyTree
    ) -> tuple[Iterable[tuple[KeyEntry, Any]], Any] | None:
        """``flatten_one_level_with_keys(tree)``, or None where ``tree`` is a leaf.

        Args:
          tree: any value.

        Returns:
          ``(pairs, node_data)`` or None.
        """
        return _one_level_with_keys(tree)

    def is_node(self, type: type[Any], /) -> bool:
        """Whether instances of ``type`` are pytree nodes.

        Args:
          type: a class.

        Returns:
          ``is_tree_node(type)``.
        """
        return is_tree_node(type)

    def register_node(
        self,
        type: type[Any],
        to_iterable: Callable[[Any], tuple[Iterable[Any], Any]],
        from_iterable: Callable[[Any, Iterable[Any]], Any],
        to_iterable_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]] | None = None,
    ) -> None:
        """Registers ``type`` as a node (``register_pytree_node`` / ``..._with_keys``).

        Args:
          type: the class.
          to_iterable: ``x -> (children, aux_data)``.
          from_iterable: ``(aux_data, children) -> x``.
          to_iterable_with_keys: optional ``x -> ((key, child) pairs, aux_data)``.
        """
        if to_iterable_with_keys is None:
            register_pytree_node(type, to_iterable, from_iterable)
        else:
            register_pytree_with_keys(type, to_iterable_with_keys, from_iterable, to_iterable)

    def register_dataclass_node(
        self,
        type: type[Any],
        data_fields: Sequence[str],
        meta_fields: Sequence[str],
        /,
    ) -> None:
        """Registers a dataclass-like ``type`` by its data and meta field names.

        Args:
          type: the class.
          data_fields: the fields that hold children.
          meta_fields: the fields that hold static node data.
        """
        register_dataclass(type, list(data_fields), list(meta_fields))

    def __repr__(self) -> str:
        return "<tessela_pytree.PyTreeRegistry (the default registry)>"


default_registry = PyTreeRegistry()
