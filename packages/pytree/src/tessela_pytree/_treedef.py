"""``PyTreeDef``: the shape of a pytree with its leaves taken out.

A treedef wraps one *node*. A leaf is ``None``; any other node is a plain
tuple ``(kind, type, aux, kids)`` where ``kind`` is the registry's integer
kind, ``type`` the node's Python type, ``aux`` its static data (the sorted
keys of a dict, a custom node's aux data) and ``kids`` either an int (every
child is a leaf, and this many of them) or a tuple of child nodes. The form is
canonical, so structural equality and hashing are the tuples' own, done in C;
the int form saves an allocation per leaf on the hot paths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from ._compile import compile_unflatten
from ._keys import DictKey, FlattenedIndexKey, GetAttrKey, PyTree, SequenceKey, keystr
from ._registry import (
    DICT,
    LIST,
    NAMEDTUPLE,
    NONE,
    REGISTRY,
    TUPLE,
    classify,
)

__all__ = ["PyTreeDef", "treedef_children", "treedef_is_leaf", "treedef_tuple"]

Node = Any  # None (a leaf) or tuple[int, type, Any, int | tuple[Node, ...]]

_NONE_HINT = (
    "\n\nIn previous releases of JAX, flatten-up-to used to consider None to be a "
    "tree-prefix of non-None values. To obtain the previous behavior, you can "
    "usually write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), "
    "a, b, is_leaf=lambda x: x is None)"
)


class StructureMismatch(Exception):
    """Internal: carries a mismatch message up while collecting its key path."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.keys: list[Any] = []


def make_node(kind: int, typ: type[Any], aux: Any, kids: list[Node]) -> Node:
    """Builds a node in canonical form from a list of child nodes."""
    for k in kids:
        if k is not None:
            return (kind, typ, aux, tuple(kids))
    return (kind, typ, aux, len(kids))


def _kids(node: Node) -> tuple[Node, ...]:
    kids = node[3]
    return (None,) * kids if type(kids) is int else kids


def _count_nodes(node: Node) -> int:
    if node is None:
        return 1
    kids = node[3]
    if type(kids) is int:
        return 1 + kids
    return 1 + sum([_count_nodes(k) for k in kids])


def _count_leaves(node: Node) -> int:
    if node is None:
        return 1
    kids = node[3]
    if type(kids) is int:
        return kids
    return sum([_count_leaves(k) for k in kids])


def build(node: Node, it: Iterator[Any]) -> Any:
    """Rebuilds the pytree for ``node`` taking leaves from ``it``."""
    kind, typ, aux, kids = node
    if type(kids) is int:
        if kind == LIST:
            return list(islice(it, kids))
        if kind == DICT:
            return dict(zip(aux, it, strict=False))
        if kind == TUPLE:
            return tuple(islice(it, kids))
        if kind == NONE:
            return None
        if kind == NAMEDTUPLE:
            return typ(*islice(it, kids))
        return REGISTRY[typ].unflatten(aux, tuple(islice(it, kids)))
    vals = [next(it) if k is None else build(k, it) for k in kids]
    if kind == LIST:
        return vals
    if kind == DICT:
        return dict(zip(aux, vals, strict=False))
    if kind == TUPLE:
        return tuple(vals)
    if kind == NAMEDTUPLE:
        return typ(*vals)
    return REGISTRY[typ].unflatten(aux, tuple(vals))


_COMPILE_AFTER_LEAVES = 4096


def _generic_builder(node: Node) -> Callable[[list[Any]], Any]:
    """``build`` over a leaf list, for trees that are not compiled."""

    def rebuild(leaves: list[Any]) -> Any:
        return build(node, iter(leaves))

    return rebuild


def _child_key(node: Node, i: int) -> Any:
    kind, typ, aux, _ = node
    if kind in (TUPLE, LIST):
        return SequenceKey(i)
    if kind == DICT:
        return DictKey(aux[i])
    if kind == NAMEDTUPLE:
        return GetAttrKey(typ._fields[i])
    return FlattenedIndexKey(i)


def _present_keys(x: dict[Any, Any]) -> list[Any]:
    try:
        return sorted(x)
    except TypeError:
        return list(x)


def _children_up_to(node: Node, x: Any) -> Any:
    """The children of ``x`` matched against ``node``, or a StructureMismatch."""
    kind, typ, aux, kids = node
    n = kids if type(kids) is int else len(kids)
    if kind == LIST:
        if type(x) is not list:
            raise StructureMismatch(f"Expected list, got {x!r}.")
        if len(x) != n:
            raise StructureMismatch(f"List arity mismatch: {len(x)} != {n}; list: {x!r}.")
        return x
    if kind == DICT:
        if type(x) is not dict:
            raise StructureMismatch(f"Expected dict, got {x!r}.")
        if len(x) == n:
            try:
                return [x[k] for k in aux]
            except KeyError:
                pass
        raise StructureMismatch(
            f"Dict key mismatch; expected keys: {list(aux)!r}; present keys: {_present_keys(x)!r}."
        )
    if kind == TUPLE:
        if type(x) is not tuple:
            raise StructureMismatch(f"Expected tuple, got {x!r}.")
        if len(x) != n:
            raise StructureMismatch(f"Tuple arity mismatch: {len(x)} != {n}; tuple: {x!r}.")
        return x
    if kind == NONE:
        if x is not None:
            raise StructureMismatch(f"Expected None, got {x!r}.{_NONE_HINT}")
        return ()
    if kind == NAMEDTUPLE:
        if classify(type(x)) != NAMEDTUPLE:
            raise StructureMismatch(f"Expected named tuple, got {x!r}.")
        if len(x) != n:
            raise StructureMismatch(f"Named tuple arity mismatch: {len(x)} != {n}; tuple: {x!r}.")
        if type(x) is not typ:
            raise StructureMismatch(
                f"Named tuple type mismatch: expected type: {typ!r}, tuple: {x!r}."
            )
        return x
    entry = REGISTRY[typ]
    if type(x) is not typ:
        what = "dataclass " if entry.is_dataclass else ""
        raise StructureMismatch(
            f"Custom {what}node type mismatch: expected type: {typ!r}, value: {x!r}."
        )
    children, x_aux = entry.flatten(x)
    if x_aux != aux:
        what = "dataclass " if entry.is_dataclass else ""
        raise StructureMismatch(
            f"Mismatch custom {what}node data: {aux!r} != {x_aux!r}; value: {x!r}."
        )
    children = list(children)
    if len(children) != n:
        raise StructureMismatch(
            f"Custom type arity mismatch: {len(children)} != {n}; value: {x!r}."
        )
    return children


def up_to(node: Node, x: Any, out: list[Any]) -> None:
    """Appends to ``out`` the subtrees of ``x`` at the leaves of ``node``."""
    children = _children_up_to(node, x)
    kids = node[3]
    if type(kids) is int:
        out.extend(children)
        return
    for i, (k, c) in enumerate(zip(kids, children, strict=False)):
        if k is None:
            out.append(c)
        else:
            try:
                up_to(k, c, out)
            except StructureMismatch as e:
                e.keys.append(_child_key(node, i))
                raise


def _compose(node: Node, inner: Node) -> Node:
    if node is None:
        return inner
    kind, typ, aux, kids = node
    if type(kids) is int:
        return (kind, typ, aux, kids if inner is None or not kids else (inner,) * kids)
    return (kind, typ, aux, tuple([_compose(k, inner) for k in kids]))


def _type_name(typ: type[Any]) -> str:
    return typ.__name__


def _repr(node: Node, parts: list[str]) -> None:
    if node is None:
        parts.append("*")
        return
    kind, typ, aux, kids = node
    kids = _kids(node)
    if kind == NONE:
        parts.append("None")
        return
    if kind == DICT:
        parts.append("{")
        for i, (key, k) in enumerate(zip(aux, kids, strict=False)):
            if i:
                parts.append(", ")
            parts.append(f"{key!r}: ")
            _repr(k, parts)
        parts.append("}")
        return
    if kind == TUPLE:
        open_, close = "(", ",)" if len(kids) == 1 else ")"
    elif kind == LIST:
        open_, close = "[", "]"
    else:
        data = typ.__name__ if kind == NAMEDTUPLE else aux
        label = "namedtuple" if kind == NAMEDTUPLE else _type_name(typ)
        open_, close = f"CustomNode({label}[{data}], [", "])"
    parts.append(open_)
    for i, k in enumerate(kids):
        if i:
            parts.append(", ")
        _repr(k, parts)
    parts.append(close)


def _skeleton(node: Node) -> Any:
    if node is None:
        return None
    kind, typ, _, kids = node
    if type(kids) is int:
        return (kind, typ, kids)
    return (kind, typ, tuple([_skeleton(k) for k in kids]))


class PyTreeDef:
    """The structure of a pytree: its nodes, their types and static data.

    Get one from ``tree_structure`` or ``tree_flatten``. Treedefs are
    immutable, hashable, comparable with ``==`` and picklable (custom node
    types must be importable by the unpickling process).

    Example:
      >>> from tessela_pytree import tree_structure
      >>> td = tree_structure({"a": 1, "b": (2, 3)})
      >>> td
      PyTreeDef({'a': *, 'b': (*, *)})
      >>> td.num_leaves, td.num_nodes
      (3, 5)
      >>> td.unflatten([10, 20, 30])
      {'a': 10, 'b': (20, 30)}
    """

    __slots__ = ("_builder", "_hash", "_node", "_num_leaves", "_num_nodes")
    _node: Node
    _num_leaves: int
    _num_nodes: int
    _hash: int
    _builder: Callable[[list[Any]], Any] | int

    # Only ``_node`` and ``_num_leaves`` are set on creation (flattening makes a
    # treedef per call); the other slots are filled when first needed.
    def __init__(self, node: Node, num_leaves: int = -1) -> None:
        self._node = node
        self._num_leaves = _count_leaves(node) if num_leaves < 0 else num_leaves

    @property
    def num_leaves(self) -> int:
        """The number of leaves."""
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """The number of nodes, leaves included."""
        try:
            return self._num_nodes
        except AttributeError:
            self._num_nodes = _count_nodes(self._node)
            return self._num_nodes

    def unflatten(self, leaves: Iterable[Any], /) -> PyTree:
        """Builds a pytree of this structure from its leaves.

        Args:
          leaves: exactly ``num_leaves`` values, in flattening order.

        Returns:
          The pytree.

        Raises:
          ValueError: if there are too few or too many leaves.

        Example:
          >>> from tessela_pytree import tree_structure
          >>> tree_structure([0, (0, 0)]).unflatten("abc")
          ['a', ('b', 'c')]
        """
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        n = len(leaves)
        if n != self._num_leaves:
            if n < self._num_leaves:
                raise ValueError(
                    f"Too few leaves for PyTreeDef; expected {self._num_leaves}, got {n}"
                )
            raise ValueError(f"Too many leaves for PyTreeDef; expected {self._num_leaves}.")
        node = self._node
        if node is None:
            return leaves[0]
        try:
            builder = self._builder
        except AttributeError:
            # The number of unflatten calls so far, until replaced by the builder.
            builder = 0
        if type(builder) is int:
            # Compiling costs about as much as 50-100 generic rebuilds of a small
            # tree and a few of a large one: compile once the calls so far have
            # rebuilt enough leaves, and never for a treedef used only once.
            builder += 1
            if builder < 2 or builder * n < _COMPILE_AFTER_LEAVES:
                self._builder = builder
                return build(node, iter(leaves))
            builder = self._builder = compile_unflatten(node) or _generic_builder(node)
        return builder(leaves if type(leaves) is list else list(leaves))  # type: ignore[operator]

    def flatten_up_to(self, xs: PyTree, /) -> list[Any]:
        """Flattens ``xs`` only as deep as this structure goes.

        Args:
          xs: a pytree that has this treedef as a prefix of its structure.

        Returns:
          The subtrees of ``xs`` at this treedef's leaves, in order.

        Raises:
          ValueError: if ``xs`` does not match; the message says how, and at
            which key path.

        Example:
          >>> from tessela_pytree import tree_structure
          >>> tree_structure([0, 0]).flatten_up_to([(1, 2), {"a": 3}])
          [(1, 2), {'a': 3}]
        """
        node = self._node
        if node is None:
            return [xs]
        out: list[Any] = []
        try:
            up_to(node, xs, out)
        except StructureMismatch as e:
            where = keystr(tuple(reversed(e.keys)))
            raise ValueError(
                f"{e.message}\nThe mismatch is at key path {where or '() (the root)'} "
                f"of the tree being flattened, whose structure must be {self!r} or "
                "have it as a prefix."
            ) from None
        return out

    def children(self) -> list[PyTreeDef]:
        """The treedefs of the root's children (empty for a leaf).

        Example:
          >>> from tessela_pytree import tree_structure
          >>> tree_structure([(1, 2), 3]).children()
          [PyTreeDef((*, *)), PyTreeDef(*)]
        """
        if self._node is None:
            return []
        return [PyTreeDef(k) for k in _kids(self._node)]

    def compose(self, inner_treedef: PyTreeDef, /) -> PyTreeDef:
        """This structure with every leaf replaced by ``inner_treedef``.

        Args:
          inner_treedef: the structure to put at each leaf.

        Returns:
          The composed treedef.

        Example:
          >>> from tessela_pytree import tree_structure
          >>> tree_structure([0, 0]).compose(tree_structure((0, 0)))
          PyTreeDef([(*, *), (*, *)])
        """
        if not isinstance(inner_treedef, PyTreeDef):
            raise TypeError(
                f"compose() takes a PyTreeDef, got {type(inner_treedef).__name__}; "
                "pass tree_structure(inner_tree)."
            )
        return PyTreeDef(
            _compose(self._node, inner_treedef._node),
            self._num_leaves * inner_treedef._num_leaves,
        )

    def node_data(self) -> tuple[type[Any], Any] | None:
        """The root's ``(type, aux_data)``, or None for a leaf.

        Example:
          >>> from tessela_pytree import tree_structure
          >>> tree_structure({"b": 1, "a": 2}).node_data()
          (<class 'dict'>, ['a', 'b'])
        """
        node = self._node
        if node is None:
            return None
        kind, typ, aux, _ = node
        if kind == DICT:
            return (typ, list(aux))
        return (typ, aux)

    def __repr__(self) -> str:
        parts = ["PyTreeDef("]
        _repr(self._node, parts)
        parts.append(")")
        return "".join(parts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PyTreeDef):
            return False
        return self is other or bool(self._node == other._node)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            try:
                h = hash(self._node)
            except TypeError:
                h = hash(_skeleton(self._node))
            self._hash = h
            return h

    def __reduce__(self) -> tuple[Any, tuple[Node, int]]:
        return (_rebuild, (self._node, self._num_leaves))


def _rebuild(node: Node, num_leaves: int) -> PyTreeDef:
    return PyTreeDef(node, num_leaves)


LEAF_TREEDEF = PyTreeDef(None, 1)


def treedef_is_leaf(treedef: PyTreeDef, /) -> bool:
    """Tells whether a treedef has a single node (a leaf, or ``None``).

    Args:
      treedef: the treedef to check.

    Returns:
      True if ``treedef.num_nodes == 1``.

    Example:
      >>> from tessela_pytree import tree_structure, treedef_is_leaf
      >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure([1]))
      (True, False)
    """
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef, /) -> list[PyTreeDef]:
    """The treedefs of the root's children.

    Args:
      treedef: a treedef.

    Returns:
      ``treedef.children()``.

    Example:
      >>> from tessela_pytree import tree_structure, treedef_children
      >>> treedef_children(tree_structure({"a": [1, 2], "b": 3}))
      [PyTreeDef([*, *]), PyTreeDef(*)]
    """
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef], /) -> PyTreeDef:
    """The treedef of a tuple whose children have the given structures.

    Args:
      treedefs: the children's treedefs.

    Returns:
      A tuple treedef.

    Example:
      >>> from tessela_pytree import tree_structure, treedef_tuple
      >>> treedef_tuple([tree_structure([1]), tree_structure(2)])
      PyTreeDef(([*], *))
    """
    tds = list(treedefs)
    for td in tds:
        if not isinstance(td, PyTreeDef):
            raise TypeError(
                f"treedef_tuple takes PyTreeDefs, got {type(td).__name__}; "
                "pass [tree_structure(x) for x in trees]."
            )
    node = make_node(TUPLE, tuple, None, [td._node for td in tds])
    return PyTreeDef(node, sum([td._num_leaves for td in tds]))
