"""The short-name namespace: ``tree.map``, ``tree.flatten``, ``tree.leaves``, ...

Each name is the same function as its ``tree_``-prefixed counterpart in
``tessela_pytree``.

Example:
  >>> from tessela_pytree import tree
  >>> tree.map(lambda x: x + 1, {"a": 1, "b": [2]})
  {'a': 2, 'b': [3]}
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ._api import tree_all as all
from ._api import tree_broadcast as broadcast
from ._api import tree_map as map
from ._api import tree_map_with_path as map_with_path
from ._api import tree_reduce as reduce
from ._api import tree_reduce_associative as reduce_associative
from ._api import tree_transpose as transpose
from ._api import tree_unflatten as unflatten
from ._flatten import tree_flatten as flatten
from ._flatten import tree_leaves as leaves
from ._flatten import tree_structure as structure
from ._paths import tree_flatten_with_path as flatten_with_path
from ._paths import tree_leaves_with_path as leaves_with_path

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]


def static(**kwargs: Any) -> Any:
    """A ``dataclasses.field`` marked static, for ``register_dataclass``.

    Args:
      **kwargs: the arguments of ``dataclasses.field``; ``metadata`` gets
        ``static=True`` added.

    Returns:
      The field.

    Example:
      >>> import dataclasses
      >>> from tessela_pytree import register_dataclass, tree
      >>> @register_dataclass
      ... @dataclasses.dataclass
      ... class Op:
      ...     x: float
      ...     kind: str = tree.static(default="add")
      >>> tree.structure(Op(1.0))
      PyTreeDef(CustomNode(Op[('add',)], [*]))
    """
    metadata = dict(kwargs.pop("metadata", None) or {})
    metadata["static"] = True
    return dataclasses.field(metadata=metadata, **kwargs)
