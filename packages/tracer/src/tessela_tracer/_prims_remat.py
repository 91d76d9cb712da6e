"""``checkpoint`` (``remat``): the rematerialization higher-order primitive.

``checkpoint(f)`` stages ``f`` as one ``remat2`` equation whose ``jaxpr``
parameter is ``f``'s program. Evaluating it just runs that program; the
meaning lives in differentiation, which recomputes the residuals of ``f``
on the backward pass instead of storing them (subject to ``policy``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tessela_pytree import tree_flatten, tree_map, tree_unflatten

from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval, register_impl
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._jaxpr import ClosedJaxpr, Jaxpr, eval_jaxpr
from tessela_tracer._staging import (
    _normalize_argnums,
    cached_trace,
    debug_info_for,
)
from tessela_tracer._trace_util import trace_with_aux

__all__ = ["checkpoint", "checkpoint_name", "name_p", "remat", "remat_p"]

_T = TypeVar("_T")

remat_p = Primitive("remat2", multiple_results=True)
"""The rematerialization primitive.

Operands: the hoisted constants of the body, then its flat arguments.
Parameters: ``jaxpr`` (a :class:`Jaxpr` without constvars), ``prevent_cse``
(bool), ``differentiated`` (bool, set by differentiation) and ``policy``
(None or a callable deciding which residuals may be saved).
"""


def _remat_abstract_eval(
    *avals: ShapedArray,
    jaxpr: Jaxpr,
    prevent_cse: bool,
    differentiated: bool,
    policy: Callable[..., Any] | None,
) -> list[ShapedArray]:
    if jaxpr.constvars:
        raise TypeError(
            "remat's jaxpr parameter must have no constvars; hoist them into leading "
            "operands with hoist_consts"
        )
    if len(avals) != len(jaxpr.invars):
        raise TypeError(
            f"remat got {len(avals)} operands for a jaxpr of {len(jaxpr.invars)} inputs"
        )
    for i, (v, a) in enumerate(zip(jaxpr.invars, avals, strict=True)):
        if v.aval.shape != a.shape or v.aval.dtype != a.dtype:
            raise TypeError(
                f"remat operand {i} has type {a.str_short()}, but the jaxpr expects "
                f"{v.aval.str_short()}"
            )
    return [a.aval for a in jaxpr.outvars]


register_abstract_eval(remat_p, _remat_abstract_eval)


def _remat_impl(
    *args: Any,
    jaxpr: Jaxpr,
    prevent_cse: bool,
    differentiated: bool,
    policy: Callable[..., Any] | None,
) -> list[Any]:
    return eval_jaxpr(jaxpr, (), *args)


register_impl(remat_p, _remat_impl)


def _trace_body(
    fun: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static: tuple[int, ...],
    avals: Sequence[ShapedArray],
    in_tree: Any,
) -> tuple[ClosedJaxpr, list[Any], Any]:
    def flat_fun(*tracers: Any) -> tuple[list[Any], Any]:
        dyn, kw = tree_unflatten(in_tree, list(tracers))
        it = iter(dyn)
        full = [a if i in static else next(it) for i, a in enumerate(args)]
        return tree_flatten(fun(*full, **kw))

    debug = debug_info_for("checkpoint", fun, args, kwargs, static)
    return trace_with_aux(flat_fun, avals, debug_info=debug)


def checkpoint(
    fun: Callable[..., Any],
    /,
    *,
    prevent_cse: bool = True,
    policy: Callable[..., bool] | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable[..., Any]:
    """Mark ``fun`` for rematerialization under differentiation.

    The wrapped function computes what ``fun`` computes. When it is traced,
    it records one ``remat2`` equation holding ``fun``'s jaxpr, so that
    reverse-mode differentiation recomputes ``fun``'s intermediates on the
    backward pass instead of saving them.

    Args:
      fun: the function; arguments and results may be pytrees.
      prevent_cse: keep the compiler from merging the recomputation with the
        forward computation (set False inside ``scan``, where it is safe).
      policy: None (save nothing but the inputs) or a callable given each
        primitive application that says whether its output may be saved.
      static_argnums: positions passed to ``fun`` as Python values, not traced.

    Returns:
      A function with the same signature as ``fun``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> g = checkpoint(lambda x: lax.sin(lax.sin(x)))
        >>> print(make_jaxpr(g)(1.0))
        { lambda ; a:f32[]. let
            b:f32[] = remat2[
              differentiated=False
              jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = sin d in (e,) }
              policy=None
              prevent_cse=True
            ] a
          in (b,) }
    """
    if not callable(fun):
        raise TypeError(f"checkpoint: fun must be callable, got {fun!r}")
    if policy is not None and not callable(policy):
        raise TypeError(
            f"checkpoint: policy must be None or a callable, got {policy!r}; "
            "pass e.g. policy=None to save only the inputs"
        )

    @functools.wraps(fun)
    def fun_remat(*args: Any, **kwargs: Any) -> Any:
        static = _normalize_argnums(static_argnums, len(args))
        for i in static:
            if not 0 <= i < len(args):
                raise ValueError(
                    f"checkpoint: static_argnums names position {i}, but the function "
                    f"was called with {len(args)} positional arguments; pass the static "
                    "argument positionally"
                )
        dyn = [a for i, a in enumerate(args) if i not in static]
        flat, in_tree = tree_flatten((dyn, kwargs))
        avals = tuple(_aval(x) for x in flat)
        key = ("checkpoint", fun, str(in_tree), avals, tuple(args[i] for i in static))
        jaxpr, consts, out_tree = cached_trace(
            key, functools.partial(_trace_body, fun, args, kwargs, static, avals, in_tree)
        )
        outs = remat_p.bind(
            *consts,
            *flat,
            jaxpr=jaxpr.jaxpr,
            prevent_cse=bool(prevent_cse),
            differentiated=False,
            policy=policy,
        )
        return tree_unflatten(out_tree, outs)

    return fun_remat


remat = checkpoint


name_p = Primitive("name")
"""Names a value for checkpoint policies; an identity with parameter ``name`` (str)."""


def _name_abstract_eval(x: ShapedArray, *, name: str) -> ShapedArray:
    return x


register_abstract_eval(name_p, _name_abstract_eval)


def _name_impl(x: Any, *, name: str) -> Any:
    return x


register_impl(name_p, _name_impl)


def checkpoint_name(x: _T, name: str) -> _T:
    """Give ``x`` (an array or a pytree of arrays) a name that checkpoint policies can see.

    At run time this is the identity. Traced, it records a ``name`` equation
    whose ``name`` parameter policies such as
    :func:`~tessela_tracer.checkpoint_policies.save_only_these_names` test.

    Args:
      x: the value or pytree of values to name.
      name: the name (a string).

    Returns:
      ``x``, unchanged.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x: checkpoint_name(lax.sin(x), "h"))(1.0))
        { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = name[name=h] b in (c,) }
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a str, got {name!r}")
    out: _T = tree_map(lambda v: name_p.bind(v, name=name), x)
    return out
