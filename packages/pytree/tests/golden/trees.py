"""Test trees shared by the golden generator (run under JAX) and the tests.

Pure Python, importing neither JAX nor tessela_pytree: ``register(tree_util)``
registers the custom node classes with whichever ``tree_util`` module the
process uses, and ``build(spec)`` turns a compact spec into a tree.

Spec grammar: a non-tuple value is a leaf; a tuple is a node:
``("tuple", [s...])``, ``("list", [s...])``, ``("dict", [(k, s)...])``,
``("none",)``, ``("point", sx, sy)`` (namedtuple), ``("od", [(k, s)...])``,
``("dd", [(k, s)...])`` (defaultdict(list)), ``("box", aux, [s...])``
(custom node without keys), ``("keyed", s_left, s_right)`` (custom node with
keys), ``("param", s_w, s_b, name)`` (dataclass, ``name`` static),
``("tag", text)`` (static node), ``("partial", [s...], [(k, s)...])``.
"""

from __future__ import annotations

import collections
import dataclasses
import operator
from typing import Any

Point = collections.namedtuple("Point", "x y")


class Box:
    """Custom node registered without keys; aux is a string."""

    def __init__(self, aux: Any, children: list[Any]) -> None:
        self.aux = aux
        self.children = list(children)

    def __eq__(self, other: object) -> bool:
        return type(other) is Box and other.aux == self.aux and other.children == self.children

    def __repr__(self) -> str:
        return f"Box({self.aux!r}, {self.children!r})"


class Keyed:
    """Custom node registered with keys (attributes ``left`` and ``right``)."""

    def __init__(self, left: Any, right: Any) -> None:
        self.left = left
        self.right = right

    def __eq__(self, other: object) -> bool:
        return type(other) is Keyed and (other.left, other.right) == (self.left, self.right)

    def __repr__(self) -> str:
        return f"Keyed({self.left!r}, {self.right!r})"


@dataclasses.dataclass
class Param:
    w: Any
    b: Any
    name: str = dataclasses.field(default="p", metadata={"static": True})


class Tag(str):
    """A static node: no children, the value is node data."""

    __slots__ = ()


_registered: set[int] = set()


def register(tree_util: Any) -> None:
    """Registers the custom classes with ``tree_util`` (once per module)."""
    if id(tree_util) in _registered:
        return
    _registered.add(id(tree_util))
    tree_util.register_pytree_node(
        Box, lambda b: (b.children, b.aux), lambda aux, ch: Box(aux, list(ch))
    )
    tree_util.register_pytree_with_keys(
        Keyed,
        lambda k: (
            ((tree_util.GetAttrKey("left"), k.left), (tree_util.GetAttrKey("right"), k.right)),
            None,
        ),
        lambda _, ch: Keyed(*ch),
    )
    tree_util.register_dataclass(Param)
    tree_util.register_static(Tag)


def build(spec: Any, tree_util: Any) -> Any:
    """The tree a spec describes (``tree_util`` supplies ``Partial``)."""
    if not isinstance(spec, tuple):
        return spec
    kind, *rest = spec
    if kind == "tuple":
        return tuple(build(s, tree_util) for s in rest[0])
    if kind == "list":
        return [build(s, tree_util) for s in rest[0]]
    if kind == "dict":
        return {k: build(s, tree_util) for k, s in rest[0]}
    if kind == "none":
        return None
    if kind == "point":
        return Point(build(rest[0], tree_util), build(rest[1], tree_util))
    if kind == "od":
        return collections.OrderedDict((k, build(s, tree_util)) for k, s in rest[0])
    if kind == "dd":
        return collections.defaultdict(list, {k: build(s, tree_util) for k, s in rest[0]})
    if kind == "box":
        return Box(rest[0], [build(s, tree_util) for s in rest[1]])
    if kind == "keyed":
        return Keyed(build(rest[0], tree_util), build(rest[1], tree_util))
    if kind == "param":
        return Param(build(rest[0], tree_util), build(rest[1], tree_util), rest[2])
    if kind == "tag":
        return Tag(rest[0])
    if kind == "partial":
        args = [build(s, tree_util) for s in rest[0]]
        kwargs = {k: build(s, tree_util) for k, s in rest[1]}
        return tree_util.Partial(operator.add, *args, **kwargs)
    raise ValueError(f"unknown spec kind {kind!r}")


NONE = ("none",)

CASES: dict[str, Any] = {
    "leaf_int": 7,
    "leaf_str": "s",
    "none": NONE,
    "empty_tuple": ("tuple", []),
    "empty_list": ("list", []),
    "empty_dict": ("dict", []),
    "tuple1": ("tuple", [1]),
    "tuple": ("tuple", [1, 2, 3]),
    "list": ("list", [1, 2.5, "x", True]),
    "dict_sorted": ("dict", [("b", 1), ("a", 2), ("c", 3)]),
    "dict_int_keys": ("dict", [(3, "a"), (1, "b"), (2, "c")]),
    "dict_tuple_keys": ("dict", [((1, "b"), 1), ((1, "a"), 2), ((0, "z"), 3)]),
    "nested_builtin": (
        "dict",
        [("w", ("list", [1, ("tuple", [2, 3]), NONE])), ("a", ("dict", [("z", 4), ("y", NONE)]))],
    ),
    "with_nones": ("list", [NONE, 1, ("tuple", [NONE, NONE]), ("dict", [("k", NONE)])]),
    "empties": ("list", [("tuple", []), ("list", []), ("dict", []), NONE, 5]),
    "namedtuple": ("point", 1, ("list", [2, 3])),
    "namedtuple_nested": ("list", [("point", ("point", 1, 2), NONE), ("point", 3, 4)]),
    "ordereddict": ("od", [("z", 1), ("a", ("tuple", [2, 3])), ("m", 4)]),
    "defaultdict": ("dd", [("z", 1), ("a", ("list", [2])), ("m", 3)]),
    "custom_box": ("box", "meta", [1, ("list", [2, 3])]),
    "custom_box_empty": ("box", None, []),
    "custom_keyed": ("keyed", ("list", [1, 2]), ("dict", [("q", 3)])),
    "dataclass": ("param", ("list", [1, 2]), 3, "dense"),
    "static": ("list", [("tag", "relu"), 1, ("tag", "gelu")]),
    "partial": ("partial", [1, ("tuple", [2])], [("k", 3)]),
    "kitchen_sink": (
        "dict",
        [
            ("params", ("list", [("param", 1, 2, "l0"), ("param", ("tuple", [3, 4]), NONE, "l1")])),
            ("state", ("od", [("step", 5), ("rng", ("point", 6, 7))])),
            ("extra", ("dd", [("b", ("box", "bx", [8, ("keyed", 9, 10)])), ("a", NONE)])),
            ("tags", ("tuple", [("tag", "t"), 11])),
        ],
    ),
    "deep": ("list", [("list", [("list", [("list", [("tuple", [1, ("dict", [("d", 2)])])])])])]),
}

# Pairs of specs whose structures differ, for error messages.
MISMATCHES: dict[str, tuple[Any, Any]] = {
    "tuple_length": (("dict", [("a", ("tuple", [1, 2]))]), ("dict", [("a", ("tuple", [1, 2, 3]))])),
    "list_length": (("list", [1, ("list", [2])]), ("list", [1, ("list", [2, 3])])),
    "dict_keys": (("dict", [("a", 1), ("b", 2)]), ("dict", [("a", 1), ("c", 2)])),
    "dict_count": (
        ("list", [1, ("dict", [("a", 2)])]),
        ("list", [1, ("dict", [("a", 2), ("b", 3)])]),
    ),
    "types": (("dict", [("a", ("tuple", [1, 2]))]), ("dict", [("a", ("list", [1, 2]))])),
    "none_vs_list": (("list", [1, NONE]), ("list", [1, ("list", [2, 3])])),
    "custom_aux": (("list", [("box", "a", [1])]), ("list", [("box", "b", [1])])),
    "dataclass_meta": (("param", 1, 2, "x"), ("param", 1, 2, "y")),
    "namedtuple_vs_tuple": (("point", 1, 2), ("tuple", [1, 2])),
    "od_keys": (("od", [("a", 1)]), ("od", [("b", 1)])),
    "nested_path": (
        ("dict", [("p", ("list", [("point", 1, ("tuple", [2]))]))]),
        ("dict", [("p", ("list", [("point", 1, ("tuple", [2, 3]))]))]),
    ),
}


def _error(fn: Any) -> dict[str, str] | None:
    try:
        fn()
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e)}
    return None


def _depth1_prefix(tree: Any, tu: Any) -> Any:
    return tu.tree_structure(tree, is_leaf=lambda x: x is not tree)


def record_case(tree: Any, tu: Any) -> dict[str, Any]:
    """Everything observable about one tree, as JSON-able values."""
    leaves, treedef = tu.tree_flatten(tree)
    pairs, path_treedef = tu.tree_flatten_with_path(tree)
    prefix = _depth1_prefix(tree, tu)
    fields: dict[str, Any] = {
        "leaves": lambda: repr(leaves),
        "treedef": lambda: repr(treedef),
        "num_leaves": lambda: treedef.num_leaves,
        "num_nodes": lambda: treedef.num_nodes,
        "children": lambda: [repr(c) for c in treedef.children()],
        "is_leaf": lambda: tu.treedef_is_leaf(treedef),
        "node_data_type": lambda: (
            None if treedef.node_data() is None else treedef.node_data()[0].__name__
        ),
        "paths": lambda: [repr(p) for p, _ in pairs],
        "path_leaves": lambda: repr([x for _, x in pairs]),
        "path_treedef": lambda: repr(path_treedef),
        "keystr": lambda: [tu.keystr(p) for p, _ in pairs],
        "keystr_simple": lambda: [tu.keystr(p, simple=True, separator="/") for p, _ in pairs],
        "keystr_simple_nosep": lambda: [tu.keystr(p, simple=True) for p, _ in pairs],
        "keystr_sep": lambda: [tu.keystr(p, separator=",") for p, _ in pairs],
        "map_leaves": lambda: repr(tu.tree_leaves(tu.tree_map(lambda x: f"<{x}>", tree))),
        "map_treedef": lambda: repr(tu.tree_structure(tu.tree_map(lambda x: f"<{x}>", tree))),
        "map2_leaves": lambda: repr(tu.tree_leaves(tu.tree_map(lambda x, y: (x, y), tree, tree))),
        "map_with_path": lambda: repr(
            tu.tree_leaves(tu.tree_map_with_path(lambda p, x: tu.keystr(p) + "=" + repr(x), tree))
        ),
        "is_leaf_list": lambda: repr(tu.tree_flatten(tree, is_leaf=lambda x: isinstance(x, list))),
        "is_leaf_none": lambda: repr(tu.tree_flatten(tree, is_leaf=lambda x: x is None)),
        "path_is_leaf": lambda: repr(
            tu.tree_flatten_with_path(
                tree, is_leaf=lambda p, x: len(p) >= 2, is_leaf_takes_path=True
            )
        ),
        "reduce": lambda: repr(tu.tree_reduce(lambda a, b: [*a, b], tree, [])),
        "all": lambda: tu.tree_all(tree),
        "all_leaves_of_leaves": lambda: tu.all_leaves(leaves),
        "all_leaves_of_tree": lambda: tu.all_leaves([tree]),
        "prefix": lambda: repr(prefix),
        "flatten_up_to": lambda: repr(prefix.flatten_up_to(tree)),
        "compose": lambda: repr(treedef.compose(tu.tree_structure((0, [0])))),
        "compose_num_leaves": lambda: treedef.compose(tu.tree_structure((0, [0]))).num_leaves,
        "treedef_tuple": lambda: repr(tu.treedef_tuple([treedef, prefix])),
        "transpose": lambda: repr(
            tu.tree_transpose(
                treedef,
                tu.tree_structure((0, [0])),
                tu.tree_map(lambda x: (x, [f"-{x}"]), tree),
            )
        ),
        "transpose_inferred": lambda: repr(
            tu.tree_transpose(treedef, None, tu.tree_map(lambda x: {"p": x, "q": -1}, tree))
        ),
        "broadcast": lambda: repr(
            tu.tree_leaves(tu.tree_broadcast(prefix.unflatten(range(prefix.num_leaves)), tree))
        ),
        "unflatten_too_few": lambda: _error(
            lambda: treedef.unflatten(leaves[:-1] if leaves else [])
        ),
        "unflatten_too_many": lambda: _error(lambda: treedef.unflatten([*leaves, 0])),
    }
    return {name: _error_or(fn) for name, fn in fields.items()}


def _error_or(fn: Any) -> Any:
    try:
        return fn()
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e)}


def record_mismatch(a: Any, b: Any, tu: Any) -> dict[str, Any]:
    """The errors each API raises on two trees of different structure."""
    td = tu.tree_structure(a)
    return {
        "tree_map": _error(lambda: tu.tree_map(lambda x, y: x, a, b)),
        "tree_map_with_path": _error(lambda: tu.tree_map_with_path(lambda p, x, y: x, a, b)),
        "flatten_up_to": _error(lambda: td.flatten_up_to(b)),
        "broadcast": _error(lambda: tu.tree_broadcast(a, b)),
        "equal": td == tu.tree_structure(b),
    }


def record_misc(tu: Any) -> dict[str, Any]:
    """Registration errors, key reprs and other one-off behaviours."""
    return {
        "mixed_dict_keys": _error(lambda: tu.tree_flatten({1: 1, "a": 2})),
        "duplicate_registration": _error(
            lambda: tu.register_pytree_node(Box, lambda b: ((), None), lambda a, c: None)
        ),
        "duplicate_builtin": _error(
            lambda: tu.register_pytree_node(list, lambda b: ((), None), lambda a, c: None)
        ),
        "duplicate_dataclass": _error(lambda: tu.register_dataclass(Param)),
        "reduce_empty": _error(lambda: tu.tree_reduce(lambda a, b: a, [])),
        "transpose_mismatch": _error(
            lambda: tu.tree_transpose(
                tu.tree_structure([0, 0]), tu.tree_structure((0, 0, 0)), [(1, 2), (3, 4)]
            )
        ),
        "key_reprs": [
            repr(k)
            for k in (
                tu.SequenceKey(3),
                tu.DictKey("k"),
                tu.DictKey(7),
                tu.GetAttrKey("w"),
                tu.FlattenedIndexKey(2),
            )
        ],
        "key_strs": [
            str(k)
            for k in (
                tu.SequenceKey(3),
                tu.DictKey("k"),
                tu.DictKey(7),
                tu.GetAttrKey("w"),
                tu.FlattenedIndexKey(2),
            )
        ],
    }


def record_one_level(tree: Any, tu: Any) -> dict[str, Any]:
    """``flatten_one_level`` and ``..._with_keys`` of ``tree``: types and reprs."""

    def one(fn: Any) -> Any:
        try:
            children, meta = fn(tree)
        except Exception as e:
            return {"type": type(e).__name__, "message": str(e)}
        return {"children_type": type(children).__name__, "children": repr(children),
                "meta": repr(meta)}  # fmt: skip

    return {
        "flatten_one_level": one(tu.flatten_one_level),
        "flatten_one_level_with_keys": one(tu.flatten_one_level_with_keys),
        "registry": repr(tu.default_registry.flatten_one_level(tree)),
        "registry_with_keys": repr(tu.default_registry.flatten_one_level_with_keys(tree)),
    }
