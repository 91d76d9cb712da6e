"""Flattening specialised to the structure a root type was last flattened with.

Programs flatten trees of one structure over and over (a model's parameters,
a jitted function's arguments). After ``tree_flatten`` has seen the same
small structure twice in a row under one root type, it generates a function
that checks a tree against that structure and returns its leaves in one
pass: containers by exact type and length (dicts by the identity of their
keys, in order), ``None`` by identity and leaves by their exact types, which
were leaf types when the function was made. Node dispatch, per-node frames and the building
of the treedef node disappear; the node is the recorded one.

A tree that does not match (a check fails, a key is missing, an unpacking
has the wrong length) takes the generic path. Registered dataclasses are
specialised (their metadata fields checked by identity); trees with other
custom nodes, or larger than :data:`MAX_LEAVES`, are not specialised, and a root type whose
structure keeps changing needs ever more repeats before it is specialised
again (see :func:`learn`). Every registration clears the table of
specialisations (``SPECS`` in ``_registry``), since a leaf type may become
a node type.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from ._registry import CUSTOM, DICT, LIST, NAMEDTUPLE, NONE, REGISTRY, SPECS, TUPLE
from ._treedef import PyTreeDef

__all__ = ["MAX_BACKOFF", "MAX_LEAVES", "learn"]

Node = Any
Spec = Callable[[Any], "list[Any] | None"]

MAX_LEAVES = 256
"""Trees with more leaves (or nodes) than this are not specialised."""
MAX_BACKOFF = 12
"""A root type specialised ``n`` times needs ``2**min(n, MAX_BACKOFF)`` repeats for the next."""

_MAX_ROOTS = 256
_last: dict[type[Any], list[Any]] = {}  # root type: [last node, repeats since]
_compiles: dict[type[Any], int] = {}


def _attr(var: str, name: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"{var}.{name}"
    return f"getattr({var}, {name!r})"


class _Unsupported(Exception):
    """Internal: the structure has a node kind that is not specialised."""


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self.out: list[str] = []
        self.count = 0

    def const(self, value: Any) -> str:
        name = f"_c{len(self.consts)}"
        self.consts[name] = value
        return name

    def var(self) -> str:
        self.count += 1
        if self.count > 2 * MAX_LEAVES:
            raise _Unsupported
        return f"v{self.count}"

    def node(self, var: str, node: Node, value: Any, root: bool) -> None:
        """Checks that ``var`` has the structure ``node`` of ``value``; binds its children."""
        kind, typ, aux, kids = node
        n = kids if type(kids) is int else len(kids)
        conds: list[str] = []
        if kind == NONE:
            if root:
                raise _Unsupported  # nothing to gain
            self.lines.append(f"    if {var} is not None: return None")
            return
        fields = REGISTRY[typ].fields if kind == CUSTOM else None
        if kind not in (LIST, TUPLE, DICT, NAMEDTUPLE) and fields is None:
            raise _Unsupported  # custom flatten functions: called by the generic path
        if not root:
            conds.append(f"type({var}) is {self.const(typ)}")
        if fields is None:
            conds.append(f"len({var}) == {n}")
        else:  # a registered dataclass: its metadata fields by identity, as dict keys
            conds += [
                f"{_attr(var, m)} is {self.const(value)}"
                for m, value in zip(fields[1], aux, strict=True)
            ]
        self.lines.append(f"    if not ({' and '.join(conds)}): return None")
        names = [self.var() for _ in range(n)]
        if fields is not None:
            for name, field in zip(names, fields[0], strict=True):
                self.lines.append(f"    {name} = {_attr(var, field)}")
            children = [getattr(value, f) for f in fields[0]]
        elif kind == DICT:
            # The very key objects, in insertion order (identity, not equality:
            # the treedef keeps these objects), then the values in sorted order.
            if n:
                keys = [self.var() for _ in range(n)]
                self.lines.append(f"    {''.join(k + ', ' for k in keys)}= {var}")
                same = [f"{k} is {self.const(key)}" for k, key in zip(keys, value, strict=True)]
                self.lines.append(f"    if not ({' and '.join(same)}): return None")
            for name, key in zip(names, aux, strict=True):
                self.lines.append(f"    {name} = {var}[{self.const(key)}]")
            children = [value[k] for k in aux]
        else:
            if n:
                self.lines.append(f"    {''.join(v + ', ' for v in names)}= {var}")
            children = list(value)
        kid_nodes = (None,) * kids if type(kids) is int else kids
        leaf_checks = []
        for name, kid, child in zip(names, kid_nodes, children, strict=True):
            if kid is None:
                leaf_checks.append(f"type({name}) is {self.const(type(child))}")
                self.out.append(name)
            else:  # visited now, so that leaves are bound in flattening order
                self.node(name, kid, child, False)
        if leaf_checks:
            self.lines.append(f"    if not ({' and '.join(leaf_checks)}): return None")


def _compile(node: Node, tree: Any) -> Spec | None:
    writer = _Writer()
    try:
        writer.node("x", node, tree, True)
    except _Unsupported:
        return None
    body = "\n".join(writer.lines)
    source = (
        "def spec(x):\n    try:\n"
        + "\n".join("    " + line for line in body.splitlines())
        + f"\n    except (AttributeError, KeyError, TypeError, ValueError):\n        return None\n"
        f"    return [{', '.join(writer.out)}]\n"
    )
    namespace = dict(writer.consts)
    exec(compile(source, "<tessela_pytree flatten spec>", "exec"), namespace)
    spec: Spec = namespace["spec"]
    return spec


def learn(root: type[Any], node: Node, tree: Any) -> None:
    """Called after a generic flatten of a small tree: specialise on a repeat.

    A structure is specialised when it comes again right after itself; each
    specialisation of a root type doubles the repeats the next one needs (up
    to ``2**MAX_BACKOFF``), so that trees whose structure keeps changing cost
    few compilations and a stable structure is still specialised in the end.

    Args:
      root: the root's exact type.
      node: the treedef node the generic flatten made.
      tree: the tree it flattened.
    """
    seen = _last.get(root)
    if seen is None or seen[0] != node:
        if len(_last) >= _MAX_ROOTS:
            _last.clear()
        _last[root] = [node, 0]
        return
    seen[1] += 1
    count = _compiles.get(root, 0)
    if seen[1] < 1 << min(count, MAX_BACKOFF):
        return
    seen[1] = 0
    _compiles[root] = count + 1
    spec = _compile(seen[0], tree)
    if spec is None:
        _compiles[root] = MAX_BACKOFF  # custom nodes: rarely tried again
        return
    # The treedef's hash, given to each treedef the spec's node goes into
    # (a jitted call hashes the structure of its arguments every call).
    SPECS[root] = (spec, seen[0], hash(PyTreeDef(seen[0])))
