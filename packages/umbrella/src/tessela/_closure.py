"""``custom_gradient``, ``closure_convert``, ``fwd_and_bwd`` and ``linear_call``, as in JAX.

``custom_gradient(f)``: ``f`` returns ``(out, vjp)``; the result is a
``custom_vjp`` function whose backward pass is ``vjp``. The ``vjp`` closure
is traced to a jaxpr in the forward pass, so what it closes over travels as
residual arrays. ``closure_convert(f, *example_args)`` traces ``f`` and
returns ``(g, consts)``: ``g(*args, *consts)`` computes ``f(*args)``, with
the closed-over values that may carry derivatives (tracers of inexact
dtype) turned into the explicit trailing arguments ``consts``.
``fwd_and_bwd(f, argnums)`` splits ``vjp`` into a forward function that
returns the output and the residuals (arrays, with the backward jaxpr as
static structure) and a backward function of the residuals, both jitted by
default, so that the backward pass compiles once. ``linear_call(f, f_t, res,
lin)`` computes ``f(res, lin)``, a function linear in ``lin``, whose
transpose (in reverse mode and ``linear_transpose``) is ``f_t(res, ct)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np
from tessela_autodiff import vjp
from tessela_lowering import jit
from tessela_pytree import (
    PyTreeDef,
    register_pytree_node,
    tree_flatten,
    tree_unflatten,
    treedef_is_leaf,
)
from tessela_tracer import ClosedJaxpr, Tracer, custom_vjp, dtypes, get_aval, trace_to_jaxpr
from tessela_tracer import primitives as P
from tessela_tracer.extend import DebugInfo, NamedCallable, eval_jaxpr, hoist_consts, tangent_aval
from tessela_tracer.typing import Array

__all__ = ["closure_convert", "custom_gradient", "fwd_and_bwd", "linear_call"]

# Arguments, outputs and cotangents are pytrees of arbitrary structure: they stay ``Any``
# where nothing relates them, and these type variables carry them through otherwise.
_Out = TypeVar("_Out")  # the output pytree
_Res = TypeVar("_Res")  # linear_call's residual pytree
_Lin = TypeVar("_Lin")  # linear_call's linear pytree


class _Residuals:
    """A traced backward function: its jaxpr and trees static, its constants arrays."""

    def __init__(self, jaxpr: Any, in_tree: Any, out_tree: Any, consts: Sequence[Any]) -> None:
        self.jaxpr, self.in_tree, self.out_tree = jaxpr, in_tree, out_tree
        self.consts = list(consts)


def _residuals_flatten(r: _Residuals) -> tuple[list[Any], tuple[Any, Any, Any]]:
    return r.consts, (r.jaxpr, r.in_tree, r.out_tree)


def _residuals_unflatten(aux: tuple[Any, Any, Any], consts: Any) -> _Residuals:
    jaxpr, in_tree, out_tree = aux
    return _Residuals(jaxpr, in_tree, out_tree, list(consts))


register_pytree_node(_Residuals, _residuals_flatten, _residuals_unflatten)


def _name(fun: Any) -> str:
    return str(getattr(fun, "__name__", type(fun).__name__))


def custom_gradient(fun: Callable[..., tuple[_Out, Callable[..., Any]]]) -> Callable[..., _Out]:
    """A function whose gradient is given by the ``vjp`` it returns with its output.

    Args:
      fun: ``fun(*args) -> (out, vjp)`` where ``vjp(ct)`` returns the
        cotangents of the arguments (one value, or a tuple with one per
        argument).

    Returns:
      A ``custom_vjp`` function computing ``out``.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> @tx.custom_gradient
      ... def f(x):
      ...     return x ** 2, lambda g: g * x
      >>> print(f(3.0), tx.grad(f)(3.0))
      9.0 3.0
    """

    def primal(*args: Any) -> _Out:
        return fun(*args)[0]

    primal.__name__ = _name(fun)
    wrapped = custom_vjp(primal)

    def fwd(*args: Any) -> tuple[_Out, _Residuals]:
        ans, vjp = fun(*args)
        return ans, _trace_backward(vjp, ans, "custom_gradient", _name(fun))

    def bwd(res: _Residuals, ct: Any) -> Any:
        out = _run_backward(res, ct, "{out}\n!=\n{ct}")
        return (out,) if treedef_is_leaf(res.in_tree) else out

    wrapped.defvjp(fwd, bwd)
    return wrapped


def _maybe_perturbed(x: Any) -> bool:
    """Whether a closed-over value may carry a derivative (a tracer of inexact dtype)."""
    if not isinstance(x, Tracer):
        return False
    return bool(dtypes.issubdtype(get_aval(x).dtype, np.inexact))


def closure_convert(
    fun: Callable[..., _Out], *example_args: Any
) -> tuple[Callable[..., _Out], list[Array]]:
    """Turns the values ``fun`` closes over that may carry derivatives into explicit arguments.

    Use it with ``custom_vjp``/``custom_jvp`` and higher-order functions, whose
    rules must see every differentiable input.

    Args:
      fun: the function.
      *example_args: arguments of the types ``fun`` will be called with.

    Returns:
      ``(converted, consts)``: ``converted(*args, *consts)`` equals ``fun(*args)``.

    Raises:
      TypeError: when ``converted`` is called with arguments of another structure.

    Example:
      >>> import tessela as tx
      >>> def outer(y):
      ...     f, consts = tx.closure_convert(lambda x: x * y, 1.0)
      ...     return f(2.0, *consts), len(consts)
      >>> outer(3.0)
      (Array(6., dtype=float32, weak_type=True), 0)
      >>> print(tx.grad(lambda y: outer(y)[0])(3.0))
      2.0
    """
    flat_args, in_tree = tree_flatten(example_args)
    jaxpr, consts, out_tree = _flat_traced(
        lambda args: fun(*args), (in_tree,), (len(flat_args),),
        [get_aval(x) for x in flat_args], "closure_convert", _name(fun),
    )  # fmt: skip
    which = [_maybe_perturbed(c) for c in consts]
    kept = [c for c, w in zip(consts, which, strict=True) if not w]
    hoisted = [c for c, w in zip(consts, which, strict=True) if w]

    def converted_fun(*args_hconsts: Any) -> _Out:
        n = len(args_hconsts) - len(hoisted)
        args, const_args = args_hconsts[:n], args_hconsts[n:]
        all_args, in_tree2 = tree_flatten(tuple(args))
        if in_tree != in_tree2:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same "
                "Pytree structure as the example arguments passed when closure_convert was "
                f"called. Expected {in_tree}, but got {in_tree2}"
            )
        it_kept, it_hoisted = iter(kept), iter(const_args)
        merged = [next(it_hoisted) if w else next(it_kept) for w in which]
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *merged, *all_args)
        return cast(_Out, tree_unflatten(out_tree, outs))

    return converted_fun, hoisted


def _trace_backward(vjp_fun: Callable[..., Any], ans: Any, what: str, name: str) -> _Residuals:
    """``vjp_fun`` (cotangent of ``ans`` to cotangents) as a jaxpr and its residual arrays."""
    ans_flat, out_tree = tree_flatten((ans,))
    jaxpr, consts, in_tree = _flat_traced(
        lambda cts: vjp_fun(*cts), (out_tree,), (len(ans_flat),),
        [tangent_aval(get_aval(x)) for x in ans_flat], what, name,
    )  # fmt: skip
    return _Residuals(jaxpr, in_tree, out_tree, consts)


def _run_backward(res: _Residuals, ct: Any, mismatch: str) -> Any:
    """The cotangents of the inputs for ``ct``; ``mismatch`` (with ``{out}`` and ``{ct}``,
    the two structures) is the error's text when ``ct`` is not shaped as the output."""
    cts_flat, tree = tree_flatten((ct,))
    if tree != res.out_tree:
        raise TypeError(mismatch.format(out=res.out_tree, ct=tree))
    flat = eval_jaxpr(res.jaxpr.jaxpr, res.jaxpr.consts, *res.consts, *cts_flat)
    return tree_unflatten(res.in_tree, flat)


def fwd_and_bwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool = False,
    jitted: bool = True,
) -> tuple[Callable[..., tuple[Any, ...]], Callable[..., Any]]:
    """The forward and backward passes of ``fun``, as two reusable functions.

    ``fwd(*args)`` is ``(out, residuals)`` (``(out, residuals, aux)`` with
    ``has_aux``); ``bwd(residuals, ct)`` is the VJP for the arguments named
    by ``argnums`` (one value for an int, a tuple for a sequence).

    Args:
      fun: the function.
      argnums: the positional arguments to differentiate.
      has_aux: ``fun`` returns ``(out, aux)``.
      jitted: jit both functions (default), so ``bwd`` compiles once.

    Returns:
      ``(fwd, bwd)``.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> fwd, bwd = tx.fwd_and_bwd(lambda x, w: tnp.sum(x * w), argnums=(0, 1))
      >>> y, res = fwd(tnp.ones(2), tnp.arange(2.0))
      >>> print(y, *bwd(res, 1.0))
      1.0 [0. 1.] [1. 1.]
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    index = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def fwd(*args: Any) -> tuple[Any, ...]:
        def partial_fun(*dyn: Any) -> Any:
            full = list(args)
            for i, v in zip(index, dyn, strict=True):
                full[i] = v
            return fun(*full)

        out = vjp(partial_fun, *[args[i] for i in index], has_aux=has_aux)
        res = _trace_backward(out[1], out[0], "fwd_and_bwd", _name(out[1]))
        return (out[0], res, out[2]) if has_aux else (out[0], res)

    def bwd(res: _Residuals, ct: Any) -> Any:
        grads = _run_backward(
            res, ct,
            "bwd: the cotangent has structure {ct}, the output {out}; pass one cotangent per output.",
        )  # fmt: skip
        return grads[0] if isinstance(argnums, int) else grads

    if jitted:
        return jit(fwd), jit(bwd)
    return fwd, bwd


def _flat_traced(
    fun: Callable[..., Any],
    trees: Sequence[Any],
    counts: Sequence[int],
    avals: Sequence[Any],
    what: str,
    name: str | None = None,
) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
    """``fun(*unflattened groups)`` traced on flat leaves: (jaxpr taking consts first, consts, out tree).

    ``what`` and ``name`` (by default ``fun``'s) name the trace in its debug information."""
    out_info: list[Any] = []

    def flat(*xs: Array) -> list[Any]:
        groups, start = [], 0
        for tree, n in zip(trees, counts, strict=True):
            groups.append(tree_unflatten(tree, list(xs[start : start + n])))
            start += n
        leaves, tree = tree_flatten(fun(*groups))
        out_info.append(tree)
        return leaves

    label = _name(fun) if name is None else name
    closed = trace_to_jaxpr(flat, list(avals), debug_info=DebugInfo(what, label))
    jaxpr, consts = hoist_consts(closed)
    return jaxpr, consts, out_info[0]


def linear_call(
    fun: Callable[[_Res, _Lin], _Out],
    fun_transpose: Callable[[_Res, _Out], _Lin],
    residual_args: _Res,
    linear_args: _Lin,
) -> _Out:
    """Calls ``fun(residual_args, linear_args)``, linear in ``linear_args``, with its own transpose.

    Differentiation treats the call as linear: its JVP is the same call on
    the tangents of ``linear_args``, and transposing it (reverse mode,
    ``linear_transpose``) calls ``fun_transpose(residual_args, ct)``, which
    must return cotangents shaped like ``linear_args``.

    Args:
      fun: ``fun(residuals, linear) -> out``.
      fun_transpose: ``fun_transpose(residuals, ct_out) -> ct_linear``.
      residual_args: a pytree of values the call is not linear in (not
        differentiable).
      linear_args: a pytree of the linear inputs.

    Returns:
      ``fun(residual_args, linear_args)``.

    Example:
      >>> import tessela as tx
      >>> import tessela.numpy as tnp
      >>> f = lambda r, x: r * x
      >>> f_t = lambda r, ct: 10.0 * r * ct  # a deliberately different transpose
      >>> g = lambda x: tx.custom_derivatives.linear_call(f, f_t, 2.0, x)
      >>> print(g(3.0), tx.grad(g)(3.0))
      6.0 20.0
    """
    res_flat, res_tree = tree_flatten(residual_args)
    lin_flat, lin_tree = tree_flatten(linear_args)
    res_avals = [get_aval(x) for x in res_flat]
    callee, consts, out_tree = _flat_traced(
        fun, (res_tree, lin_tree), (len(res_flat), len(lin_flat)),
        [*res_avals, *[get_aval(x) for x in lin_flat]], "linear_call",
    )  # fmt: skip
    out_avals = list(callee.out_avals)
    cache: list[tuple[ClosedJaxpr, list[Any]]] = []
    n_res = len(res_flat)  # the thunk outlives the call: it must not hold the residuals

    def transpose_thunk() -> tuple[ClosedJaxpr, list[Any]]:
        if not cache:
            t_jaxpr, t_consts, t_tree = _flat_traced(
                fun_transpose, (res_tree, out_tree), (n_res, len(out_avals)),
                [*res_avals, *[tangent_aval(a) for a in out_avals]], "linear_call transpose",
            )  # fmt: skip
            if t_tree != lin_tree:
                raise TypeError(
                    "transpose output pytree structure must match that of linear inputs, "
                    f"got output structure {t_tree} and input structure {lin_tree}."
                )
            cache.append((t_jaxpr, t_consts))
        return cache[0]

    outs = P.linear_call_p.bind(
        *consts, *res_flat, *lin_flat, callee=callee,
        transpose_thunk=NamedCallable(transpose_thunk, _name(fun_transpose)),
        num_callee_consts=len(consts), num_res=len(res_flat),
    )  # fmt: skip
    return cast(_Out, tree_unflatten(out_tree, outs))
