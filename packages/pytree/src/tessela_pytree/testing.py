"""Hypothesis strategies for random pytrees (needs the ``testing`` extra).

Install with ``pip install tessela-pytree[testing]``. The strategies draw
trees mixing every built-in node kind (tuple, list, dict, ``None``,
namedtuple, OrderedDict, defaultdict) and, on request, custom nodes.

Example:
  >>> from hypothesis import given, settings
  >>> from tessela_pytree import tree_flatten, tree_unflatten
  >>> from tessela_pytree.testing import pytrees
  >>> @settings(max_examples=20)
  ... @given(pytrees())
  ... def round_trip(tree):
  ...     leaves, treedef = tree_flatten(tree)
  ...     assert tree_unflatten(treedef, leaves) == tree
  >>> round_trip()
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Hashable
from typing import Any

from hypothesis import strategies as st

__all__ = ["Pair", "dict_keys", "leaves", "pytrees"]

Pair = collections.namedtuple("Pair", "first second")
"""The namedtuple type that ``pytrees`` uses for namedtuple nodes."""


def leaves() -> st.SearchStrategy[Any]:
    """Leaf values: ints, floats (no NaN, so trees compare equal), strings, bools.

    Returns:
      A strategy of leaves.

    Example:
      >>> from tessela_pytree import tree_leaves
      >>> from tessela_pytree.testing import leaves
      >>> leaf = leaves().example()
      >>> tree_leaves(leaf) == [leaf]
      True
    """
    return st.one_of(
        st.integers(-1000, 1000),
        st.floats(allow_nan=False, width=32),
        st.text(max_size=4),
        st.booleans(),
    )


def dict_keys() -> st.SearchStrategy[Hashable]:
    """Dict keys of one sortable type per dict (short strings).

    Returns:
      A strategy of keys.

    Example:
      >>> from tessela_pytree.testing import dict_keys
      >>> isinstance(dict_keys().example(), str)
      True
    """
    return st.text(alphabet="abcdefgh", min_size=1, max_size=3)


def _nodes(
    children: st.SearchStrategy[Any],
    custom: tuple[Callable[[list[Any]], Any], ...],
) -> st.SearchStrategy[Any]:
    keyed = st.dictionaries(dict_keys(), children, max_size=4)
    kinds: list[st.SearchStrategy[Any]] = [
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        keyed,
        st.tuples(children, children).map(lambda xs: Pair(*xs)),
        st.lists(st.tuples(dict_keys(), children), max_size=4, unique_by=lambda kv: kv[0]).map(
            collections.OrderedDict
        ),
        keyed.map(lambda d: collections.defaultdict(list, d)),
    ]
    for make in custom:
        kinds.append(st.lists(children, max_size=3).map(make))
    return st.one_of(*kinds)


def pytrees(
    leaf: st.SearchStrategy[Any] | None = None,
    *,
    max_leaves: int = 24,
    none: bool = True,
    custom: tuple[Callable[[list[Any]], Any], ...] = (),
) -> st.SearchStrategy[Any]:
    """Random pytrees of built-in (and optionally custom) nodes.

    Args:
      leaf: the strategy for leaves; ``leaves()`` by default.
      max_leaves: a soft bound on tree size (Hypothesis ``recursive`` leaves).
      none: whether ``None`` (an empty node) may appear.
      custom: functions from a list of children to a custom node instance
        (of a registered type), to mix custom nodes in.

    Returns:
      A strategy of pytrees.

    Example:
      >>> from tessela_pytree import tree_map
      >>> from tessela_pytree.testing import pytrees
      >>> tree = pytrees().example()
      >>> tree_map(lambda x: x, tree) == tree
      True
    """
    base = leaves() if leaf is None else leaf
    if none:
        base = st.one_of(st.none(), base)
    return st.recursive(base, lambda ch: _nodes(ch, custom), max_leaves=max_leaves)
