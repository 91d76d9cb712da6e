"""Jaxpr records, the type checker, the evaluator and sub-jaxpr access."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive
from tessela_tracer.typing import Value

__all__ = [
    "Atom",
    "ClosedJaxpr",
    "DropVar",
    "Jaxpr",
    "JaxprEqn",
    "JaxprTypeError",
    "Literal",
    "Var",
    "check_jaxpr",
    "eval_jaxpr",
    "jaxpr_as_fun",
    "replace_subjaxprs",
    "subjaxprs",
]


class Var:
    """A variable of a jaxpr; identity is the variable (names come from printing)."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({self.aval.str_short(True)})"


class DropVar(Var):
    """An equation output that is never read (printed ``_``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "_"


class Literal:
    """A scalar constant inlined into an equation (printed ``1.0:f32[]``)."""

    __slots__ = ("aval", "val")

    def __init__(self, val: Any, aval: ShapedArray) -> None:
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        return f"Literal({self.val})"

    def __str__(self) -> str:
        return f"{np.asarray(self.val).item()}:{self.aval.str_short(True)}"


Atom = Var | Literal


@dataclasses.dataclass(frozen=True, eq=False, repr=False, slots=True, weakref_slot=True)
class JaxprEqn:
    """One equation ``outvars = primitive[params] invars``."""

    invars: Sequence[Atom]
    outvars: Sequence[Var]
    primitive: Primitive
    params: dict[str, Any]

    def replace(self, **changes: Any) -> JaxprEqn:
        """Return a copy with some fields replaced."""
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        return f"JaxprEqn({self.primitive.name}, {len(self.invars)} in, {len(self.outvars)} out)"


@dataclasses.dataclass(frozen=True, eq=False, repr=False, slots=True, weakref_slot=True)
class Jaxpr:
    """A typed, first-order program: constvars, invars, equations, outvars."""

    constvars: Sequence[Var]
    invars: Sequence[Var]
    outvars: Sequence[Atom]
    eqns: Sequence[JaxprEqn]

    @property
    def in_avals(self) -> list[ShapedArray]:
        """Abstract values of the inputs."""
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        """Abstract values of the outputs."""
        return [v.aval for v in self.outvars]

    def replace(self, **changes: Any) -> Jaxpr:
        """Return a copy with some fields replaced."""
        return dataclasses.replace(self, **changes)

    def pretty_print(self, *, width: int = 80) -> str:
        """Return the text JAX's ``make_jaxpr`` prints for this program."""
        return _pp_hook[0](self, width)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__


@dataclasses.dataclass(frozen=True, eq=False, repr=False, slots=True, weakref_slot=True)
class ClosedJaxpr:
    """A jaxpr together with the values of its constvars."""

    jaxpr: Jaxpr
    consts: Sequence[Any] = ()

    @property
    def in_avals(self) -> list[ShapedArray]:
        """Abstract values of the inputs."""
        return self.jaxpr.in_avals

    @property
    def out_avals(self) -> list[ShapedArray]:
        """Abstract values of the outputs."""
        return self.jaxpr.out_avals

    @property
    def eqns(self) -> Sequence[JaxprEqn]:
        """The equations of the underlying jaxpr."""
        return self.jaxpr.eqns

    def replace(self, **changes: Any) -> ClosedJaxpr:
        """Return a copy with some fields replaced."""
        return dataclasses.replace(self, **changes)

    def pretty_print(self, *, width: int = 80) -> str:
        """Return the text JAX's ``make_jaxpr`` prints for this program."""
        return self.jaxpr.pretty_print(width=width)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__


# The printer module installs itself here (it imports this module).
_pp_hook: list[Callable[[Jaxpr, int], str]] = [lambda j, w: object.__repr__(j)]


class JaxprTypeError(TypeError):
    """A jaxpr failed :func:`check_jaxpr`."""


def _is_jaxpr(v: Any) -> bool:
    return isinstance(v, (Jaxpr, ClosedJaxpr))


def _jaxpr_tuple(v: Any) -> bool:
    """A tuple (named tuples included) of jaxprs, some entries possibly None."""
    return (
        isinstance(v, tuple)
        and any(_is_jaxpr(j) for j in v)
        and all(j is None or _is_jaxpr(j) for j in v)
    )


def subjaxprs(eqn: JaxprEqn, /) -> list[Jaxpr | ClosedJaxpr]:
    """Return every jaxpr carried in an equation's parameters, in parameter order.

    The order is that of ``eqn.params`` (the keyword order of the ``bind``
    that made the equation; every Tessela package binds in the order below).
    A parameter counts when it holds a jaxpr or a tuple of them (named tuples
    included; ``None`` entries are skipped). Each is returned as stored: a
    :class:`ClosedJaxpr` without consts, except ``remat2``'s ``jaxpr``, a
    :class:`Jaxpr` without constvars. Write ``getattr(sub, "jaxpr", sub)`` for
    the open jaxpr of either. For the tracer's higher-order primitives:

    - ``jit``: ``jaxpr``; ``scan``: ``jaxpr``; ``reduce``: ``jaxpr``;
    - ``cond``: ``branches`` in index order;
    - ``while``: ``cond_jaxpr`` then ``body_jaxpr``;
    - ``custom_jvp_call`` / ``custom_vjp_call``: ``call_jaxpr`` (their rules
      are Python functions, not jaxprs);
    - ``remat2``: ``jaxpr`` (a ``Jaxpr``);
    - ``custom_linear_solve``: ``jaxprs`` (matvec, vecmat, solve,
      transpose_solve), the absent ones skipped.

    Args:
      eqn: any equation.

    Returns:
      The sub-jaxprs (empty for first-order primitives).

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> cj = make_jaxpr(lambda x: lax.while_loop(lambda c: lax.lt(c, 9.0), lax.exp, x))(1.0)
        >>> [[e.primitive.name for e in j.eqns] for j in subjaxprs(cj.eqns[-1])]
        [['lt'], ['exp']]
    """
    out: list[Jaxpr | ClosedJaxpr] = []
    for v in eqn.params.values():
        if _is_jaxpr(v):
            out.append(v)
        elif _jaxpr_tuple(v):
            out.extend(j for j in v if j is not None)
    return out


def replace_subjaxprs(
    eqn: JaxprEqn,
    fn: Callable[[Any], Any],
    /,
) -> JaxprEqn:
    """Rebuild an equation with each sub-jaxpr replaced by ``fn(sub_jaxpr)``.

    ``fn`` is called once per entry of :func:`subjaxprs`, in that order and
    with the same values (a ClosedJaxpr, or a Jaxpr where the parameter holds
    one; return the same kind). Tuples keep their type (a named tuple stays
    one) and their ``None`` entries; other parameters are kept.

    Args:
      eqn: any equation.
      fn: maps a Jaxpr or ClosedJaxpr to its replacement.

    Returns:
      A new equation (same variables) whose jaxpr-valued parameters are mapped.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> cj = make_jaxpr(lambda x: lax.cond(lax.gt(x, 0.0), lax.sin, lax.cos, x))(1.0)
        >>> seen = []
        >>> eqn = replace_subjaxprs(cj.eqns[-1], lambda j: seen.append(j) or j)
        >>> eqn.primitive.name, seen == subjaxprs(cj.eqns[-1])
        ('cond', True)
    """
    params = dict(eqn.params)
    for name, v in eqn.params.items():
        if _is_jaxpr(v):
            params[name] = fn(v)
        elif _jaxpr_tuple(v):
            items = [None if j is None else fn(j) for j in v]
            params[name] = type(v)(*items) if hasattr(v, "_fields") else tuple(items)
    return eqn.replace(params=params)


def _typecompat(expected: ShapedArray, got: ShapedArray) -> bool:
    return expected.shape == got.shape and expected.dtype == got.dtype


def check_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, /) -> None:
    """Type-check a jaxpr: every variable defined once before use, every
    equation's outputs equal to its primitive's abstract evaluation.

    Args:
      jaxpr: the jaxpr to check (sub-jaxprs are checked too).

    Returns:
      None.

    Raises:
      JaxprTypeError: describing the first problem found.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> check_jaxpr(make_jaxpr(lax.sin)(1.0))
    """
    if isinstance(jaxpr, ClosedJaxpr):
        if len(jaxpr.consts) != len(jaxpr.jaxpr.constvars):
            raise JaxprTypeError(
                f"closed jaxpr has {len(jaxpr.consts)} consts for "
                f"{len(jaxpr.jaxpr.constvars)} constvars"
            )
        jaxpr = jaxpr.jaxpr
    defined: set[int] = set()

    def define(v: Var, where: str) -> None:
        if isinstance(v, DropVar):
            return
        if id(v) in defined:
            raise JaxprTypeError(f"variable {v} defined twice ({where})")
        defined.add(id(v))

    def read(a: Atom, where: str) -> None:
        if isinstance(a, Literal):
            return
        if id(a) not in defined:
            raise JaxprTypeError(f"variable {a} used before definition ({where})")

    for v in (*jaxpr.constvars, *jaxpr.invars):
        define(v, "binder")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i}: {eqn.primitive.name}"
        for a in eqn.invars:
            read(a, where)
        for sub in subjaxprs(eqn):
            check_jaxpr(sub)
        try:
            out = eqn.primitive.abstract_eval(*(a.aval for a in eqn.invars), **eqn.params)
        except Exception as err:
            raise JaxprTypeError(f"{where} fails abstract evaluation: {err}") from err
        outs = out if eqn.primitive.multiple_results else [out]
        if len(outs) != len(eqn.outvars):
            raise JaxprTypeError(f"{where} has {len(eqn.outvars)} outputs, rule gives {len(outs)}")
        for v, aval in zip(eqn.outvars, outs, strict=True):
            if not _typecompat(aval, v.aval):
                raise JaxprTypeError(
                    f"{where} output type {v.aval.str_short(True)} differs from "
                    f"the rule's {aval.str_short(True)}"
                )
            define(v, where)
    for a in jaxpr.outvars:
        read(a, "outvars")


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Value], /, *args: Value) -> list[Any]:
    """Evaluate a jaxpr by binding each equation's primitive under the current trace.

    Args:
      jaxpr: the program.
      consts: values for ``jaxpr.constvars``.
      *args: values for ``jaxpr.invars``.

    Returns:
      The list of outputs.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> cj = make_jaxpr(lambda x: lax.add(x, x))(1.0)
        >>> make_jaxpr(lambda y: eval_jaxpr(cj.jaxpr, cj.consts, y))(2.0).eqns[0].primitive
        add
    """
    if len(args) != len(jaxpr.invars):
        raise TypeError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}"
        )
    env: dict[Var, Any] = {}
    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        invals = [a.val if isinstance(a, Literal) else env[a] for a in eqn.invars]
        out = eqn.primitive.bind(*invals, **eqn.params)
        if eqn.primitive.multiple_results:
            for v, x in zip(eqn.outvars, out, strict=True):
                env[v] = x
        else:
            env[eqn.outvars[0]] = out
    return [a.val if isinstance(a, Literal) else env[a] for a in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr, /) -> Callable[..., list[Any]]:
    """Turn a closed jaxpr into a Python function of its inputs.

    Args:
      closed: the closed jaxpr.

    Returns:
      ``f(*args) -> list`` evaluating it with :func:`eval_jaxpr`.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = jaxpr_as_fun(make_jaxpr(lax.neg)(1.0))
        >>> make_jaxpr(f)(3.0).eqns[0].primitive
        neg
    """

    def fun(*args: Value) -> list[Any]:
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)

    return fun
