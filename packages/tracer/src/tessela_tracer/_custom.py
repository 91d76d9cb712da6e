"""``custom_jvp`` / ``custom_vjp`` staging and the scatter family."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from tessela_pytree import PyTreeDef, tree_flatten, tree_unflatten

from tessela_tracer import _prims_elementwise as ew
from tessela_tracer import _prims_indexing as ix
from tessela_tracer import _prims_shape as sh
from tessela_tracer._avals import ShapedArray, tangent_aval
from tessela_tracer._core import Primitive, Tracer
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._custom_rules import (
    OutType,
    VJPTrees,
    check_no_tracers,
    flat_bwd_rule,
    flat_fwd_rule,
    flat_jvp_rule,
    fun_name,
    with_static,
)
from tessela_tracer._dtypes import float0
from tessela_tracer._jaxpr import Jaxpr
from tessela_tracer._prims_control import (
    NamedCallable,
    hoist_consts,
)
from tessela_tracer._prims_custom import custom_jvp_call_p, custom_vjp_call_p
from tessela_tracer._prims_indexing import (
    GatherScatterMode,
    ScatterDimensionNumbers,
)
from tessela_tracer._staging import DebugInfo, _fun_src_info, trace_to_jaxpr
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["custom_jvp", "custom_vjp"]


def _trace_call(
    fun: Callable[..., Any], static: dict[int, Any], args: Sequence[Any], what: str,
    out_type: OutType,
) -> tuple[Any, list[Any], list[Any], PyTreeDef]:  # fmt: skip
    """Trace ``fun`` on the dynamic ``args`` (static ones put back in place) to a jaxpr."""
    flat, in_tree = tree_flatten(tuple(args))

    def flat_fun(*xs: Any) -> list[Any]:
        out = fun(*with_static(static, tree_unflatten(in_tree, list(xs))))
        leaves, tree = tree_flatten(out)
        out_type.tree, out_type.avals = tree, [_aval(x) for x in leaves]
        return leaves

    closed = trace_to_jaxpr(
        flat_fun, [_aval(x) for x in flat], debug_info=DebugInfo(what, _fun_src_info(fun))
    )
    jaxpr, consts = hoist_consts(closed)
    return jaxpr, consts, flat, in_tree


def _resolve_args(fun: Callable[..., Any], kind: str, args: Any, kwargs: Any) -> tuple[Any, ...]:
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        if kwargs:
            raise TypeError(
                f"The input arguments to the custom_{kind}-decorated function {fun_name(fun)} "
                "could not be resolved to positional-only arguments: its signature is unknown; "
                "pass them by position."
            ) from None
        return tuple(args)
    try:
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"The input arguments to the custom_{kind}-decorated function {fun_name(fun)} could "
            f"not be resolved to positional-only arguments. Binding failed with the error:\n{e}"
        ) from e
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(
            f"The input arguments to the custom_{kind}-decorated function {fun_name(fun)} could "
            "not be resolved to positional-only arguments: keyword-only parameters "
            f"{sorted(bound.kwargs)} are not supported; make them positional."
        )
    return tuple(bound.args)


def _split_static(
    args: tuple[Any, ...], nondiff_argnums: tuple[int, ...]
) -> tuple[dict[int, Any], list[Any]]:
    n = len(args)
    idx = sorted({i % n if -n <= i < n else i for i in nondiff_argnums})
    for i in idx:
        if not 0 <= i < n:
            raise ValueError(
                f"nondiff_argnums {nondiff_argnums} refers to argument {i}, but the function "
                f"was called with {n} positional arguments; pass that argument or fix "
                "nondiff_argnums."
            )
    static = {i: args[i] for i in idx}
    return static, [a for i, a in enumerate(args) if i not in static]


def _stop_gradient_leaves(x: Any) -> Any:
    leaves, tree = tree_flatten(x)
    if not any(isinstance(v, Tracer) for v in leaves):
        return x
    return tree_unflatten(
        tree, [ew.stop_gradient_p.bind(v) if isinstance(v, Tracer) else v for v in leaves]
    )


class custom_jvp:
    """A function with a custom JVP rule; staged as a ``custom_jvp_call`` equation.

    Arguments and outputs may be pytrees. The rule receives the tuple of
    primal arguments and the tuple of their tangents (same structure) and
    returns ``(primal_out, tangent_out)``; with ``nondiff_argnums`` the static
    arguments come first: ``rule(*nondiff, primals, tangents)``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> @custom_jvp
        ... def f(x):
        ...     return lax.sin(x)
        >>> _ = f.defjvp(lambda primals, tangents: (f(primals[0]), tangents[0]))
        >>> make_jaxpr(f)(1.0).eqns[0].primitive
        custom_jvp_call
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def defjvp(
        self, jvp: Callable[..., Any], *, symbolic_zeros: bool = False
    ) -> Callable[..., Any]:
        """Set the JVP rule ``jvp(*nondiff, primals, tangents) -> (primal_out, tangent_out)``.

        Args:
          jvp: the rule; ``primals`` and ``tangents`` are tuples of the
            differentiable arguments and their tangents (pytrees alike).
          symbolic_zeros: when True, tangents known to be zero arrive as
            :class:`SymbolicZero` objects, and the rule may return them.

        Returns:
          ``jvp`` itself, so ``defjvp`` works as a decorator.

        Example:
            >>> from tessela_tracer import lax
            >>> @custom_jvp
            ... def f(x):
            ...     return lax.exp(x)
            >>> @f.defjvp
            ... def f_jvp(primals, tangents):
            ...     y = f(primals[0])
            ...     return y, lax.mul(y, tangents[0])
            >>> f.jvp is f_jvp
            True
        """
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """Set one JVP function per argument: ``jvp_i(t_i, primal_out, *primals)``.

        The output tangent is the sum of the terms; ``None`` marks an
        argument whose tangent does not contribute.

        Args:
          *jvps: one function (or None) per positional argument.

        Returns:
          None.

        Example:
            >>> from tessela_tracer import lax
            >>> @custom_jvp
            ... def f(x, y):
            ...     return lax.mul(lax.sin(x), y)
            >>> f.defjvps(lambda t, out, x, y: lax.mul(lax.mul(lax.cos(x), t), y),
            ...           lambda t, out, x, y: lax.mul(lax.sin(x), t))
            >>> f.jvp is not None
            True
        """
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
            out = self(*primals)
            leaves, tree = tree_flatten(out)
            total: list[Any] = [None] * len(leaves)
            for t, rule in zip(tangents, jvps, strict=False):
                if rule is None:
                    continue
                term = tree.flatten_up_to(rule(t, out, *primals))
                total = [
                    x if s is None else ew.add_p.bind(s, x)
                    for s, x in zip(total, term, strict=True)
                ]
            return out, tree_unflatten(
                tree,
                [_zeros_like(x) if s is None else s for s, x in zip(total, leaves, strict=True)],
            )

        jvp.__name__ = jvp.__qualname__ = "jvp"
        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(
                f"No JVP defined for custom_jvp function {name} using defjvp; call "
                "f.defjvp(rule) (or f.defjvps(...)) before calling f."
            )
        args = _resolve_args(self.fun, "jvp", args, kwargs)
        static, dyn = _split_static(args, self.nondiff_argnums)
        static = {i: _stop_gradient_leaves(v) for i, v in static.items()}
        out_type = OutType()
        jaxpr, consts, flat, in_tree = _trace_call(self.fun, static, dyn, "custom_jvp", out_type)
        static_args = [static[i] for i in sorted(static)]
        rule = flat_jvp_rule(self.jvp, static_args, in_tree, out_type, name)
        outs = custom_jvp_call_p.bind(
            *consts, *flat, call_jaxpr=jaxpr, jvp=NamedCallable(rule, fun_name(self.jvp)),
            name=name, num_consts=len(consts), symbolic_zeros=self.symbolic_zeros,
        )  # fmt: skip
        assert out_type.tree is not None
        return tree_unflatten(out_type.tree, outs)


def _zeros_like(x: Any) -> Any:
    a = tangent_aval(_aval(x))
    if a.dtype == float0:
        return np.zeros(a.shape, float0)
    return sh.broadcast_in_dim_p.bind(
        np.zeros((), a.dtype), shape=tuple(a.shape), broadcast_dimensions=(), sharding=None
    )


class custom_vjp:
    """A function with a custom VJP (fwd/bwd); staged as a ``custom_vjp_call`` equation.

    ``fwd(*args) -> (out, residuals)`` takes the same arguments as the
    function; ``bwd(residuals, ct) -> cts`` returns one cotangent per
    differentiable argument (a pytree like it, or None for zero). With
    ``nondiff_argnums`` the static values are passed to ``fwd`` in place and
    first to ``bwd``: ``bwd(*nondiff, residuals, ct)``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> @custom_vjp
        ... def f(x):
        ...     return lax.cos(x)
        >>> f.defvjp(lambda x: (f(x), x), lambda res, g: (g,))
        >>> make_jaxpr(f)(1.0).eqns[0].primitive
        custom_vjp_call
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def defvjp(
        self, fwd: Callable[..., Any], bwd: Callable[..., Any], *, symbolic_zeros: bool = False
    ) -> None:
        """Set ``fwd(*args) -> (out, residuals)`` and ``bwd(*nondiff, residuals, ct) -> cts``.

        Args:
          fwd: the forward rule, called with the function's arguments.
          bwd: the backward rule; returns a tuple with one entry per
            differentiable argument (None for a zero cotangent).
          symbolic_zeros: when True, ``fwd`` receives :class:`CustomVJPPrimal`
            leaves (value and ``perturbed`` flag) and ``bwd`` may receive and
            return :class:`SymbolicZero` cotangents.

        Returns:
          None.

        Example:
            >>> from tessela_tracer import lax
            >>> @custom_vjp
            ... def f(x):
            ...     return lax.sin(x)
            >>> f.defvjp(lambda x: (f(x), lax.cos(x)), lambda c, g: (lax.mul(c, g),))
            >>> f.bwd is not None
            True
        """
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = fun_name(self.fun)
        if self.fwd is None or self.bwd is None:
            raise AttributeError(
                f"No VJP defined for custom_vjp function {name} using defvjp; call "
                "f.defvjp(fwd, bwd) before calling f."
            )
        args = _resolve_args(self.fun, "vjp", args, kwargs)
        static, dyn = _split_static(args, self.nondiff_argnums)
        for v in static.values():
            check_no_tracers(v)
        out_type = OutType()
        jaxpr, consts, flat, in_tree = _trace_call(self.fun, static, dyn, "custom_vjp", out_type)
        trees = VJPTrees()
        in_avals = [_aval(x) for x in flat]
        fwd = flat_fwd_rule(self.fwd, static, in_tree, out_type, trees, name, self.symbolic_zeros)
        static_args = [static[i] for i in sorted(static)]
        bwd = flat_bwd_rule(self.bwd, static_args, in_tree, in_avals, trees)
        outs = custom_vjp_call_p.bind(
            *consts, *flat, call_jaxpr=jaxpr, fwd=NamedCallable(fwd, fun_name(self.fwd)),
            bwd=NamedCallable(bwd, fun_name(self.bwd)), name=name, num_consts=len(consts),
            out_trees=NamedCallable(trees, "out_trees"), symbolic_zeros=self.symbolic_zeros,
        )  # fmt: skip
        assert out_type.tree is not None
        return tree_unflatten(out_type.tree, outs)


if TYPE_CHECKING:

    class _ScatterOp(Protocol):
        def __call__(
            self,
            operand: ArrayLike,
            scatter_indices: ArrayLike,
            updates: ArrayLike,
            dimension_numbers: ScatterDimensionNumbers,
            *,
            indices_are_sorted: bool = False,
            unique_indices: bool = False,
            mode: str | GatherScatterMode | None = None,
        ) -> Array: ...


_COMBINER_JAXPRS: dict[tuple[Primitive, Any], Jaxpr] = {}


def _combiner_jaxpr(combiner: Primitive, dtype: Any) -> Jaxpr:
    # A scatter's ``update_jaxpr``, one object per (combiner, dtype): the
    # parameter keys compiled programs, so a new jaxpr per call would compile
    # an eager ``x.at[i].add(v)`` again on every call.
    key = (combiner, dtype)
    jaxpr = _COMBINER_JAXPRS.get(key)
    if jaxpr is None:
        s = ShapedArray((), dtype)
        jaxpr = trace_to_jaxpr(lambda a, b: [combiner.bind(a, b)], [s, s]).jaxpr
        jaxpr = _COMBINER_JAXPRS.setdefault(key, jaxpr)
    return jaxpr


def _scatter(p: Primitive, combiner: Primitive | None) -> _ScatterOp:
    def op(
        operand: ArrayLike,
        scatter_indices: ArrayLike,
        updates: ArrayLike,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> Array:
        update_jaxpr = None if combiner is None else _combiner_jaxpr(combiner, _aval(operand).dtype)
        out: Array = p.bind(
            operand, scatter_indices, updates, dimension_numbers=dimension_numbers,
            indices_are_sorted=bool(indices_are_sorted), mode=GatherScatterMode.from_any(mode),
            unique_indices=bool(unique_indices), update_consts=(), update_jaxpr=update_jaxpr,
        )  # fmt: skip
        return out

    name = p.name.replace("-", "_")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"XLA ``{p.name}``: combine ``updates`` into ``operand`` at ``scatter_indices``.\n\n"
        "    Args:\n      operand: the array.\n      scatter_indices: integer indices.\n"
        "      updates: the values.\n      dimension_numbers: a ScatterDimensionNumbers.\n"
        "      indices_are_sorted: promise sorted indices.\n      unique_indices: promise unique indices.\n"
        "      mode: out-of-bounds handling (default drops).\n\n    Returns:\n      The updated array.\n\n"
        "    Example:\n        >>> import numpy as np\n"
        "        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct\n"
        "        >>> dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))\n"
        f"        >>> f = lambda x: lax.{name}(x, np.zeros((2, 1), np.int32), x, dn)\n"
        "        >>> eval_shape(f, ShapeDtypeStruct((2, 3), 'float32')).shape\n        (2, 3)\n"
    )
    return op


scatter = _scatter(ix.scatter_p, None)
scatter_add = _scatter(ix.scatter_add_p, ew.add_p)
scatter_mul = _scatter(ix.scatter_mul_p, ew.mul_p)
scatter_min = _scatter(ix.scatter_min_p, ew.min_p)
scatter_max = _scatter(ix.scatter_max_p, ew.max_p)
