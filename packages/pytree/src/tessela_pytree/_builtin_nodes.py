"""The node types registered with the package itself: ``Partial``,
``collections.OrderedDict`` and ``collections.defaultdict``.

OrderedDict children come in insertion order, defaultdict children in sorted
key order (as dicts), and both give their keys to key paths from their aux
data alone. ``Partial`` is a ``functools.partial`` whose bound arguments are
its children.
"""

from __future__ import annotations

import collections
import functools
import operator
from collections.abc import Callable, Iterable
from typing import Any

from ._keys import DictKey
from ._registry import _add, _sorted_keys, register_pytree_node

__all__ = ["Partial"]


class _HashableCallable:
    """Wraps a ``functools.partial`` so ``Partial`` does not merge its arguments."""

    __slots__ = ("args", "fun", "func", "keywords")
    fun: Callable[..., Any]
    func: Callable[..., Any]
    args: tuple[Any, ...]
    keywords: dict[str, Any]

    def __init__(self, fun: Callable[..., Any]) -> None:
        self.fun = fun

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _HashableCallable):
            return bool(self.fun == other.fun)
        return bool(self.fun == other)

    def __repr__(self) -> str:
        return f"_HashableCallable({self.fun!r})"


class Partial(functools.partial[Any]):
    """A ``functools.partial`` that is a pytree: bound arguments are its children.

    The function is static node data; positional and keyword arguments are
    flattened (as a tuple and a dict).

    Args:
      func: the callable to wrap.
      *args: positional arguments to bind.
      **kw: keyword arguments to bind.

    Example:
      >>> from operator import add
      >>> from tessela_pytree import Partial, tree_map
      >>> inc = Partial(add, 1)
      >>> inc(2)
      3
      >>> tree_map(lambda x: x * 10, inc)(2)
      12
    """

    def __new__(cls, func: Callable[..., Any], /, *args: Any, **kw: Any) -> Partial:
        if isinstance(func, functools.partial):
            inner = func
            wrapped = _HashableCallable(inner)
            out = super().__new__(cls, wrapped, *args, **kw)
            wrapped.func = inner.func
            wrapped.args = inner.args
            wrapped.keywords = inner.keywords
            return out
        return super().__new__(cls, func, *args, **kw)


def _partial_unflatten(func: Any, children: Iterable[Any]) -> Partial:
    args, kwargs = children
    return Partial(func, *args, **kwargs)


def _ordereddict_with_keys(
    d: collections.OrderedDict[Any, Any],
) -> tuple[tuple[tuple[DictKey, Any], ...], tuple[Any, ...]]:
    return tuple([(DictKey(k), d[k]) for k in d]), tuple(d)


def _ordereddict_flatten(
    d: collections.OrderedDict[Any, Any],
) -> tuple[list[Any], tuple[Any, ...]]:
    return list(d.values()), tuple(d)


def _ordereddict_unflatten(
    keys: tuple[Any, ...], values: Iterable[Any]
) -> collections.OrderedDict[Any, Any]:
    return collections.OrderedDict(zip(keys, values, strict=True))


def _defaultdict_with_keys(
    d: collections.defaultdict[Any, Any],
) -> tuple[tuple[tuple[DictKey, Any], ...], tuple[Any, tuple[Any, ...]]]:
    keys = _sorted_keys(d)
    return tuple([(DictKey(k), d[k]) for k in keys]), (d.default_factory, keys)


def _defaultdict_flatten(
    d: collections.defaultdict[Any, Any],
) -> tuple[list[Any], tuple[Any, tuple[Any, ...]]]:
    keys = _sorted_keys(d)
    return [d[k] for k in keys], (d.default_factory, keys)


def _defaultdict_unflatten(
    aux: tuple[Any, tuple[Any, ...]], values: Iterable[Any]
) -> collections.defaultdict[Any, Any]:
    factory, keys = aux
    return collections.defaultdict(factory, zip(keys, values, strict=True))


def _partial_flatten(p: Partial) -> tuple[tuple[Any, Any], Any]:
    return (p.args, p.keywords), p.func


_add(
    collections.OrderedDict,
    _ordereddict_flatten,
    _ordereddict_unflatten,
    _ordereddict_with_keys,
    aux_keys=tuple,
)
_add(
    collections.defaultdict,
    _defaultdict_flatten,
    _defaultdict_unflatten,
    _defaultdict_with_keys,
    aux_keys=operator.itemgetter(1),
)
register_pytree_node(Partial, _partial_flatten, _partial_unflatten)
