"""``tessela.ad_checkpoint``: ``jax.ad_checkpoint``'s names.

``checkpoint_name`` names a value for the policies; ``checkpoint_policies``
holds the policies; ``Saveable``, ``Recompute`` and ``Offloadable`` are the
answers a policy may give besides a bool; :func:`print_saved_residuals`
lists what the backward pass of a function keeps from its forward pass.

Example:
    >>> import tessela.numpy as tnp
    >>> print_saved_residuals(lambda x: tnp.sin(x) * x, tnp.ones(3))
    f32[3] from the argument x
    f32[3] output of cos
    f32[3] output of sin
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tessela_autodiff import vjp
from tessela_pytree import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten
from tessela_tracer import (
    Literal,
    ShapedArray,
    Var,
    checkpoint_name,
    checkpoint_policies,
    make_jaxpr,
)
from tessela_tracer.checkpoint_policies import Offloadable, Recompute, Saveable
from tessela_tracer.primitives import name_p

__all__ = [
    "Offloadable",
    "Recompute",
    "Saveable",
    "checkpoint_name",
    "checkpoint_policies",
    "print_saved_residuals",
    "saved_residuals",
]


def saved_residuals(
    f: Callable[..., Any], /, *args: Any, **kwargs: Any
) -> list[tuple[ShapedArray, str]]:
    """What ``vjp(f, *args, **kwargs)`` keeps for the backward pass, and where each comes from.

    Args:
      f: the function (checkpointed or not).
      *args: its positional arguments.
      **kwargs: its keyword arguments.

    Returns:
      One ``(aval, description)`` per residual, the arguments first (in
      argument order): ``"from the argument x"`` (with the path into a
      pytree argument), ``"named 'h'"`` for a value named with
      ``checkpoint_name``, ``"output of sin"``, or ``"from a
      literal"``/``"from a constant"``.
    """
    flat, in_tree = tree_flatten((args, kwargs))

    def flat_f(*leaves: Any) -> Any:
        a, k = tree_unflatten(in_tree, leaves)
        return f(*a, **k)

    closed = make_jaxpr(lambda *leaves: vjp(flat_f, *leaves)[1])(*flat)
    jaxpr = closed.jaxpr
    names = dict(zip(jaxpr.invars, _argument_names(f, args, kwargs), strict=True))
    outs = set(jaxpr.outvars)
    found = [(v.aval, f"from the argument {names[v]}") for v in jaxpr.invars if v in outs]
    made_by = {v: eqn for eqn in jaxpr.eqns for v in eqn.outvars}
    for v in jaxpr.outvars:
        if isinstance(v, Literal):
            found.append((v.aval, "from a literal"))
        elif v in names:
            continue
        elif isinstance(v, Var) and v in made_by:
            eqn = made_by[v]
            if eqn.primitive is name_p:
                found.append((v.aval, f"named {eqn.params['name']!r}"))
            else:
                found.append((v.aval, f"output of {eqn.primitive.name}"))
        else:
            found.append((v.aval, "from a constant"))
    return found


def print_saved_residuals(f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
    """Print what the backward pass of ``f`` at these arguments keeps, one line each.

    Each line is the residual's type and where it comes from (see
    :func:`saved_residuals`): a way to check what a ``checkpoint`` policy saves.

    Args:
      f: the function.
      *args: its positional arguments.
      **kwargs: its keyword arguments.

    Returns:
      None.

    Example:
        >>> import tessela
        >>> import tessela.numpy as tnp
        >>> f = tessela.checkpoint(lambda x: tnp.sin(tnp.sin(x)))
        >>> print_saved_residuals(f, tnp.ones(2))
        f32[2] from the argument x
    """
    for aval, what in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {what}")


def _argument_names(
    f: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]
) -> list[str]:
    # One name per flat leaf of ``(args, kwargs)``: the parameter's name and
    # the path into the argument (``d['a']``).
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        params = []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p.name for p in params if p.kind in kinds]
    star = next((p.name for p in params if p.kind is inspect.Parameter.VAR_POSITIONAL), "args")
    tops = [
        (positional[i] if i < len(positional) else f"{star}[{i - len(positional)}]", a)
        for i, a in enumerate(args)
    ]
    tops += [(k, kwargs[k]) for k in sorted(kwargs)]
    return [
        name + keystr(path) for name, value in tops for path, _ in tree_flatten_with_path(value)[0]
    ]
