"""Map handlers: ``tree_map`` of one tree in one pass, one function per node type.

``MAP_HANDLERS`` (in the registry) maps an exact type to its map handler, or
to None for leaf types. A handler ``h(f, x)`` returns node ``x`` rebuilt with
``f`` applied to every leaf under it, calling ``f`` in flattening order and
rebuilding exactly as unflattening would (dicts in sorted key order,
namedtuples through their class, registered dataclasses through a keyword
call of their class, other custom nodes through their unflatten function).
No treedef is built. As for flattening, each handler is generated for its
type, with the rebuild written out as one expression.
"""

from __future__ import annotations

import keyword
import operator
from typing import Any

from ._registry import (
    CUSTOM,
    DICT,
    LEAF,
    LIST,
    MAP_HANDLERS,
    NAMEDTUPLE,
    NONE,
    REGISTRY,
    TUPLE,
    classify,
    init_order,
)

__all__ = ["MAP_HANDLERS", "make_map_handler"]

_UNROLL_MAX = 8  # namedtuple and dataclass fields written out one by one

# One child, mapped: a leaf through f, a node through its own handler.
_ONE = "(f({v}) if (h := MH[type({v})]) is None else h(f, {v}))"
_EACH = f"[{_ONE.format(v='c')} for c in {{src}}]"


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _attr(name: str) -> str:
    return f"x.{name}" if _identifier(name) else f"getattr(x, {name!r})"


def _body(t: type[Any], kind: int) -> list[str]:
    """The statements of the handler of ``t``, returning the mapped node."""
    if kind == LIST:
        return [f"    return {_EACH.format(src='x')}"]
    if kind == TUPLE:
        return [f"    return tuple({_EACH.format(src='x')})"]
    if kind == DICT:
        return [
            "    try:",
            "        keys = sorted(x)",
            "    except TypeError:",
            "        raise ValueError(SORT_ERROR) from None",
            "    values = GET(*keys)(x) if len(keys) > 1 else map(x.__getitem__, keys)",
            f"    return dict(zip(keys, {_EACH.format(src='values')}))",
        ]
    if kind == NAMEDTUPLE:
        n = len(t._fields)
        lines = []
        if 0 < n <= _UNROLL_MAX:
            names = [f"c{i}" for i in range(n)]
            lines = [
                f"    if len(x) == {n}:",
                f"        ({''.join(v + ', ' for v in names)}) = x",
                f"        return TYP({', '.join(_ONE.format(v=v) for v in names)})",
            ]
        return [*lines, f"    return TYP(*{_EACH.format(src='x')})"]
    entry = REGISTRY[t]
    if entry.fields is None:
        return [
            "    children, aux = FLATTEN(x)",
            f"    return UNFLATTEN(aux, tuple({_EACH.format(src='children')}))",
        ]
    data, meta = entry.fields
    if len(data) <= _UNROLL_MAX and all(map(_identifier, data + meta)):
        # Read data then meta fields, as flattening does; map the data in order.
        lines = [f"    c{i} = {_attr(d)}" for i, d in enumerate(data)]
        lines += [f"    m{i} = {_attr(m)}" for i, m in enumerate(meta)]
        values = {m: f"m{i}" for i, m in enumerate(meta)}
        values.update({d: _ONE.format(v=f"c{i}") for i, d in enumerate(data)})
        order = init_order(t, data, meta)
        if order is None:
            args = [f"{n}={v}" for n, v in values.items()]
        else:  # the same binding, passed positionally (data still in order)
            args = [values[n] for n in order[0]] + [f"{n}={values[n]}" for n in order[1]]
        return [*lines, f"    return TYP({', '.join(args)})"]
    reads = "".join(f"{_attr(d)}, " for d in data)
    aux = "".join(f"{_attr(m)}, " for m in meta)
    return [
        f"    children = ({reads})",
        f"    aux = ({aux})",
        f"    return UNFLATTEN(aux, tuple({_EACH.format(src='children')}))",
    ]


def make_map_handler(t: type[Any]) -> Any:
    """The map handler of exact type ``t``, or None if ``t`` is a leaf type."""
    kind = classify(t)
    if kind == LEAF:
        return None
    if kind == NONE:
        return _map_none
    entry = REGISTRY.get(t) if kind == CUSTOM else None
    namespace: dict[str, Any] = {
        "FLATTEN": None if entry is None else entry.flatten,
        "GET": operator.itemgetter,
        "MH": MAP_HANDLERS,
        "SORT_ERROR": "Comparator raised exception while sorting pytree dictionary keys.",
        "TYP": t,
        "UNFLATTEN": None if entry is None else entry.unflatten,
    }
    source = "\n".join(["def handler(f, x):", *_body(t, kind)]) + "\n"
    exec(compile(source, f"<tessela_pytree map {t.__qualname__}>", "exec"), namespace)
    handler = namespace["handler"]
    handler.__qualname__ = f"map_handler[{t.__qualname__}]"
    return handler


def _map_none(f: Any, x: None) -> None:
    return None


MAP_HANDLERS.make = make_map_handler  # type: ignore[attr-defined]
