"""Flatten handlers: one function per node type, generated for that type.

``HANDLERS`` (in the registry) maps an exact type to its handler, or to None
for leaf types; it is a plain dict, and a type it lacks gets its handler from
:func:`handler_of`. A handler ``h(x, leaves)`` appends the leaves under node ``x``
to ``leaves`` and returns the node's canonical treedef node (see
``_treedef``). Handlers are generated from one source template, specialised
per type: the node's kind, type and how its children and aux data are read
are constants of the generated function, so a node costs one call with no
dispatch on its kind. Namedtuples and registered dataclasses with few fields
also get an unrolled fast path: when every child is a leaf, the children are
read into locals, checked and appended in one step, and (for namedtuples)
the node returned is one shared constant.

Containers of fewer than 16 children check them up to the first node and,
when all are leaves, append them at once. Otherwise children that are leaves
are handled inline in the parent's loop (one table lookup and one append per
leaf). Wide containers go to ``_wide``: rows of leaves are checked per
distinct type and appended at once, and rows of equally typed leaf-only
lists, tuples or namedtuples are taken apart with C-level ``map``/``chain``
calls (``_flat_siblings``).
"""

from __future__ import annotations

import keyword
from itertools import chain, repeat
from typing import Any

from ._registry import (
    _CACHE_LIMIT,
    _KIND,
    CUSTOM,
    DICT,
    DICT_SORTS,
    HANDLERS,
    LEAF,
    LIST,
    NAMEDTUPLE,
    NONE,
    REGISTRY,
    TUPLE,
    classify,
    dict_sort,
)

__all__ = ["NONE_NODE", "handler_of"]

Node = Any
NONE_NODE: Node = (NONE, type(None), None, 0)

_SEQ_ROW_MIN = 8  # rows of lists, tuples or namedtuples flattened at once
_LEAF_ROW_MIN = 16  # leaves checked per distinct type instead of one by one
_UNROLL_MAX = 8  # fields read into locals by the unrolled fast path
_ROW_KINDS = frozenset((LIST, TUPLE, NAMEDTUPLE))


def _wide(children: list[Any] | tuple[Any, ...], leaves: list[Any], head: Node) -> Node | None:
    """Flattens a wide row of children at C speed, or returns None (nothing appended).

    ``head`` is the parent's ``(kind, type, aux)``; the result is its node.
    Rows of leaves and of lists, tuples or namedtuples qualify; a row that
    starts with a registered dataclass goes to that type's row function (its
    handler's ``row``: one loop with the dataclass's fast path inline); rows
    of dicts and other custom nodes go through their handlers.
    """
    t0 = type(children[0])
    first = _KIND[t0]
    n = len(children)
    if first == LEAF:
        if n < _LEAF_ROW_MIN:
            return None
        kind_of = _KIND
        for t in set(map(type, children)):
            if kind_of[t]:
                return None
        leaves += children
        return (*head, n)
    if first in _ROW_KINDS and n >= _SEQ_ROW_MIN:
        batch = _flat_siblings(children, leaves)
        return None if batch is None else (*head, batch)
    if first == CUSTOM and n >= _SEQ_ROW_MIN:
        row = getattr(HANDLERS.get(t0), "row", None)
        if row is not None:
            return (*head, row(children, leaves))
    return None


# A row function of a registered dataclass: the kids of a row of children,
# those of its type flattened by the handler's fast path inline (``rest`` is
# the handler after it), the others as the generic loop does.
_ROW_FN = """\
def row(children, leaves):
    handlers = HANDLERS
    kids = []
    add = kids.append
    for x in children:
        if type(x) is TYP:
FAST
            add(rest(children_, aux, leaves))
            continue
        try:
            h = handlers[type(x)]
        except KeyError:
            h = handler_of(type(x))
        if h is None:
            leaves.append(x)
            add(None)
        else:
            add(NONE_NODE if x is None else h(x, leaves))
    return tuple(kids)
"""


def _flat_siblings(children: list[Any] | tuple[Any, ...], leaves: list[Any]) -> Node | None:
    """Flattens many sibling nodes of one type whose children are all leaves.

    Returns the tuple of the siblings' nodes, or None (leaving ``leaves``
    untouched) when the siblings are mixed or any of them has a non-leaf child.
    """
    types = set(map(type, children))
    if len(types) != 1:
        return None
    t = types.pop()
    k = _KIND[t]
    for c in children[0]:  # a node first: the row fails, so no need to build it
        if _KIND[type(c)]:
            return None
        break
    row = list(chain.from_iterable(children))
    kind_of = _KIND
    for gt in set(map(type, row)):
        if kind_of[gt]:
            return None
    leaves += row
    sizes = set(map(len, children))
    if len(sizes) == 1:  # siblings of one length: one node, shared (nodes are immutable)
        return ((k, t, None, sizes.pop()),) * len(children)
    return tuple(zip(repeat(k), repeat(t), repeat(None), map(len, children)))


# The generic body of every handler: ``children`` and ``aux`` are set by the
# prologue; KIND and TYP are constants of the generated function.
_ROWS = """\
    if ROW_TEST and len(children) >= ROW_MIN:
        node = _wide(children, leaves, (KIND, TYP, aux))
        if node is not None:
            return node
"""
# Containers of fewer than _LEAF_ROW_MIN children: when every child is a leaf
# (checked up to the first node), all are appended at once. ``LEAF_HINT`` is
# the type of the last leaf this check passed, a leaf type (compared first,
# without a table lookup) for as long as this handler is in ``HANDLERS``:
# every registration, which alone turns a leaf type into a node type, drops
# the handler and its hint with it.
_SMALL = """\
    if SMALL_TEST len(children) < LEAF_ROW_MIN:
        for c in children:
            if type(c) is not LEAF_HINT:
                break
        else:
            leaves += children
            return SMALL_NODE
        try:
            for c in children:
                if HANDLERS[type(c)] is not None:
                    break
            else:
                leaves += children
                LEAF_HINT = type(c)
                return SMALL_NODE
        except KeyError:  # a type not seen yet: the loop below makes its handler
            pass
"""


class _NoLeaf:
    """The first ``LEAF_HINT`` of a handler: a type that no child has."""


_LOOP = """\
    handlers = HANDLERS
    start = len(leaves)
    kids = None
    append = leaves.append
    for c in children:
        try:
            h = handlers[type(c)]
        except KeyError:
            h = handler_of(type(c))
        if h is None:
            append(c)
            if kids is not None:
                kids.append(None)
        else:
            if kids is None:
                kids = [None] * (len(leaves) - start)
            kids.append(NONE_NODE if c is None else h(c, leaves))
    if kids is None:
        return (KIND, TYP, aux, len(leaves) - start)
    return (KIND, TYP, aux, tuple(kids))
"""


def _attr(name: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"x.{name}"
    return f"getattr(x, {name!r})"


def _unrolled(reads: list[str], aux: str, node: str, whole: str = "") -> list[str]:
    """The all-leaves fast path over children read by ``reads`` (all of ``whole``)."""
    names = [f"c{i}" for i in range(len(reads))]
    if whole:  # unpacked by iteration, as the generic loop reads it
        lines = [f"    ({''.join(n + ', ' for n in names)}) = {whole}"]
    else:
        lines = [f"    {n} = {r}" for n, r in zip(names, reads, strict=True)]
    if aux:
        lines.append(f"    aux = {aux}")
    test = " and ".join(f"HANDLERS[type({n})] is None" for n in names)
    lines += ["    try:", f"        all_leaves = {test}", "    except KeyError:"]
    lines += ["        all_leaves = False", "    if all_leaves:"]
    lines.append(f"        leaves += {whole or '(' + ''.join(n + ', ' for n in names) + ')'}")
    lines.append(f"        return {node}")
    return lines


def _source(t: type[Any], kind: int) -> list[str]:
    """The prologue of the handler of ``t``: sets ``children`` and ``aux``."""
    if kind in (LIST, TUPLE):
        return ["    children = x", "    aux = None"]
    if kind == DICT:
        return [
            "    keys = tuple(x)",
            "    try:",
            "        order, values = DICT_SORTS[keys]",
            "    except KeyError:",
            "        order, values = dict_sort(keys)",
            "    aux = order(keys)",
            "    children = values(x)",
        ]
    if kind == NAMEDTUPLE:
        n = len(t._fields)
        lines = []
        if 0 < n <= _UNROLL_MAX:
            lines = [f"    if len(x) == {n}:"]
            body = _unrolled([""] * n, "", "NODE", "x")
            lines += ["    " + line for line in body]
        return [*lines, "    children = x", "    aux = None"]
    entry = REGISTRY[t]
    if entry.fields is None:
        return ["    children, aux = FLATTEN(x)"]
    data, meta = entry.fields
    aux = "(" + "".join(f"{_attr(m)}, " for m in meta) + ")"
    if 0 < len(data) <= _UNROLL_MAX:
        lines = _unrolled([_attr(d) for d in data], aux, f"(KIND, TYP, aux, {len(data)})")
        return [*lines, "    children = (" + "".join(f"c{i}, " for i in range(len(data))) + ")"]
    reads = "".join(f"{_attr(d)}, " for d in data)
    return [f"    children = ({reads})", f"    aux = {aux}"]


def make_handler(t: type[Any]) -> Any:
    """The flatten handler of exact type ``t``, or None if ``t`` is a leaf type."""
    kind = classify(t)
    if kind == LEAF:
        return None
    if kind == NONE:
        return _none_handler
    entry = REGISTRY.get(t) if kind == CUSTOM else None
    namespace: dict[str, Any] = {
        # Rows under custom nodes are only worth checking when long.
        "ROW_MIN": _LEAF_ROW_MIN if kind == CUSTOM else _SEQ_ROW_MIN,
        "FLATTEN": None if entry is None else entry.flatten,
        "DICT_SORTS": DICT_SORTS,
        "dict_sort": dict_sort,
        "HANDLERS": HANDLERS,
        "handler_of": handler_of,
        "NONE_NODE": NONE_NODE,
        "KIND": kind,
        "LEAF_ROW_MIN": _LEAF_ROW_MIN,
        "NODES": tuple((kind, t, None, n) for n in range(_LEAF_ROW_MIN)),
        "NODE": (kind, t, None, len(t._fields)) if kind == NAMEDTUPLE else None,
        "TYP": t,
        "_wide": _wide,
        "LEAF_HINT": _NoLeaf,
    }
    # Rows: children known to be a list or tuple (custom flatten functions may
    # return any iterable; a namedtuple's children are never a plain row).
    rows = "" if kind == NAMEDTUPLE else _ROWS
    test = "(type(children) is list or type(children) is tuple)" if kind == CUSTOM else "True"
    rows = rows.replace("ROW_TEST and ", "" if test == "True" else test + " and ")
    small = ""
    if kind != NAMEDTUPLE and not (entry is not None and entry.fields is not None):
        small = _SMALL.replace("SMALL_TEST ", "" if test == "True" else test + " and ")
        node = "(KIND, TYP, aux, len(children))"
        if kind in (LIST, TUPLE):
            node = "NODES[len(children)]"
        elif kind == CUSTOM:  # no aux data (often): one shared node per length
            node = f"NODES[len(children)] if aux is None else {node}"
        small = small.replace("SMALL_NODE", node)
    prologue = _source(t, kind)
    head = ["def handler(x, leaves):"] + (["    global LEAF_HINT"] if small else [])
    source = "\n".join([*head, *prologue, small + rows + _LOOP])
    fields = None if entry is None else entry.fields
    if fields is not None and 0 < len(fields[0]) <= _UNROLL_MAX:
        # The unrolled prologue, its ``return`` now an ``add`` to the row's kids.
        fast = [" " * 8 + line for line in prologue[:-1]]
        ret = fast[-1].index("return ")
        fast[-1] = fast[-1][:ret] + f"add({fast[-1][ret + 7 :]})\n" + fast[-1][:ret] + "continue"
        fast.append(" " * 8 + prologue[-1].replace("children =", "children_ ="))
        source += "\n".join(["\ndef rest(children, aux, leaves):", rows + _LOOP])
        source += "\n" + _ROW_FN.replace("FAST", "\n".join(fast))
    exec(compile(source, f"<tessela_pytree flatten {t.__qualname__}>", "exec"), namespace)
    handler = namespace["handler"]
    handler.__qualname__ = f"flatten_handler[{t.__qualname__}]"
    if "row" in namespace:
        handler.row = namespace["row"]
    return handler


def _none_handler(x: None, leaves: list[Any]) -> Node:
    return NONE_NODE


def handler_of(t: type[Any]) -> Any:
    """The flatten handler of ``t`` after a miss in ``HANDLERS``: made, then cached.

    Args:
      t: an exact type not in ``HANDLERS``.

    Returns:
      Its handler, or None if ``t`` is a leaf type.

    Example:
      >>> from tessela_pytree._handlers import handler_of
      >>> handler_of(float) is None, handler_of(list) is not None
      (True, True)
    """
    if len(HANDLERS) > _CACHE_LIMIT:
        HANDLERS.clear()
    handler = HANDLERS[t] = make_handler(t)
    return handler
