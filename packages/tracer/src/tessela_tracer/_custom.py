"""``custom_jvp`` / ``custom_vjp`` staging and the scatter family."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tessela_pytree import tree_flatten, tree_unflatten

from tessela_tracer import _prims_elementwise as ew
from tessela_tracer import _prims_shape as sh
from tessela_tracer._avals import ShapedArray
from tessela_tracer._control_flow import (
    NamedCallable,
    custom_jvp_call_p,
    custom_vjp_call_p,
    hoist_consts,
)
from tessela_tracer._core import Primitive
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._prims_shape import GatherScatterMode, ScatterDimensionNumbers
from tessela_tracer._staging import DebugInfo, _fun_src_info, trace_to_jaxpr

__all__ = ["custom_jvp", "custom_vjp"]


def _trace_call(
    fun: Callable[..., Any], args: Sequence[Any], what: str
) -> tuple[Any, list[Any], list[Any], Any]:
    flat, in_tree = tree_flatten(tuple(args))
    box: list[Any] = []

    def flat_fun(*xs: Any) -> list[Any]:
        out = fun(*tree_unflatten(in_tree, list(xs)))
        leaves, tree = tree_flatten(out)
        box.append(tree)
        return leaves

    closed = trace_to_jaxpr(
        flat_fun, [_aval(x) for x in flat], debug_info=DebugInfo(what, _fun_src_info(fun))
    )
    jaxpr, consts = hoist_consts(closed)
    return jaxpr, consts, flat, box[0]


class custom_jvp:
    """A function with a custom JVP rule; staged as a ``custom_jvp_call`` equation.

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
        """Set the JVP rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def __call__(self, *args: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(
                f"No JVP defined for custom_jvp function {getattr(self.fun, '__name__', 'fun')} "
                "using defjvp; call f.defjvp(rule) before calling f"
            )
        fun = self.fun
        if self.nondiff_argnums:
            static = {i: args[i] for i in self.nondiff_argnums}
            dyn = [a for i, a in enumerate(args) if i not in static]

            def fun_dyn(*xs: Any) -> Any:
                it = iter(xs)
                return self.fun(*[static[i] if i in static else next(it) for i in range(len(args))])

            fun, args = fun_dyn, tuple(dyn)
        jaxpr, consts, flat, out_tree = _trace_call(fun, args, "custom_jvp")
        outs = custom_jvp_call_p.bind(
            *consts, *flat, call_jaxpr=jaxpr, jvp=NamedCallable(self.jvp),
            name=getattr(self.fun, "__name__", "fun"), num_consts=len(consts),
            symbolic_zeros=self.symbolic_zeros,
        )  # fmt: skip
        return tree_unflatten(out_tree, outs)


class custom_vjp:
    """A function with a custom VJP (fwd/bwd); staged as a ``custom_vjp_call`` equation.

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
        """Set ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, ct) -> cts``."""
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args: Any) -> Any:
        if self.fwd is None or self.bwd is None:
            raise AttributeError(
                f"No VJP defined for custom_vjp function {getattr(self.fun, '__name__', 'fun')} "
                "using defvjp; call f.defvjp(fwd, bwd) before calling f"
            )
        jaxpr, consts, flat, out_tree = _trace_call(self.fun, args, "custom_vjp")
        outs = custom_vjp_call_p.bind(
            *consts, *flat, call_jaxpr=jaxpr, fwd=NamedCallable(self.fwd), bwd=NamedCallable(self.bwd),
            name=getattr(self.fun, "__name__", "fun"), num_consts=len(consts),
            out_trees=NamedCallable(lambda: out_tree, "out_trees"), symbolic_zeros=self.symbolic_zeros,
        )  # fmt: skip
        return tree_unflatten(out_tree, outs)


def _scatter(p: Primitive, combiner: Primitive | None) -> Callable[..., Any]:
    def op(
        operand: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> Any:
        if combiner is None:
            update_jaxpr = None
        else:
            s = ShapedArray((), _aval(operand).dtype)
            update_jaxpr = trace_to_jaxpr(lambda a, b: [combiner.bind(a, b)], [s, s]).jaxpr
        return p.bind(
            operand, scatter_indices, updates, dimension_numbers=dimension_numbers,
            indices_are_sorted=bool(indices_are_sorted), mode=GatherScatterMode.from_any(mode),
            unique_indices=bool(unique_indices), update_consts=(), update_jaxpr=update_jaxpr,
        )  # fmt: skip

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


scatter = _scatter(sh.scatter_p, None)
scatter_add = _scatter(sh.scatter_add_p, ew.add_p)
scatter_mul = _scatter(sh.scatter_mul_p, ew.mul_p)
scatter_min = _scatter(sh.scatter_min_p, ew.min_p)
scatter_max = _scatter(sh.scatter_max_p, ew.max_p)
