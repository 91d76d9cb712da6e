"""The jaxpr printer: a Wadler-style document layout and JAX's jaxpr text."""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tessela_tracer import _jaxpr
from tessela_tracer._core import Primitive
from tessela_tracer._jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var

__all__ = ["JaxprPpContext", "pp_jaxpr", "register_pp_rule"]

# ---------------------------------------------------------------- documents
# A document is a tuple: ("t", text) | ("c", children) | ("b", text)
# | ("g", child) | ("n", indent, child).
Doc = tuple[Any, ...]
NIL: Doc = ("c", ())


def text(s: str) -> Doc:
    return ("t", s)


def concat(docs: Sequence[Doc]) -> Doc:
    return ("c", tuple(docs))


def brk(s: str = " ") -> Doc:
    return ("b", s)


def group(d: Doc) -> Doc:
    return ("g", d)


def nest(n: int, d: Doc) -> Doc:
    return ("n", n, d)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return concat(out)


def _fits(doc: Doc, width: int) -> bool:
    stack = [doc]
    while stack and width >= 0:
        d = stack.pop()
        kind = d[0]
        if kind == "t" or kind == "b":
            width -= len(d[1])
        elif kind == "c":
            stack.extend(reversed(d[1]))
        elif kind == "g":
            stack.append(d[1])
        else:
            stack.append(d[2])
    return width >= 0


def format_doc(doc: Doc, width: int = 80) -> str:
    """Lay out a document within ``width`` columns."""
    out: list[str] = []
    col = 0
    agenda: list[tuple[int, bool, Doc]] = [(0, False, doc)]
    while agenda:
        indent, flat, d = agenda.pop()
        kind = d[0]
        if kind == "t":
            out.append(d[1])
            col += len(d[1])
        elif kind == "c":
            agenda.extend((indent, flat, c) for c in reversed(d[1]))
        elif kind == "b":
            if flat:
                out.append(d[1])
                col += len(d[1])
            else:
                out.append("\n" + " " * indent)
                col = indent
        elif kind == "g":
            agenda.append((indent, flat or _fits(d[1], width - col), d[1]))
        else:
            agenda.append((indent + d[1], flat, d[2]))
    return "".join(out)


# ---------------------------------------------------------------- jaxprs


def _encode(n: int) -> str:
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class JaxprPpContext:
    """Names variables in order of first appearance, shared across nested jaxprs."""

    def __init__(self, names: dict[Var, str] | None = None) -> None:
        self.names: dict[Var, str] = dict(names or {})
        self.shared_jaxprs: dict[Jaxpr, str] = {}
        self.shared_names: set[str] = set()
        self._counter = 0

    def name(self, v: Var) -> str:
        n = self.names.get(v)
        if n is None:
            while True:
                n = _encode(self._counter)
                self._counter += 1
                if n not in self.shared_names:
                    break
            self.names[v] = n
        return n

    def suggest_same_var_names(
        self, for_vars: Sequence[Var | Literal], like_vars: Sequence[Var | Literal]
    ) -> None:
        """Name ``for_vars`` (inner binders) like ``like_vars`` (outer atoms)."""
        if len(for_vars) != len(like_vars):
            return
        used: set[int] = set()
        for for_v, like_v in zip(for_vars, like_vars, strict=True):
            if (
                isinstance(like_v, Var)
                and id(like_v) not in used
                and isinstance(for_v, Var)
                and for_v not in self.names
            ):
                used.add(id(like_v))
                self.names[for_v] = self.atom(like_v)

    def atom(self, a: Var | Literal) -> str:
        if isinstance(a, Literal):
            return str(a)
        if isinstance(a, DropVar):
            return "_"
        return self.name(a)


PpRule = Callable[[JaxprEqn, JaxprPpContext], Doc]
_pp_rules: dict[Primitive, PpRule] = {}


def register_pp_rule(prim: Primitive, rule: PpRule, /) -> None:
    """Register a custom equation printer for ``prim``.

    Args:
      prim: the primitive.
      rule: ``rule(eqn, context) -> Doc``; usually reorders parameters and
        calls :func:`pp_eqn_default`.

    Returns:
      None.
    """
    _pp_rules[prim] = rule


def pp_vars(
    vs: Sequence[Var | Literal], ctx: JaxprPpContext, *, sep: str = "", binder: bool = False
) -> Doc:
    if binder:
        items = [text(f"{ctx.atom(v)}:{v.aval.str_short(True)}") for v in vs]
    else:
        items = [text(ctx.atom(v)) for v in vs]
    return nest(2, group(join(concat([text(sep), group(brk())]), items)))


def _pp_param_value(v: Any, ctx: JaxprPpContext) -> Doc:
    if type(v) is tuple and v and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
        docs = [_pp_jaxpr(j.jaxpr if isinstance(j, ClosedJaxpr) else j, ctx) for j in v]
        return group(
            concat([nest(2, concat([text("("), brk(""), join(brk(), docs)])), brk(""), text(")")])
        )
    if isinstance(v, Jaxpr):
        return _pp_jaxpr(v, ctx)
    if isinstance(v, ClosedJaxpr):
        return _pp_jaxpr(v.jaxpr, ctx)
    if isinstance(v, frozenset):
        return text(f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})")
    s = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), str(v))
    return text(s)


def pp_eqn_default(
    eqn: JaxprEqn, ctx: JaxprPpContext, param_order: Sequence[str] | None = None
) -> Doc:
    """Print ``outvars = prim[params] invars`` with parameters in the given order."""
    names = sorted(eqn.params) if param_order is None else param_order
    lhs = pp_vars(eqn.outvars, ctx, binder=True)
    if names:
        pairs = [concat([text(f"{k}="), _pp_param_value(eqn.params[k], ctx)]) for k in names]
        params = group(
            concat([nest(2, concat([text("["), brk(""), join(brk(), pairs)])), brk(""), text("]")])
        )
    else:
        params = NIL
    rhs = [text(eqn.primitive.name), params, concat([text(" "), pp_vars(eqn.invars, ctx)])]
    if eqn.outvars:
        return concat([lhs, text(" = "), *rhs])
    return concat(rhs)


def _pp_eqn(eqn: JaxprEqn, ctx: JaxprPpContext) -> Doc:
    rule = _pp_rules.get(eqn.primitive)
    return rule(eqn, ctx) if rule is not None else pp_eqn_default(eqn, ctx)


def _pp_skeleton(jaxpr: Jaxpr, ctx: JaxprPpContext) -> Doc:
    constvars = pp_vars(jaxpr.constvars, ctx, binder=True)
    invars = pp_vars(jaxpr.invars, ctx, binder=True)
    eqns = join(brk("; "), [_pp_eqn(e, ctx) for e in jaxpr.eqns])
    close = ")" if len(jaxpr.outvars) != 1 else ",)"
    outvars = concat([text("("), pp_vars(jaxpr.outvars, ctx, sep=","), text(close)])
    body = concat(
        [
            text("{ lambda "), constvars, text("; "), invars, text(". let"),
            nest(2, concat([brk(), eqns])), brk(), text("in "), outvars,
        ]
    )  # fmt: skip
    # The closing brace belongs to the group: a body that fits only without
    # it is broken over lines, as JAX does.
    return group(concat([nest(2, body), text(" }")]))


def _pp_jaxpr(jaxpr: Jaxpr, ctx: JaxprPpContext) -> Doc:
    name = ctx.shared_jaxprs.get(jaxpr)
    if name is not None:
        return text(name)
    return _pp_skeleton(jaxpr, ctx)


def _jaxprs_in_params(params: dict[str, Any]) -> Iterator[Jaxpr]:
    for k in sorted(params):
        v = params[k]
        if isinstance(v, ClosedJaxpr):
            yield v.jaxpr
        elif isinstance(v, Jaxpr):
            yield v
        elif isinstance(v, tuple):  # named tuples too (custom_linear_solve's jaxprs)
            for j in v:
                if isinstance(j, ClosedJaxpr):
                    yield j.jaxpr
                elif isinstance(j, Jaxpr):
                    yield j


def _dropvars(jaxpr: Jaxpr) -> dict[Var, str]:
    names: dict[Var, str] = {}
    used = {id(a) for a in jaxpr.outvars if isinstance(a, Var)}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if id(v) not in used:
                names[v] = "_"
        used.update(id(a) for a in eqn.invars if isinstance(a, Var))
    return names


def pp_jaxpr(jaxpr: Jaxpr, width: int = 80) -> str:
    """Return JAX's text for a jaxpr, pulling repeated sub-jaxprs to the top.

    Args:
      jaxpr: the program.
      width: the line width.

    Returns:
      The text.
    """
    ctx = JaxprPpContext(_dropvars(jaxpr))
    labels: dict[Jaxpr, str] = {}
    counts: Counter[Jaxpr] = Counter()
    queue: deque[Jaxpr] = deque([jaxpr])
    while queue:
        j = queue.popleft()
        counts[j] += 1
        if j is not jaxpr and len(j.eqns) > 10:
            counts[j] += 1
        for eqn in j.eqns:
            name = eqn.params.get("name")
            if name is None:
                queue.extend(_jaxprs_in_params(eqn.params))
                continue
            name = str(name).strip("<>")
            for sub in _jaxprs_in_params(eqn.params):
                queue.append(sub)
                labels.setdefault(sub, name)
    name_counts: Counter[str] = Counter()
    shared: list[tuple[str, Jaxpr]] = []
    for j, c in counts.items():
        if c == 1:
            continue
        name = labels.get(j, "jaxpr")
        count = name_counts[name]
        name_counts[name] += 1
        if count > 0:
            name += str(count)
            name_counts[name] += 1
        ctx.shared_names.add(name)
        ctx.shared_jaxprs[j] = name
        shared.append((name, j))
    docs: list[Doc] = []
    for name, j in shared:
        docs.append(concat([text(f"let {name} = "), _pp_skeleton(j, ctx), text(" in"), brk()]))
    docs.append(_pp_jaxpr(jaxpr, ctx))
    return format_doc(concat(docs), width)


_jaxpr._pp_hook[0] = pp_jaxpr
