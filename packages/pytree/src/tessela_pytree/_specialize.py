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
specialised (their metadata fields checked by identity). Other custom nodes
are specialised too when their flatten function returns the very same aux
data object each time (checked by identity, as dict keys): the generated
function calls the flatten functions as the generic path does, in the same
order, each node checked before anything after it runs; children must come
as a list or tuple of the recorded length. Once a flatten function has run,
a failed check hands the tree to :func:`replay`, which finishes the
flattening node by node without calling any flatten function a second
time, so each is called exactly once per node, as on the generic path.
Dicts below such custom nodes, and trees larger than :data:`MAX_LEAVES`,
are not specialised, and a root type whose structure keeps changing needs
ever more repeats before it is specialised again (see :func:`learn`).
Every registration clears the table of specialisations (``SPECS`` in
``_registry``), since a leaf type may become a node type.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from ._handlers import NONE_NODE, handler_of
from ._registry import (
    _KIND,
    CUSTOM,
    DICT,
    DICT_SORTS,
    HANDLERS,
    LIST,
    NONE,
    REGISTRY,
    SPECS,
    TUPLE,
    dict_sort,
)
from ._treedef import PyTreeDef

__all__ = ["CUSTOM_REPEATS", "MAX_BACKOFF", "MAX_LEAVES", "calls_flatten", "learn", "replay"]

Node = Any
Spec = Callable[[Any], "list[Any] | tuple[list[Any], Node] | None"]

MAX_LEAVES = 256
"""Trees with more leaves (or nodes) than this are not specialised."""
MAX_BACKOFF = 12
"""A root type specialised ``n`` times needs ``2**min(n, MAX_BACKOFF)`` repeats for the next."""
CUSTOM_REPEATS = 4
"""A structure that calls flatten functions is specialised after this many repeats at least."""

_MAX_ROOTS = 256
_last: dict[type[Any], list[Any]] = {}  # root type: [last node, repeats since]
_compiles: dict[type[Any], int] = {}


def _attr(var: str, name: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"{var}.{name}"
    return f"getattr({var}, {name!r})"


class _Unsupported(Exception):
    """Internal: the structure has a node kind that is not specialised."""


def calls_flatten(node: Node) -> bool:
    """Tells whether flattening a tree of structure ``node`` calls a flatten function.

    Args:
      node: a treedef node.

    Returns:
      True if it has a custom node that is not a registered dataclass.

    Example:
      >>> calls_flatten((2, list, None, 3))
      False
    """
    if node is None:
        return False
    kind, typ, _, kids = node
    if kind == CUSTOM and REGISTRY[typ].fields is None:
        return True
    return type(kids) is not int and any(calls_flatten(kid) for kid in kids)


class _Writer:
    def __init__(self, leaves: list[Any]) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self.out: list[str] = []
        self.count = 0
        self.leaves = iter(leaves)
        # The (children, aux) variables of each flatten function call, in call order.
        self.calls: list[tuple[str, str]] = []

    def const(self, value: Any) -> str:
        name = f"_c{len(self.consts)}"
        self.consts[name] = value
        return name

    def var(self) -> str:
        self.count += 1
        if self.count > 2 * MAX_LEAVES:
            raise _Unsupported
        return f"v{self.count}"

    def fail(self, give_up: bool = False) -> str:
        """How a failed check ends: once a flatten function has run, by the replay."""
        if not self.calls:
            return "return None"
        return f"return _replay(x, locals(), _calls{', True' if give_up else ''})"

    def check(self, conds: list[str], give_up: bool = False) -> None:
        if conds:
            self.lines.append(f"    if not ({' and '.join(conds)}): {self.fail(give_up)}")

    def node(self, var: str, node: Node, prev: Node, value: Any, root: bool) -> None:
        """Checks that ``var`` has the structure ``node``; binds its children.

        ``prev`` is the equal node of the flatten before (custom aux data must
        be the very same object in both); ``value`` the tree's own node, or
        None under a custom node (whose children are read by its flatten
        function, which runs only in the generated code).
        """
        kind, typ, aux, kids = node
        n = kids if type(kids) is int else len(kids)
        conds: list[str] = []
        if kind == NONE:
            if root:
                raise _Unsupported  # nothing to gain
            self.check([f"{var} is None"])
            return
        fields = REGISTRY[typ].fields if kind == CUSTOM else None
        if not root:
            conds.append(f"type({var}) is {self.const(typ)}")
        names = [self.var() for _ in range(n)]
        children: list[Any] = [None] * n
        if kind == CUSTOM and fields is None:
            # The flatten function, called as the generic path calls it; its
            # aux data by identity, its children a list or tuple of n.
            if aux is not prev[2]:
                raise _Unsupported  # new aux data every call: never the same
            self.check(conds)
            kids_var, aux_var = self.var(), self.var()
            flatten = self.const(REGISTRY[typ].flatten)
            self.lines.append(f"    {kids_var}, {aux_var} = {flatten}({var})")
            self.calls.append((kids_var, aux_var))
            # Children of another type (an iterator, a view) are most likely
            # what this flatten function always returns: the replay gives up
            # the specialisation then.
            self.check([f"(type({kids_var}) is list or type({kids_var}) is tuple)"], True)
            self.check([f"{aux_var} is {self.const(aux)}", f"len({kids_var}) == {n}"])
            if n:
                self.lines.append(f"    {''.join(v + ', ' for v in names)}= {kids_var}")
        elif fields is not None:
            # A registered dataclass: data fields read as its handler reads
            # them, then its metadata fields by identity, as dict keys.
            self.check(conds)
            for name, field in zip(names, fields[0], strict=True):
                self.lines.append(f"    {name} = {_attr(var, field)}")
            self.check(
                [
                    f"{_attr(var, m)} is {self.const(meta)}"
                    for m, meta in zip(fields[1], aux, strict=True)
                ]
            )
            if value is not None:
                children = [getattr(value, f) for f in fields[0]]
        elif kind == DICT:
            if value is None:
                raise _Unsupported  # its insertion order is not in the node
            # The very key objects, in insertion order (identity, not equality:
            # the treedef keeps these objects), then the values in sorted order.
            self.check([*conds, f"len({var}) == {n}"])
            if n:
                keys = [self.var() for _ in range(n)]
                self.lines.append(f"    {''.join(k + ', ' for k in keys)}= {var}")
                self.check(
                    [f"{k} is {self.const(key)}" for k, key in zip(keys, value, strict=True)]
                )
            for name, key in zip(names, aux, strict=True):
                self.lines.append(f"    {name} = {var}[{self.const(key)}]")
            children = [value[k] for k in aux]
        else:
            self.check([*conds, f"len({var}) == {n}"])
            if n:
                self.lines.append(f"    {''.join(v + ', ' for v in names)}= {var}")
            if value is not None:
                children = list(value)
        kid_nodes = (None,) * kids if type(kids) is int else kids
        prev_kids = (None,) * prev[3] if type(prev[3]) is int else prev[3]
        leaf_checks: list[str] = []
        for name, kid, prev_kid, child in zip(names, kid_nodes, prev_kids, children, strict=True):
            if kid is None:
                leaf_checks.append(f"type({name}) is {self.const(type(next(self.leaves)))}")
                self.out.append(name)
                continue
            if calls_flatten(kid):
                # Checked first: a flatten function runs only where the generic
                # path would run it, every node before it already matched.
                self.check(leaf_checks)
                leaf_checks = []
            # Visited now, so that leaves are bound in flattening order.
            under_flatten = kind == CUSTOM and fields is None
            self.node(name, kid, prev_kid, None if under_flatten else child, False)
        self.check(leaf_checks)


def _compile(prev: Node, node: Node, tree: Any, leaves: list[Any]) -> Spec | None:
    writer = _Writer(leaves)
    try:
        writer.node("x", node, prev, tree, True)
    except _Unsupported:
        return None
    body = "\n".join(writer.lines)
    returns = f"    return [{', '.join(writer.out)}]\n"
    if writer.calls:
        # No blanket except: every check is explicit, and an error raised by a
        # flatten function (or an attribute read) is the generic path's error.
        source = "def spec(x):\n" + body + "\n" + returns
    else:
        source = (
            "def spec(x):\n    try:\n"
            + "\n".join("    " + line for line in body.splitlines())
            + "\n    except (AttributeError, KeyError, TypeError, ValueError):\n"
            "        return None\n" + returns
        )
    namespace = dict(writer.consts)
    namespace["_replay"] = replay
    namespace["_calls"] = tuple(writer.calls)
    exec(compile(source, "<tessela_pytree flatten spec>", "exec"), namespace)
    spec: Spec = namespace["spec"]
    return spec


def replay(
    x: Any, done: dict[str, Any], calls: tuple[tuple[str, str], ...], give_up: bool = False
) -> tuple[list[Any], Node]:
    """Flattens ``x`` generically after a specialised flatten failed part way.

    The flatten functions the specialised function already called are not
    called again: their results (the ``(children, aux)`` variables named by
    ``calls`` that ``done``, its locals, holds) are taken in call order.
    Its checks ran in flattening order, so those calls are the generic
    path's first ones, made on the same nodes.

    Args:
      x: the tree.
      done: the specialised function's local variables.
      calls: the names of its ``(children, aux)`` variables, in call order.
      give_up: drop the specialisation of ``x``'s type, as if it had been
        unsupported (see :func:`learn`).

    Returns:
      ``(leaves, node)``, as the generic path gives them.

    Example:
      >>> replay({"b": [1, 2], "a": 3}, {}, ())
      ([3, 1, 2], (3, <class 'dict'>, ('a', 'b'), (None, (2, <class 'list'>, None, 2))))
    """
    if give_up:
        SPECS.pop(type(x), None)
        _compiles[type(x)] = MAX_BACKOFF
    results = [(done[c], done[a]) for c, a in calls if c in done]
    results.reverse()
    leaves: list[Any] = []
    return leaves, _replay_node(x, leaves, results)


def _replay_node(x: Any, leaves: list[Any], results: list[tuple[Any, Any]]) -> Node:
    """A node as its flatten handler builds it, taking flatten results from
    ``results`` (a stack, the next on top); the handler itself once none are left."""
    typ = type(x)
    if not results:
        try:
            handler = HANDLERS[typ]
        except KeyError:
            handler = handler_of(typ)
        return handler(x, leaves)
    kind = _KIND[typ]
    if kind == NONE:
        return NONE_NODE
    if kind == DICT:
        keys = tuple(x)
        try:
            order, values = DICT_SORTS[keys]
        except KeyError:
            order, values = dict_sort(keys)
        aux = order(keys)
        children: Any = values(x)
    elif kind == CUSTOM:
        entry = REGISTRY[typ]
        if entry.fields is not None:
            children = tuple([getattr(x, name) for name in entry.fields[0]])
            aux = tuple([getattr(x, name) for name in entry.fields[1]])
        else:
            children, aux = results.pop()
    else:
        children, aux = x, None
    start = len(leaves)
    kids: list[Node] | None = None
    for c in children:
        if _KIND[type(c)]:
            if kids is None:
                kids = [None] * (len(leaves) - start)
            kids.append(_replay_node(c, leaves, results))
        else:
            leaves.append(c)
            if kids is not None:
                kids.append(None)
    if kids is None:
        return (kind, typ, aux, len(leaves) - start)
    return (kind, typ, aux, tuple(kids))


def learn(root: type[Any], node: Node, tree: Any, leaves: list[Any]) -> None:
    """Called after a generic flatten of a small tree: specialise on a repeat.

    A structure is specialised when it comes again right after itself; each
    specialisation of a root type doubles the repeats the next one needs (up
    to ``2**MAX_BACKOFF``), so that trees whose structure keeps changing cost
    few compilations and a stable structure is still specialised in the end.

    Args:
      root: the root's exact type.
      node: the treedef node the generic flatten made.
      tree: the tree it flattened.
      leaves: its leaves.

    A structure whose flattening calls a flatten function must come
    :data:`CUSTOM_REPEATS` times in a row: when a tree fails its checks after
    a flatten function ran, the rest is replayed node by node, which costs
    more than the generic path.

    Example:
      >>> learn(tuple, (1, tuple, None, 0), (), [])  # a first sight: remembered
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
    if seen[1] < CUSTOM_REPEATS and calls_flatten(node):
        return
    seen[1] = 0
    _compiles[root] = count + 1
    spec = _compile(seen[0], node, tree, leaves)
    if spec is None:
        _compiles[root] = MAX_BACKOFF  # rarely tried again
        return
    # The treedef's hash, given to each treedef the spec's node goes into;
    # for ``tree_map``, a treedef kept to rebuild trees of built-in containers;
    # and the one treedef every flatten the spec serves returns (a jitted call
    # hashes the structure of its arguments and compares it with its cache's
    # keys every call: one object compares by identity). The node is this
    # flatten's, whose dict keys and metadata are the very objects the spec
    # checks by identity: the node before is only equal (``1 == 1.0 == True``).
    treedef = PyTreeDef(node)
    SPECS[root] = (
        spec, node, hash(treedef), treedef if _built_in(node) else None, treedef,
    )  # fmt: skip


def _built_in(node: Node) -> bool:
    """Only lists, tuples, ``None`` and dicts with ``str``/``int`` keys: rebuilding
    such a tree runs no code of the user's (no constructor, no key ``__hash__``)."""
    if node is None:
        return True
    kind, _, aux, kids = node
    if kind == DICT:
        if not all(type(key) is str or type(key) is int for key in aux):
            return False
    elif kind not in (LIST, TUPLE, NONE):
        return False
    return type(kids) is int or all(_built_in(kid) for kid in kids)
