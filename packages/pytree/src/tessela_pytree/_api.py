"""Functions built on flattening: map, reduce, transpose, broadcast, and the
structure-mismatch diagnostics that tell where two trees differ.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from ._flatten import tree_flatten, tree_leaves
from ._keys import KeyPath, PyTree, keystr
from ._maps import MAP_HANDLERS
from ._paths import keyed_children, tree_flatten_with_path
from ._registry import LIST, SPECS, TUPLE, classify
from ._treedef import PyTreeDef, build

__all__ = [
    "all_leaves",
    "tree_all",
    "tree_broadcast",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_transpose",
    "tree_unflatten",
]

T = TypeVar("T")


class _Unspecified:
    def __repr__(self) -> str:
        return "<unspecified>"


_UNSPECIFIED: Any = _Unspecified()


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> PyTree:
    """Builds a pytree from a treedef and its leaves.

    Args:
      treedef: the structure, from ``tree_flatten`` or ``tree_structure``.
      leaves: exactly ``treedef.num_leaves`` values.

    Returns:
      The pytree.

    Raises:
      ValueError: if the number of leaves is wrong.

    Example:
      >>> from tessela_pytree import tree_flatten, tree_unflatten
      >>> leaves, td = tree_flatten({"a": 1, "b": [2]})
      >>> tree_unflatten(td, [x * 2 for x in leaves])
      {'a': 2, 'b': [4]}
    """
    return treedef.unflatten(leaves)


def _is_strict_leaf(x: Any, is_leaf: Callable[[Any], bool] | None) -> bool:
    if is_leaf is not None and is_leaf(x):
        return True
    return classify(type(x)) == 0


def prefix_errors(
    path: KeyPath,
    prefix: PyTree,
    full: PyTree,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Iterator[Callable[[str], ValueError]]:
    """Yields one error factory per place where ``prefix`` is not a prefix of ``full``."""
    if _is_strict_leaf(prefix, is_leaf):
        return
    if type(prefix) is not type(full):
        yield lambda name: ValueError(
            "pytree structure error: different types at key path\n"
            f"    {name}{keystr(path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            "but at the same key path the full pytree has a subtree of different type\n"
            f"    {type(full)}."
        )
        return
    kind = classify(type(prefix))
    p_keys, p_children, p_aux = keyed_children(prefix, kind)
    f_keys, f_children, f_aux = keyed_children(full, kind)
    if kind in (LIST, TUPLE):
        if len(prefix) != len(full):
            ty = type(prefix).__name__
            yield lambda name: ValueError(
                f"pytree structure error: different lengths of {ty} at key path\n"
                f"    {name}{keystr(path)}\n"
                f"At that key path, the prefix pytree {name} has a subtree of type "
                f"{ty} of length {len(prefix)}, but the full pytree has a subtree "
                f"of the same type but of length {len(full)}."
            )
            return
    elif len(p_children) != len(f_children):
        try:
            diff: set[Any] | None = set(p_keys).symmetric_difference(f_keys)
        except TypeError:
            diff = None
        yield lambda name: ValueError(
            "pytree structure error: different numbers of pytree children at key path\n"
            f"    {name}{keystr(path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            f"with {len(p_children)} child keys\n"
            f"    {' '.join(_key_text(k) for k in p_keys)}\n"
            "but at the same key path the full pytree has a subtree of the same "
            f"type but with {len(f_children)} child keys\n"
            f"    {' '.join(_key_text(k) for k in f_keys)}\n"
            + (
                ""
                if diff is None
                else "so the symmetric difference on key sets is\n"
                f"    {' '.join(_key_text(k) for k in diff)}"
            )
        )
        return
    p_meta, f_meta = p_aux, f_aux
    if p_meta != f_meta:
        p_str, f_str = str(p_meta), str(f_meta)
        import difflib  # only this error message needs it: kept out of import time

        meta_diff = textwrap.indent(
            "\n".join(difflib.ndiff(p_str.splitlines(), f_str.splitlines())),
            prefix="    ",
        )
        yield lambda name: ValueError(
            "pytree structure error: different pytree metadata at key path\n"
            f"    {name}{keystr(path)}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            "with metadata\n"
            f"    {p_str}\n"
            "but at the same key path the full pytree has a subtree of the same "
            "type but with metadata\n"
            f"    {f_str}\n"
            "so the diff in the metadata at these pytree nodes is\n"
            f"{meta_diff}"
        )
        return
    for k, c1, c2 in zip(p_keys, p_children, f_children, strict=False):
        yield from prefix_errors((*path, k), c1, c2)


def _key_text(key: Any) -> str:
    for attr in ("key", "idx", "name"):
        if hasattr(key, attr):
            return str(getattr(key, attr))
    return str(key)


def _mismatch(
    error: ValueError, prefix: Any, full: Any, is_leaf: Callable[[Any], bool] | None, name: str
) -> ValueError:
    for make in prefix_errors((), prefix, full, is_leaf):
        return make(name)
    return error


def tree_map(
    f: Callable[..., Any],
    tree: PyTree,
    *rest: PyTree,
    is_leaf: Callable[[Any], bool] | None = None,
) -> PyTree:
    """Applies ``f`` leafwise across one or more pytrees.

    Args:
      f: called as ``f(x, *xs)`` with a leaf of ``tree`` and the matching
        subtrees of ``rest``.
      tree: the pytree whose structure the result takes.
      *rest: pytrees that have ``tree``'s structure (or that structure as a
        prefix: the matching subtrees are passed whole).
      is_leaf: optional predicate; subtrees of ``tree`` where it is True are
        treated as leaves.

    Returns:
      A pytree of ``tree``'s structure holding ``f``'s results.

    Raises:
      ValueError: if a tree in ``rest`` does not match; the message gives the
        key path where they differ and how.

    Example:
      >>> from tessela_pytree import tree_map
      >>> tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
      {'a': 11, 'b': (22, 33)}
    """
    if not rest and is_leaf is None:
        spec = SPECS.get(type(tree))
        if spec is not None and spec[3] is not None:
            # A repeated structure of built-in containers: its leaves, then
            # ``f`` in flattening order, then a rebuild that runs no user code.
            leaves = spec[0](tree)
            if leaves is not None:
                return spec[3].unflatten(list(map(f, leaves)))
        handler = MAP_HANDLERS[type(tree)]
        return f(tree) if handler is None else handler(f, tree)
    leaves, treedef = tree_flatten(tree, is_leaf)
    node = treedef._node
    if not rest:
        if node is None:
            return f(leaves[0])
        return build(node, map(f, leaves))
    others = []
    for other in rest:
        try:
            others.append(treedef.flatten_up_to(other))
        except ValueError as e:
            raise _mismatch(e, tree, other, is_leaf, "tree_map tree") from None
    if node is None:
        return f(leaves[0], *[o[0] for o in others])
    return build(node, map(f, leaves, *others))


def tree_map_with_path(
    f: Callable[..., Any],
    tree: PyTree,
    *rest: PyTree,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> PyTree:
    """Like ``tree_map`` but ``f`` also receives each leaf's key path first.

    Args:
      f: called as ``f(key_path, x, *xs)``.
      tree: the pytree whose structure the result takes.
      *rest: pytrees with ``tree``'s structure (or it as a prefix).
      is_leaf: optional predicate; subtrees where it is True count as leaves.
      is_leaf_takes_path: if True, ``is_leaf`` takes ``(key_path, subtree)``.

    Returns:
      A pytree of ``tree``'s structure holding ``f``'s results.

    Example:
      >>> from tessela_pytree import keystr, tree_map_with_path
      >>> tree_map_with_path(lambda p, x: f"{keystr(p)}={x}", {"a": [1]})
      {'a': ["['a'][0]=1"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    paths = [p for p, _ in pairs]
    leaves = [x for _, x in pairs]
    others = []
    for other in rest:
        try:
            others.append(treedef.flatten_up_to(other))
        except ValueError as e:
            plain = None if is_leaf_takes_path else is_leaf
            raise _mismatch(e, tree, other, plain, "tree_map_with_path tree") from None
    return treedef.unflatten(list(map(f, paths, leaves, *others)))


def tree_reduce(
    function: Callable[[T, Any], T],
    tree: PyTree,
    initializer: Any = _UNSPECIFIED,
    is_leaf: Callable[[Any], bool] | None = None,
) -> T:
    """Folds ``function`` over the leaves of a pytree, left to right.

    Args:
      function: a binary function ``(accumulated, leaf) -> accumulated``.
      tree: the pytree.
      initializer: optional starting value (needed for trees with no leaves).
      is_leaf: optional predicate; subtrees where it is True count as leaves.

    Returns:
      The reduced value.

    Raises:
      TypeError: if the tree has no leaves and no initializer is given.

    Example:
      >>> import operator
      >>> from tessela_pytree import tree_reduce
      >>> tree_reduce(operator.add, [1, (2, 3)]), tree_reduce(operator.add, [], 100)
      (6, 100)
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _UNSPECIFIED:
        return functools.reduce(function, leaves)  # type: ignore[no-any-return]
    return functools.reduce(function, leaves, initializer)  # type: ignore[no-any-return]


def tree_reduce_associative(
    operation: Callable[[T, T], T],
    tree: PyTree,
    *,
    identity: Any = _UNSPECIFIED,
    is_leaf: Callable[[Any], bool] | None = None,
) -> T:
    """Reduces the leaves with an associative operation, as a balanced tree.

    Args:
      operation: an associative binary operation.
      tree: the pytree.
      identity: the operation's identity, used only when there are no leaves.
      is_leaf: optional predicate; subtrees where it is True count as leaves.

    Returns:
      The reduced value.

    Raises:
      TypeError: if the tree has no leaves and no identity is given.

    Example:
      >>> import operator
      >>> from tessela_pytree import tree_reduce_associative
      >>> tree_reduce_associative(operator.add, [1, 2, (3, 4, 5)])
      15
    """
    seq = tree_leaves(tree, is_leaf)
    if not seq:
        if identity is _UNSPECIFIED:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity  # type: ignore[no-any-return]
    return _halving_reduce(seq, operation)  # type: ignore[no-any-return]


def _halving_reduce(seq: list[Any], operation: Callable[[Any, Any], Any]) -> Any:
    if len(seq) == 1:
        return seq[0]
    half = len(seq) // 2
    return operation(_halving_reduce(seq[:half], operation), _halving_reduce(seq[half:], operation))


def tree_all(tree: PyTree, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf is truthy.

    Args:
      tree: the pytree.
      is_leaf: optional predicate; subtrees where it is True count as leaves.

    Returns:
      ``all(tree_leaves(tree))``.

    Example:
      >>> from tessela_pytree import tree_all
      >>> tree_all([True, {"a": 1}]), tree_all([True, (0,)])
      (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of ``iterable`` is a leaf (``None`` is not).

    Args:
      iterable: the values to test.
      is_leaf: optional predicate; values where it is True count as leaves.

    Returns:
      Whether all are leaves.

    Example:
      >>> from tessela_pytree import all_leaves
      >>> all_leaves([1, "a", 2.0]), all_leaves([1, [2]]), all_leaves([None])
      (True, False, False)
    """
    if is_leaf is None:
        return all(classify(type(x)) == 0 for x in iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves, strict=False))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: PyTree
) -> PyTree:
    """Turns a tree of trees inside out: outer-of-inner becomes inner-of-outer.

    Args:
      outer_treedef: the structure of the outer tree.
      inner_treedef: the structure of each inner tree; None to infer it from
        the first inner tree.
      pytree_to_transpose: a tree of structure ``outer.compose(inner)``.

    Returns:
      A tree of structure ``inner.compose(outer)``.

    Raises:
      TypeError: if the tree does not have the composed structure.

    Example:
      >>> from tessela_pytree import tree_structure, tree_transpose
      >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
      ([1, 3], [2, 4])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_flatten(outer_treedef.flatten_up_to(pytree_to_transpose)[0])[1]
    inner_size = inner_treedef.num_leaves
    outer_size = outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size : (i + 1) * inner_size] for i in range(outer_size)]
    columns = [outer_treedef.unflatten(col) for col in zip(*rows, strict=False)]
    return inner_treedef.unflatten(columns)


def tree_broadcast(
    prefix_tree: PyTree, full_tree: PyTree, is_leaf: Callable[[Any], bool] | None = None
) -> PyTree:
    """Repeats each leaf of ``prefix_tree`` over the matching subtree of ``full_tree``.

    Args:
      prefix_tree: a pytree whose structure is a prefix of ``full_tree``'s.
      full_tree: the pytree giving the result's structure.
      is_leaf: optional predicate applied to ``prefix_tree``.

    Returns:
      A pytree of ``full_tree``'s structure.

    Raises:
      ValueError: if ``prefix_tree`` is not a prefix of ``full_tree``; the
        message gives the key path.

    Example:
      >>> from tessela_pytree import tree_broadcast
      >>> tree_broadcast([1, {"a": 2}], [(0, 0), {"a": [0, 0]}])
      [(1, 1), {'a': [2, 2]}]
    """
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = treedef.flatten_up_to(full_tree)
    except ValueError as e:
        raise _mismatch(e, prefix_tree, full_tree, None, "broadcast_prefix prefix_tree") from None
    out: list[Any] = []
    for leaf, sub in zip(leaves, subtrees, strict=False):
        out.extend([leaf] * tree_flatten(sub)[1].num_leaves)
    return tree_flatten(full_tree)[1].unflatten(out)
