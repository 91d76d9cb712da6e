"""Key entries: the steps of a key path from a pytree's root to one of its leaves.

Four kinds of entry exist, one per way a node hands out its children:
``SequenceKey`` (position in a tuple or list), ``DictKey`` (a mapping key),
``GetAttrKey`` (an attribute, as namedtuples and dataclasses use) and
``FlattenedIndexKey`` (the position among the children of a custom node that
was registered without keys). Each is small, immutable, hashable, comparable
and picklable, and supports structural pattern matching.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, TypeAlias

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "PyTree",
    "SequenceKey",
    "keystr",
]


class SequenceKey:
    """The position of a child in a tuple or list.

    Args:
      idx: the index of the child.

    Example:
      >>> from tessela_pytree import SequenceKey
      >>> SequenceKey(1), str(SequenceKey(1))
      (SequenceKey(idx=1), '[1]')
    """

    __slots__ = ("idx",)
    __match_args__ = ("idx",)
    idx: int

    def __init__(self, idx: int) -> None:
        if not isinstance(idx, int):
            raise TypeError(
                f"SequenceKey(idx=...) takes an int, got {type(idx).__name__} "
                f"{idx!r}; pass the position of the child, e.g. SequenceKey(0)."
            )
        object.__setattr__(self, "idx", idx)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"SequenceKey(idx={self.idx!r})"

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def __eq__(self, other: object) -> bool:
        return type(other) is SequenceKey and other.idx == self.idx

    def __hash__(self) -> int:
        return hash((SequenceKey, self.idx))

    def __reduce__(self) -> tuple[type[SequenceKey], tuple[int]]:
        return (SequenceKey, (self.idx,))


class DictKey:
    """The key of a child in a dict (or OrderedDict, defaultdict).

    Args:
      key: the mapping key of the child.

    Example:
      >>> from tessela_pytree import DictKey
      >>> DictKey("w"), str(DictKey("w"))
      (DictKey(key='w'), "['w']")
    """

    __slots__ = ("key",)
    __match_args__ = ("key",)
    key: Hashable

    def __init__(self, key: Hashable) -> None:
        object.__setattr__(self, "key", key)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"DictKey(key={self.key!r})"

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def __eq__(self, other: object) -> bool:
        return type(other) is DictKey and bool(other.key == self.key)

    def __hash__(self) -> int:
        return hash((DictKey, self.key))

    def __reduce__(self) -> tuple[type[DictKey], tuple[Hashable]]:
        return (DictKey, (self.key,))


class GetAttrKey:
    """The attribute name of a child (namedtuples, dataclasses, custom nodes).

    Args:
      name: the attribute name.

    Example:
      >>> from tessela_pytree import GetAttrKey
      >>> GetAttrKey("x"), str(GetAttrKey("x"))
      (GetAttrKey(name='x'), '.x')
    """

    __slots__ = ("name",)
    __match_args__ = ("name",)
    name: str

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(
                f"GetAttrKey(name=...) takes a str, got {type(name).__name__} "
                f"{name!r}; pass the attribute name, e.g. GetAttrKey('x')."
            )
        object.__setattr__(self, "name", name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"GetAttrKey(name={self.name!r})"

    def __str__(self) -> str:
        return f".{self.name}"

    def __eq__(self, other: object) -> bool:
        return type(other) is GetAttrKey and other.name == self.name

    def __hash__(self) -> int:
        return hash((GetAttrKey, self.name))

    def __reduce__(self) -> tuple[type[GetAttrKey], tuple[str]]:
        return (GetAttrKey, (self.name,))


class FlattenedIndexKey:
    """The position of a child among a custom node's flattened children.

    Custom nodes registered without a ``flatten_with_keys`` function get these.

    Args:
      key: the index of the child in the node's flattened children.

    Example:
      >>> from tessela_pytree import FlattenedIndexKey
      >>> FlattenedIndexKey(2), str(FlattenedIndexKey(2))
      (FlattenedIndexKey(key=2), '[<flat index 2>]')
    """

    __slots__ = ("key",)
    __match_args__ = ("key",)
    key: int

    def __init__(self, key: int) -> None:
        if not isinstance(key, int):
            raise TypeError(
                f"FlattenedIndexKey(key=...) takes an int, got "
                f"{type(key).__name__} {key!r}; pass the child's position, "
                "e.g. FlattenedIndexKey(0)."
            )
        object.__setattr__(self, "key", key)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"FlattenedIndexKey(key={self.key!r})"

    def __str__(self) -> str:
        return f"[<flat index {self.key!r}>]"

    def __eq__(self, other: object) -> bool:
        return type(other) is FlattenedIndexKey and other.key == self.key

    def __hash__(self) -> int:
        return hash((FlattenedIndexKey, self.key))

    def __reduce__(self) -> tuple[type[FlattenedIndexKey], tuple[int]]:
        return (FlattenedIndexKey, (self.key,))


KeyEntry: TypeAlias = Any
"""One step of a key path: usually one of the four key classes."""

KeyPath: TypeAlias = tuple[Any, ...]
"""A tuple of key entries, from the root of a pytree to one of its parts."""

PyTree: TypeAlias = Any
"""A pytree: a leaf (any object) or a container node of pytrees; no narrower static type.

It names the arguments that the ``tree_*`` functions walk (a tree, the other
trees of a map, a prefix) apart from leaves, aux data and other values that
are ``Any`` for other reasons.
"""


def _simple_str(entry: Any) -> str:
    kind = type(entry)
    if kind is SequenceKey:
        return str(entry.idx)
    if kind is DictKey or kind is FlattenedIndexKey:
        return str(entry.key)
    if kind is GetAttrKey:
        return entry.name  # type: ignore[no-any-return]
    return str(entry)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path as a string.

    Args:
      keys: a tuple of key entries (any object with a ``str`` will do).
      simple: when true, render each entry as its bare key (``a`` rather than
        ``['a']``, ``0`` rather than ``[0]``): shorter, but ambiguous.
      separator: the string placed between entries.

    Returns:
      The entries' strings joined by ``separator``.

    Example:
      >>> from tessela_pytree import keystr, tree_leaves_with_path
      >>> params = {"w": [1, 2], "b": 3}
      >>> [keystr(p) for p, _ in tree_leaves_with_path(params)]
      ["['b']", "['w'][0]", "['w'][1]"]
      >>> [keystr(p, simple=True, separator="/") for p, _ in tree_leaves_with_path(params)]
      ['b', 'w/0', 'w/1']
    """
    render = _simple_str if simple else str
    return separator.join([render(k) for k in keys])
