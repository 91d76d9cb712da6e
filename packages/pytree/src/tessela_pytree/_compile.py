"""Compiled unflattening: one specialised Python function per reused treedef.

``PyTreeDef.unflatten`` on a treedef it has already unflattened generates the
source of a function ``build(L)`` that returns the whole tree as a single
expression over the leaf list ``L`` (``[L[0], {'a': L[1]}]``-style), compiles
it once and keeps it on the treedef. Node dispatch, iterator pulls and the
per-node Python frames of the generic rebuild disappear; what is left is the
construction of the containers themselves.

Runs of identical sibling subtrees (lists of equally shaped dicts, a list of
dataclass instances) become a comprehension over leaf offsets, so the source
grows with the number of *distinct* subtree shapes rather than with the
number of nodes. Trees whose source would still be large, or that are nested
too deeply for the parser, are not compiled (``compile_unflatten`` returns
None) and keep the generic rebuild.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from itertools import repeat, starmap
from typing import Any

from ._registry import CUSTOM, DICT, LIST, NAMEDTUPLE, NONE, REGISTRY, TUPLE, init_order

__all__ = ["compile_unflatten"]

Node = Any
Builder = Callable[[list[Any]], Any]

_MAX_DEPTH = 30  # tree levels; the parser allows about 200 nested brackets
_MAX_TERMS = 4096  # emitted expressions per treedef
_MIN_RUN = 4  # identical siblings that become a comprehension
_INLINE = 6  # containers of at most this many leaves are written out
_INLINE_DICT = 64  # a dict display beats dict(zip(keys, values)) up to here
_INLINE_RUN = 2048  # leaves of a run written out node by node (at fixed offsets)


class _TooLarge(Exception):
    """Internal: the generated source would exceed the limits."""


def _leaf_count(node: Node) -> int:
    if node is None:
        return 1
    kids = node[3]
    if type(kids) is int:
        return kids
    return sum([_leaf_count(k) for k in kids])


def _identifiers(names: tuple[str, ...]) -> bool:
    return all(n.isidentifier() and not keyword.iskeyword(n) for n in names)


class _Writer:
    """Accumulates the constants and counts the terms of one function."""

    def __init__(self) -> None:
        self.consts: dict[str, Any] = {}
        self.ids: dict[int, str] = {}
        self.terms = 0

    def const(self, value: Any) -> str:
        name = self.ids.get(id(value))
        if name is None:
            name = f"_c{len(self.consts)}"
            self.consts[name] = value
            self.ids[id(value)] = name
        return name

    def tick(self) -> None:
        self.terms += 1
        if self.terms > _MAX_TERMS:
            raise _TooLarge

    def leaf(self, var: str, off: int) -> str:
        self.tick()
        if not var:
            return f"L[{off}]"
        return f"L[{var}]" if off == 0 else f"L[{var} + {off}]"

    def span(self, var: str, off: int, n: int) -> str:
        self.tick()
        if not var:
            return f"L[{off}:{off + n}]"
        return f"L[{var} + {off}:{var} + {off + n}]"


def _wrap(w: _Writer, node: Node, items: list[str], spread: bool) -> str:
    """The container of ``node`` around child expressions (``*x`` when ``spread``)."""
    kind, typ, aux, _ = node
    body = ", ".join(items)
    tup = f"({body},)" if items else "()"
    if kind == LIST:
        return f"[{body}]"
    if kind == TUPLE:
        return tup
    if kind == DICT:
        if spread:
            return f"dict(zip({w.const(aux)}, {tup}))"
        # String keys are written as literals (a constant-keys dict display).
        pairs = [
            f"{k!r}: {e}" if type(k) is str else f"{w.const(k)}: {e}"
            for k, e in zip(aux, items, strict=True)
        ]
        return "{" + ", ".join(pairs) + "}"
    if kind == NAMEDTUPLE:
        return f"{w.const(typ)}({body})"
    entry = REGISTRY[typ]
    fields = entry.fields
    if (
        not spread
        and fields is not None
        and _identifiers(fields[0] + fields[1])
        and type(aux) is tuple
        and len(aux) == len(fields[1])
        and len(items) == len(fields[0])
    ):
        values = dict(zip(fields[1], map(w.const, aux), strict=True))
        values.update(zip(fields[0], items, strict=True))
        order = init_order(typ, fields[0], fields[1])
        if order is not None:  # the same binding, passed positionally
            pos, kwonly = order
            args = [values[n] for n in pos] + [f"{n}={values[n]}" for n in kwonly]
        else:
            args = [f"{n}={v}" for n, v in values.items()]
        return f"{w.const(typ)}({', '.join(args)})"
    return f"{w.const(entry.unflatten)}({w.const(aux)}, {tup})"


def _expr(w: _Writer, node: Node, var: str, off: int, depth: int) -> str:
    """Expression building ``node`` from the leaves at ``L[var + off]`` onwards."""
    if depth > _MAX_DEPTH:
        raise _TooLarge
    kind, typ, aux, kids = node
    if kind == NONE:
        return "None"
    if type(kids) is int:
        if kind == LIST and kids > _INLINE:
            return w.span(var, off, kids)
        if kind in (TUPLE, NAMEDTUPLE) and kids > _INLINE:
            inner = w.span(var, off, kids)
            return f"tuple({inner})" if kind == TUPLE else f"{w.const(typ)}(*{inner})"
        if kind == DICT and kids > _INLINE_DICT:
            return f"dict(zip({w.const(aux)}, {w.span(var, off, kids)}))"
        if kind == CUSTOM and kids > _INLINE:
            unflatten = w.const(REGISTRY[typ].unflatten)
            return f"{unflatten}({w.const(aux)}, tuple({w.span(var, off, kids)}))"
        return _wrap(w, node, [w.leaf(var, off + i) for i in range(kids)], False)
    items: list[str] = []
    spread = False
    i = 0
    n = len(kids)
    while i < n:
        kid = kids[i]
        j = i + 1
        if kid is not None:
            while j < n and kids[j] == kid:
                j += 1
        size = 0 if kid is None else _leaf_count(kid)
        if kid is not None and j - i >= _MIN_RUN and (var or size * (j - i) > _INLINE_RUN):
            comp = _pipe(w, kid, j - i, w.span(var, off, size * (j - i)), depth, top=True)
            if comp is None:
                loop = f"_i{depth}"
                inner = _expr(w, kid, loop, 0, depth + 1)
                start = f"{var} + {off}" if var and off else (var or off)
                stop = f"{start} + {size * (j - i)}" if var else str(off + size * (j - i))
                if size:
                    comp = f"[{inner} for {loop} in range({start}, {stop}, {size})]"
                else:  # empty subtrees (None, [], ...): no leaves to step over
                    comp = f"[{inner} for {loop} in range({j - i})]"
            elif i == 0 and j == n and node[0] == LIST and not comp.startswith("["):
                comp = f"list({comp})"
            if i == 0 and j == n:
                return _whole_run(w, node, comp)
            items.append(f"*{comp}")
            spread = True
            off += size * (j - i)
            i = j
            continue
        if kid is None:
            items.append(w.leaf(var, off))
            off += 1
        else:
            items.append(_expr(w, kid, var, off, depth + 1))
            off += _leaf_count(kid)
        i += 1
    return _wrap(w, node, items, spread)


def _pipe(w: _Writer, node: Node, m: int, src: str, depth: int, top: bool = False) -> str | None:
    """An iterator expression building ``m`` copies of ``node`` from the leaves in ``src``.

    Only for uniform subtrees (every node's children are all leaves, or all
    one repeated subtree): each level is one C-level pass, grouping the level
    below into tuples with ``zip(*[iter(xs)] * c)`` and wrapping each group
    (``map(list, ...)``, ``map(dict, map(zip, repeat(keys), ...))``,
    ``starmap(namedtuple, ...)``, ``map(unflatten, repeat(aux), ...)``). The
    iterators are lazy, so nodes are still built children first, left to
    right. Returns None for subtrees that are not uniform.
    """
    if depth > _MAX_DEPTH:
        raise _TooLarge
    kind, typ, aux, kids = node
    w.tick()
    if kind == NONE:
        return f"repeat(None, {m})"
    if type(kids) is int:
        c = kids
        chunks = f"zip(*[iter({src})] * {c})" if c else f"repeat((), {m})"
    else:
        first = kids[0]
        if first is None or any(k != first for k in kids):
            return None
        c = len(kids)
        inner = _pipe(w, first, m * c, src, depth + 1)
        if inner is None:
            return None
        chunks = f"zip(*[iter({inner})] * {c})"
    if kind == LIST:
        return f"map(list, {chunks})"
    if kind == TUPLE:
        return chunks
    if kind == NAMEDTUPLE:
        return f"starmap({w.const(typ)}, {chunks})"
    # Dicts and dataclasses: their display or keyword call over unpacked groups.
    # The outermost level is a list comprehension, inner levels stay lazy.
    names = [f"_a{depth}_{i}" for i in range(c)]
    target = f"({''.join(n + ', ' for n in names)})"
    open_, close = "[]" if top else "()"
    if kind == DICT:
        if 0 < c <= _INLINE_DICT:
            return f"{open_}{_wrap(w, node, names, False)} for {target} in {chunks}{close}"
        return f"map(dict, map(zip, repeat({w.const(aux)}), {chunks}))"
    call = _wrap(w, node, names, False)
    if not call.startswith(w.const(REGISTRY[typ].unflatten)):
        return f"{open_}{call} for {target} in {chunks}{close}"
    unflatten = w.const(REGISTRY[typ].unflatten)
    return f"map({unflatten}, repeat({w.const(aux)}), {chunks})"


def _whole_run(w: _Writer, node: Node, comp: str) -> str:
    """The container of ``node`` when one comprehension gives all its children."""
    kind, typ, aux, _ = node
    if kind == LIST:
        return comp
    if kind == TUPLE:
        return f"tuple({comp})"
    if kind == DICT:
        return f"dict(zip({w.const(aux)}, {comp}))"
    if kind == NAMEDTUPLE:
        return f"{w.const(typ)}(*{comp})"
    return f"{w.const(REGISTRY[typ].unflatten)}({w.const(aux)}, tuple({comp}))"


def compile_unflatten(node: Node) -> Builder | None:
    """A function rebuilding the tree of ``node`` from a list of its leaves, or None.

    ``node`` is a non-leaf node in the canonical form of ``_treedef``. The
    function takes a ``list`` of exactly the right length (unchecked) and
    constructs the containers in the same order as the generic rebuild.
    """
    w = _Writer()
    try:
        body = _expr(w, node, "", 0, 0)
    except _TooLarge:
        return None
    source = f"def build(L):\n    return {body}\n"
    namespace: dict[str, Any] = {"repeat": repeat, "starmap": starmap, **w.consts}
    try:
        code = compile(source, "<tessela_pytree unflatten>", "exec")
    except (RecursionError, MemoryError, SyntaxError):
        return None
    exec(code, namespace)
    builder: Builder = namespace["build"]
    return builder
