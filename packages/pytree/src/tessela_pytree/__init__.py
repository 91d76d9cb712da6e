"""Pytrees: nested containers of leaves, flattened, mapped and rebuilt.

The API is that of ``jax.tree_util``: the same names, signatures and
behaviour, in pure Python. ``tessela_pytree.tree`` holds the short names
(``tree.map``, ``tree.flatten``, ...).
"""

from . import tree as tree
from ._api import (
    all_leaves,
    tree_all,
    tree_broadcast,
    tree_map,
    tree_map_with_path,
    tree_reduce,
    tree_reduce_associative,
    tree_transpose,
    tree_unflatten,
)
from ._builtin_nodes import Partial
from ._flatten import tree_flatten, tree_leaves, tree_structure
from ._keys import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    keystr,
)
from ._one_level import (
    PyTreeRegistry,
    default_registry,
    flatten_one_level,
    flatten_one_level_with_keys,
)
from ._paths import tree_flatten_with_path, tree_leaves_with_path
from ._registry import (
    is_tree_node,
    register_dataclass,
    register_pytree_node,
    register_pytree_node_class,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    register_static,
)
from ._treedef import PyTreeDef, treedef_children, treedef_is_leaf, treedef_tuple

__version__ = "0.1.0"

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "Partial",
    "PyTreeDef",
    "PyTreeRegistry",
    "SequenceKey",
    "all_leaves",
    "default_registry",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree",
    "tree_all",
    "tree_broadcast",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]
