"""Helpers that every transformation needs around tracing a function to a jaxpr.

- :func:`trace_with_aux` traces a flat function that also returns a Python
  value computed while it runs (an output tree, flags of which outputs are
  batched or nonzero, ...), the one idiom of "store the output structure from
  inside the traced function".
- :func:`flatten_fun` turns a function on pytrees into one on flat leaves that
  reports its output tree that way.
- :func:`join_consts` gives several const-free jaxprs one shared list of
  leading constant operands (the branches of a ``cond``, the jaxprs of a
  ``while``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tessela_pytree import PyTreeDef, tree_flatten, tree_unflatten

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import get_aval_of
from tessela_tracer._jaxpr import ClosedJaxpr, Var
from tessela_tracer._prims_control import hoist_consts
from tessela_tracer._staging import DebugInfo, trace_to_jaxpr

__all__ = ["flatten_fun", "join_consts", "trace_with_aux"]

Aux = TypeVar("Aux")


def trace_with_aux(
    fun: Callable[..., tuple[Sequence[Any], Aux]],
    avals_in: Sequence[ShapedArray],
    /,
    *,
    debug_info: DebugInfo | None = None,
) -> tuple[ClosedJaxpr, list[Any], Aux]:
    """Trace ``fun`` to a jaxpr without constvars, its hoisted consts, and its side value.

    Args:
      fun: ``fun(*tracers) -> (flat_outputs, aux)``; ``aux`` is any Python value
        computed while tracing (an output tree, flags, ...).
      avals_in: the input abstract values.
      debug_info: what is traced, for error messages.

    Returns:
      ``(jaxpr, consts, aux)``: the jaxpr takes ``consts`` as leading operands.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import lax
        >>> c = np.ones(2, np.float32)
        >>> j, consts, aux = trace_with_aux(
        ...     lambda x: ([lax.add(x, c)], "tree"), [ShapedArray((2,), np.float32)])
        >>> len(j.jaxpr.invars), len(consts), aux
        (2, 1, 'tree')
    """
    box: list[Aux] = []

    def flat(*args: Any) -> Sequence[Any]:
        outs, aux = fun(*args)
        box.append(aux)
        return outs

    jaxpr, consts = hoist_consts(trace_to_jaxpr(flat, avals_in, debug_info=debug_info))
    return jaxpr, consts, box[0]


def flatten_fun(
    fun: Callable[..., Any], in_tree: PyTreeDef, /, *, star: bool = True
) -> Callable[..., tuple[list[Any], PyTreeDef]]:
    """``fun`` on pytrees as a function of flat leaves returning ``(leaves, out_tree)``.

    Args:
      fun: the function on pytrees.
      in_tree: the tree of its arguments (a tuple of positional arguments when
        ``star``, else the one argument).
      star: call ``fun(*tree)`` rather than ``fun(tree)``.

    Returns:
      The flat function, ready for :func:`trace_with_aux`.

    Example:
        >>> from tessela_pytree import tree_flatten
        >>> _, tree = tree_flatten(((1, 2),))
        >>> flatten_fun(lambda p: {"s": p[0] + p[1]}, tree)(1, 2)
        ([3], PyTreeDef({'s': *}))
    """

    def flat(*leaves: Any) -> tuple[list[Any], PyTreeDef]:
        args = tree_unflatten(in_tree, list(leaves))
        return tree_flatten(fun(*args) if star else fun(args))

    return flat


def _occurrences(consts: Sequence[Any]) -> list[tuple[int, int]]:
    """``(id(c), how many times c came before in consts)`` for each constant."""
    seen: dict[int, int] = {}
    keys = []
    for c in consts:
        n = seen.get(id(c), 0)
        seen[id(c)] = n + 1
        keys.append((id(c), n))
    return keys


def join_consts(
    jaxprs: Sequence[ClosedJaxpr], consts: Sequence[Sequence[Any]], /
) -> tuple[list[ClosedJaxpr], list[Any]]:
    """Give every jaxpr the same leading constant operands.

    ``jaxprs[i]`` takes ``consts[i]`` (its hoisted consts) before its other
    operands. Every result takes the union of all consts, each object once, in
    order of first appearance, and ignores those it does not use.

    Args:
      jaxprs: const-free jaxprs (as from :func:`trace_with_aux`).
      consts: the leading constant operands of each.

    Returns:
      ``(jaxprs, joined_consts)``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import lax
        >>> a, b = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> x = [ShapedArray((2,), np.float32)]
        >>> j1, c1, _ = trace_with_aux(lambda x: ([lax.add(x, a)], None), x)
        >>> j2, c2, _ = trace_with_aux(lambda x: ([lax.mul(x, b)], None), x)
        >>> js, cs = join_consts([j1, j2], [c1, c2])
        >>> [len(j.jaxpr.invars) for j in js], len(cs)
        ([3, 3], 2)
    """
    # A slot per (object, occurrence within one list): an object repeated in
    # one jaxpr's consts keeps one slot per repetition, so each binder stays.
    slot: dict[tuple[int, int], int] = {}
    joined: list[Any] = []
    for cs in consts:
        for key, c in zip(_occurrences(cs), cs, strict=True):
            if key not in slot:
                slot[key] = len(joined)
                joined.append(c)
    if not joined:
        return list(jaxprs), []
    out = []
    for j, cs in zip(jaxprs, consts, strict=True):
        inner = j.jaxpr
        binders: list[Var | None] = [None] * len(joined)
        for v, key in zip(inner.invars[: len(cs)], _occurrences(cs), strict=True):
            binders[slot[key]] = v
        lead = [
            Var(get_aval_of(c)) if b is None else b for b, c in zip(binders, joined, strict=True)
        ]
        out.append(ClosedJaxpr(inner.replace(invars=[*lead, *inner.invars[len(cs) :]]), ()))
    return out, joined
