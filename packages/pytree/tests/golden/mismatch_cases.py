"""More pairs of trees whose structures differ, for JAX's error wording.

Pure Python like ``trees.py``: the generator runs it under JAX, the tests
under tessela_pytree. Each pair covers one message of JAX's
``flatten_up_to`` ("Dict key mismatch", "Expected dict, got ...",
"Custom node type mismatch", ...) and what ``tree_map`` says instead.
"""

from __future__ import annotations

from typing import Any

import trees

NONE = trees.NONE

MISMATCHES: dict[str, tuple[Any, Any]] = {
    "dict_missing_key_root": (("dict", [("a", 1)]), ("dict", [("a", 1), ("b", 2)])),
    "dict_missing_key_nested": (
        ("dict", [("l", ("list", [1, ("dict", [("bias", 1)])]))]),
        ("dict", [("l", ("list", [1, ("dict", [("bias", 1), ("w", 2)])]))]),
    ),
    "dict_int_keys": (("dict", [(1, 1), (2, 2)]), ("dict", [(1, 1), (3, 2)])),
    "dict_vs_list": (("list", [("dict", [("a", 1)])]), ("list", [("list", [1])])),
    "list_vs_tuple": (("dict", [("k", ("list", [1, 2]))]), ("dict", [("k", ("tuple", [1, 2]))])),
    "tuple_vs_leaf": (("tuple", [1, ("tuple", [2, 3])]), ("tuple", [1, 5])),
    "none_vs_leaf": (("list", [NONE, 1]), ("list", [0, 1])),
    "box_vs_keyed": (("list", [("box", "m", [1, 2])]), ("list", [("keyed", 1, 2)])),
    "box_arity": (("box", "m", [1, 2]), ("box", "m", [1, 2, 3])),
    "namedtuple_arity": (("point", 1, 2), ("tuple", [1, 2, 3])),
    "od_vs_dict": (("od", [("a", 1)]), ("dict", [("a", 1)])),
    "dd_keys": (("dd", [("a", 1)]), ("dd", [("a", 1), ("b", 2)])),
    "dataclass_vs_dict": (("param", 1, 2, "n"), ("dict", [("w", 1), ("b", 2)])),
}


def record(tu: Any) -> dict[str, Any]:
    """``trees.record_mismatch`` of every pair, with ``tu``'s classes registered."""
    trees.register(tu)
    return {
        name: trees.record_mismatch(trees.build(a, tu), trees.build(b, tu), tu)
        for name, (a, b) in MISMATCHES.items()
    }
