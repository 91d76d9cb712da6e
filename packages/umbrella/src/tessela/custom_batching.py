"""``tessela.custom_batching``: functions with their own ``vmap`` rule, as ``jax.custom_batching``.

A :class:`custom_vmap` function runs as itself, except under ``vmap``, where
its rule runs instead: ``rule(axis_size, in_batched, *args)`` gets the batch
size, one pytree of booleans per argument saying which leaves are batched, and
the arguments with each batched leaf's batch at axis 0 (unbatched leaves are
not broadcast); it returns ``(out, out_batched)``, ``out_batched`` a pytree of
booleans with ``out``'s structure. The call is one ``custom_vmap_call``
equation, so the rule also applies under ``jit`` and in jaxprs that ``vmap``
batches later. Differentiation goes through the function itself (forward
mode under a ``vmap`` differentiates what the rule computes).
:func:`sequential_vmap` makes a function whose ``vmap`` is a loop
(``lax.map``) over the batch.

Example:
    >>> import tessela as tx
    >>> import tessela.numpy as tnp
    >>> from tessela.custom_batching import custom_vmap
    >>> @custom_vmap
    ... def f(x):
    ...     return tnp.sin(x)
    >>> @f.def_vmap
    ... def f_vmap(axis_size, in_batched, xs):
    ...     return tnp.cos(xs), in_batched[0]
    >>> print(f(0.0), tx.vmap(f)(tnp.zeros(2)))
    0.0 [1. 1.]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from tessela_pytree import tree_flatten, tree_map, tree_unflatten
from tessela_tracer import get_aval, lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import DebugInfo, NamedCallable, hoist_consts, trace_to_jaxpr
from tessela_tracer.typing import Array

__all__ = ["custom_vmap", "sequential_vmap"]

_Rule = TypeVar("_Rule", bound=Callable[..., Any])


def _name(fun: Any) -> str:
    return str(getattr(fun, "__name__", type(fun).__name__))


def _positional(fun: Callable[..., Any], args: Any, kwargs: Any) -> tuple[Any, ...]:
    if not kwargs:
        return tuple(args)
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"The input arguments to the custom_vmap-decorated function {_name(fun)} could "
            f"not be resolved to positional-only arguments. Binding failed with the error:\n{e}"
        ) from e
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(
            f"custom_vmap function {_name(fun)}: keyword-only parameters "
            f"{sorted(bound.kwargs)} are not supported; make them positional."
        )
    return tuple(bound.args)


def _flat_rule(
    rule: Callable[..., Any], name: str, in_tree: Any, out_tree: Any, out_avals: Sequence[Any]
) -> Callable[..., tuple[list[Any], list[bool]]]:
    """The user's rule on flat leaves, checking what it returns."""

    def flat(
        axis_size: int, in_batched: Sequence[bool], *leaves: Array
    ) -> tuple[list[Any], list[bool]]:
        args = tree_unflatten(in_tree, list(leaves))
        batched = tree_unflatten(in_tree, list(in_batched))
        out, out_batched = rule(axis_size, list(batched), *args)
        out_leaves, tree = tree_flatten(out)
        flags, spec = tree_flatten(out_batched)
        if tree != spec:
            raise ValueError(
                "structure of output value and output batching specification returned by "
                f"custom vmap rule ({name}) do not match.\nOutput values: {tree}\n"
                f"Batching spec: {spec}"
            )
        if tree != out_tree:
            raise ValueError(
                f"custom vmap rule ({name}) returned an output of structure {tree}; the "
                f"function returns {out_tree}: return one value per output of the function."
            )
        for leaf, b, want in zip(out_leaves, flags, out_avals, strict=True):
            got = get_aval(leaf)
            shape = (axis_size, *want.shape) if b else tuple(want.shape)
            if tuple(got.shape) != shape or got.dtype != want.dtype:
                raise ValueError(
                    f"custom vmap rule ({name}) returned {got.str_short()} for an output of "
                    f"type {want.str_short()} {'batched' if b else 'unbatched'} over "
                    f"{axis_size} elements; expected shape {shape} and dtype {want.dtype}."
                )
        return out_leaves, [bool(b) for b in flags]

    return flat


class custom_vmap:
    """A function with a custom ``vmap`` rule (set with :meth:`def_vmap`).

    Args:
      fun: the function.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> @tx.custom_batching.custom_vmap
      ... def add(x, y):
      ...     return x + y
      >>> @add.def_vmap
      ... def add_rule(axis_size, in_batched, x, y):
      ...     print("batched:", in_batched)
      ...     return x + y, True
      >>> print(tx.vmap(add, in_axes=(0, None))(tnp.ones(2), 1.0))
      batched: [True, False]
      [2. 2.]
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable[..., Any] | None = None

    def def_vmap(self, vmap_rule: _Rule) -> _Rule:
        """Sets the ``vmap`` rule: ``rule(axis_size, in_batched, *args) -> (out, out_batched)``.

        Args:
          vmap_rule: the rule.

        Returns:
          ``vmap_rule`` itself, so this works as a decorator.
        """
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = _name(self.fun)
        if self.vmap_rule is None:
            raise AttributeError(
                f"No batching rule defined for custom_vmap function {name} using def_vmap."
            )
        args = _positional(self.fun, args, kwargs)
        flat, in_tree = tree_flatten(args)
        out_info: list[Any] = []

        def flat_fun(*leaves: Array) -> list[Any]:
            out = self.fun(*tree_unflatten(in_tree, list(leaves)))
            out_leaves, out_tree = tree_flatten(out)
            out_info.append(out_tree)
            return out_leaves

        closed = trace_to_jaxpr(
            flat_fun, [get_aval(x) for x in flat], debug_info=DebugInfo("custom_vmap", name)
        )
        out_tree = out_info[0]
        jaxpr, consts = hoist_consts(closed)
        rule = _flat_rule(
            self.vmap_rule, _name(self.vmap_rule), in_tree, out_tree, closed.out_avals
        )
        outs = P.custom_vmap_call_p.bind(
            *consts, *flat, call=jaxpr, rule=NamedCallable(rule, _name(self.vmap_rule)),
            in_tree=in_tree, out_tree=out_tree, num_consts=len(consts),
        )  # fmt: skip
        return tree_unflatten(out_tree, outs)


def sequential_vmap(f: Callable[..., Any]) -> custom_vmap:
    """``f`` with a ``vmap`` rule that loops over the batch (``lax.map``) instead of batching.

    Unbatched arguments are passed as they are to every step.

    Args:
      f: the function.

    Returns:
      A :class:`custom_vmap` function.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> from tessela.custom_batching import sequential_vmap
      >>> g = sequential_vmap(lambda x, y: x * y)
      >>> print(tx.vmap(g, in_axes=(0, None))(tnp.arange(3.0), 2.0))
      [0. 2. 4.]
    """
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size: int, in_batched: list[Any], *args: Any) -> tuple[Any, Any]:
        del axis_size
        flags, in_tree = tree_flatten(in_batched)
        leaves = tree_flatten(args)[0]
        mapped = [x for x, b in zip(leaves, flags, strict=True) if b]

        def step(xs: list[Array]) -> Any:
            it = iter(xs)
            full = [next(it) if b else x for x, b in zip(leaves, flags, strict=True)]
            return f(*tree_unflatten(in_tree, full))

        out = lax.map(step, mapped)
        return out, tree_map(lambda _: True, out)

    return f
