"""The public transformations: ``jvp``, ``linearize``, ``vjp``, ``grad``, ``value_and_grad``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from tessela_pytree import Partial, PyTreeDef, tree_flatten, tree_map, tree_unflatten
from tessela_tracer import ShapedArray, to_concrete_array
from tessela_tracer.dtypes import float0, issubdtype
from tessela_tracer.extend import flatten_fun, get_aval_of, tangent_aval
from tessela_tracer.primitives import stop_gradient_p
from tessela_tracer.sharding import check_seed_mesh
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Zero, instantiate, is_differentiable
from tessela_autodiff._jvp import jvp_flat
from tessela_autodiff._linearize import linearize_flat
from tessela_autodiff._pullbacks import Pullback, Pushforward

__all__ = ["grad", "jvp", "linear_transpose", "linearize", "stop_gradient", "value_and_grad", "vjp"]


def _check_callable(fun: object) -> None:
    """JAX's argument check of every transformation: ``fun`` must be callable."""
    if not callable(fun):
        raise TypeError(
            f"Expected a callable value, got {fun!r}: pass the function itself (for "
            "example grad(f), not grad(f(x)))."
        )


def _as_array(g: Any) -> Any:
    """A gradient leaf as an array: a cotangent seed can reach the output unchanged."""
    if type(g) in (bool, int, float, complex) or (
        isinstance(g, np.ndarray | np.generic) and g.dtype != float0
    ):
        return to_concrete_array(g)
    return g


def _checked_pair(fun: Callable[..., Any]) -> Callable[..., tuple[Any, Any]]:
    def pair(*args: Any) -> tuple[Any, Any]:
        res = fun(*args)
        if not isinstance(res, (tuple, list)) or len(res) != 2:
            raise TypeError(
                "has_aux=True requires the function to return a pair (output, aux), but it "
                f"returned {type(res).__name__}."
            )
        return res[0], res[1]

    return pair


def _flat_fun(
    fun: Callable[..., Any], in_tree: PyTreeDef, has_aux: bool
) -> Callable[..., tuple[list[Any], PyTreeDef]]:
    """``fun`` on flat leaves: ``(leaves, tree)`` of its output, or of ``(output, aux)``."""
    return flatten_fun(_checked_pair(fun) if has_aux else fun, in_tree)


def _split_aux(
    leaves: list[Any], tree: PyTreeDef, has_aux: bool
) -> tuple[list[Any], PyTreeDef, Any]:
    """``(output leaves, output tree, aux)``: the auxiliary value comes back as plain values."""
    if not has_aux:
        return leaves, tree, None
    out_tree, aux_tree = tree.children()
    n = out_tree.num_leaves
    return leaves[:n], out_tree, tree_unflatten(aux_tree, leaves[n:])


def _out_tangent(t: Any, primal: Any) -> Any:
    if type(t) is Zero:
        return instantiate(Zero(tangent_aval(get_aval_of(primal))))
    return t


def jvp(
    fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False
) -> tuple[Any, ...]:
    """Evaluate ``fun`` and its Jacobian-vector product at ``primals`` along ``tangents``.

    Args:
      fun: a function of arrays (pytrees allowed) returning arrays.
      primals: a tuple or list of the arguments.
      tangents: a tuple or list of tangents, same structure (``float0`` for integer primals).
      has_aux: ``fun`` returns ``(output, aux)``; aux is returned, not differentiated.

    Returns:
      ``(primals_out, tangents_out)``, or ``(primals_out, tangents_out, aux)``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(lambda x, t: jvp(lax.sin, (x,), (t,)))(1.0, 1.0))
        { lambda ; a:f32[] b:f32[]. let
            c:f32[] = sin a
            d:f32[] = cos a
            e:f32[] = mul b d
          in (c, e) }
    """
    _check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    flat_p, tree_p = tree_flatten(tuple(primals))
    flat_t, tree_t = tree_flatten(tuple(tangents))
    if tree_p != tree_t:
        raise TypeError(
            "primal and tangent arguments to jvp must have the same tree structure; "
            f"primals have tree structure {tree_p} whereas tangents have tree structure {tree_t}."
        )
    ts: list[Any] = []
    for p, t in zip(flat_p, flat_t, strict=True):
        pa, ta = get_aval_of(p), get_aval_of(t)
        expected = tangent_aval(pa)
        if ta.dtype != expected.dtype:
            if expected.dtype == float0:
                raise TypeError(
                    "primal and tangent arguments to jvp do not match; dtypes must be equal, "
                    "or in case of int/bool primal dtype the tangent dtype must be float0."
                    f"Got primal dtype {pa.dtype.name} and so expected tangent dtype float0, "
                    f"but got tangent dtype {ta.dtype.name} instead."
                )
            raise TypeError(
                "primal and tangent arguments to jvp do not match; dtypes must be equal, "
                "or in case of int/bool primal dtype the tangent dtype must be float0."
                f"Got primal dtype {pa.dtype.name} and so expected tangent dtype "
                f"{pa.dtype.name}, but got tangent dtype {ta.dtype.name} instead."
            )
        if tuple(ta.shape) != tuple(pa.shape):
            raise ValueError(
                "jvp called with different primal and tangent shapes;"
                f"Got primal shape {tuple(pa.shape)} and tangent shape as {tuple(ta.shape)}"
            )
        ts.append(Zero(expected) if expected.dtype == float0 else t)
    outs, touts, tree = jvp_flat(_flat_fun(fun, tree_p, has_aux), flat_p, ts)
    outs, out_tree, aux = _split_aux(outs, tree, has_aux)
    p_out = tree_unflatten(out_tree, outs)
    t_out = tree_unflatten(
        out_tree, [_out_tangent(t, o) for t, o in zip(touts, outs, strict=False)]
    )
    if has_aux:
        return p_out, t_out, aux
    return p_out, t_out


def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """Evaluate ``fun`` and return its linearization at ``primals`` as a function.

    Args:
      fun: a function of arrays returning arrays.
      *primals: the point of linearization.
      has_aux: ``fun`` returns ``(output, aux)``.

    Returns:
      ``(primals_out, f_jvp)`` (plus ``aux``), ``f_jvp(*tangents)`` giving the output tangents.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> def f(x, t):
        ...     y, f_jvp = linearize(lax.sin, x)
        ...     return f_jvp(t)
        >>> make_jaxpr(f)(1.0, 2.0).eqns[-1].primitive
        mul
    """
    _check_callable(fun)
    flat_p, in_tree = tree_flatten(primals)
    outs, lin, tree = linearize_flat(_flat_fun(fun, in_tree, has_aux), flat_p)
    outs, out_tree, aux = _split_aux(outs, tree, has_aux)
    f_jvp = Partial(Pushforward(lin, in_tree, out_tree, len(outs)), *lin.jaxpr.consts)
    p_out = tree_unflatten(out_tree, outs)
    if has_aux:
        return p_out, f_jvp, aux
    return p_out, f_jvp


def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """Evaluate ``fun`` and return its vector-Jacobian product function.

    Args:
      fun: a function of arrays (pytrees allowed) returning arrays.
      *primals: the arguments.
      has_aux: ``fun`` returns ``(output, aux)``.

    Returns:
      ``(primals_out, vjp_fun)`` (plus ``aux``); ``vjp_fun(ct)`` returns a
      tuple with one cotangent per primal (``float0`` zeros for integer ones).

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> def f(x):
        ...     y, pullback = vjp(lax.sin, x)
        ...     return pullback(1.0)[0]
        >>> print(make_jaxpr(f)(0.5))
        { lambda ; a:f32[]. let
            _:f32[] = sin a
            b:f32[] = cos a
            c:f32[] = mul 1.0:f32[] b
          in (c,) }
    """
    _check_callable(fun)
    flat_p, in_tree = tree_flatten(primals)
    outs, lin, tree = linearize_flat(_flat_fun(fun, in_tree, has_aux), flat_p)
    outs, out_tree, aux = _split_aux(outs, tree, has_aux)
    out_avals = [get_aval_of(o) for o in outs]
    vjp_fun = Partial(Pullback(lin, in_tree, out_tree, out_avals), *lin.jaxpr.consts)
    p_out = tree_unflatten(out_tree, outs)
    if has_aux:
        return p_out, vjp_fun, aux
    return p_out, vjp_fun


def _check_scalar(x: Any) -> ShapedArray:
    try:
        aval = get_aval_of(x)
    except TypeError as err:
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output was {x}."
        ) from err
    if aval.shape:
        raise TypeError(
            "Gradient only defined for scalar-output functions. "
            f"Output had shape: {tuple(aval.shape)}."
        )
    return aval


def _check_input_dtype(aval: ShapedArray, holomorphic: bool, allow_int: bool) -> None:
    dt = aval.dtype
    if holomorphic and not issubdtype(dt, np.complexfloating):
        raise TypeError(
            f"grad with holomorphic=True requires inputs with complex dtype, but got {dt.name}."
        )
    if issubdtype(dt, np.integer) or dt == np.bool_:
        if not allow_int:
            raise TypeError(
                "grad requires real- or complex-valued inputs (input dtype that is a "
                f"sub-dtype of np.inexact), but got {dt.name}. If you want to use "
                "Boolean- or integer-valued inputs, use vjp or set allow_int to True."
            )
    elif not issubdtype(dt, np.inexact):
        raise TypeError(
            "grad requires numerical-valued inputs (input dtype that is a sub-dtype of "
            f"np.bool_ or np.number), but got {dt.name}."
        )


def _check_output_dtype(aval: ShapedArray, holomorphic: bool) -> None:
    dt = aval.dtype
    if holomorphic:
        if not issubdtype(dt, np.complexfloating):
            raise TypeError(
                "grad with holomorphic=True requires outputs with complex dtype, "
                f"but got {dt.name}."
            )
    elif issubdtype(dt, np.complexfloating):
        raise TypeError(
            "grad requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex outputs, use vjp directly."
        )
    elif not issubdtype(dt, np.floating):
        raise TypeError(
            "grad requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dt.name}. For differentiation of functions with "
            "integer outputs, use vjp directly."
        )


def _argnums_tuple(argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if a < -nargs:
            # JAX's class for a negative index past the arguments.
            raise ValueError(
                "Positional argument indices, e.g. for `argnums`, must have value greater "
                f"than or equal to -len(args) and less than len(args), but got value {a} for "
                f"len(args) == {nargs}; pass argnums that name one of the {nargs} arguments."
            )
        if a >= nargs:
            raise TypeError(
                f"Differentiating with respect to argnums={argnums} requires at least "
                f"{max(nums) + 1} positional arguments to be passed by the caller, but got "
                f"only {nargs} positional arguments."
            )
    out = tuple(a % nargs for a in nums)
    if len(set(out)) != len(out):
        raise TypeError(
            f"argnums={argnums} names the same argument twice among {nargs} positional "
            "arguments; name each argument once."
        )
    return out


def _dyn_call(
    fun: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    argnums: int | Sequence[int],
    holomorphic: bool,
    allow_int: bool,
) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """``fun`` as a function of the ``argnums`` arguments alone, and their values (dtypes checked)."""
    nums = _argnums_tuple(argnums, len(args))
    dyn = tuple(args[i] for i in nums)
    for leaf in tree_flatten(dyn)[0]:
        _check_input_dtype(get_aval_of(leaf), holomorphic, allow_int)

    def f_dyn(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(nums, xs, strict=True):
            full[i] = x
        return fun(*full, **kwargs)

    return f_dyn, dyn


def value_and_grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """Create a function evaluating ``fun`` and its gradient.

    Args:
      fun: a function returning a scalar (or ``(scalar, aux)`` with ``has_aux``).
      argnums: which positional argument(s) to differentiate.
      has_aux: ``fun`` returns ``(output, aux)``.
      holomorphic: ``fun`` is holomorphic in complex inputs.
      allow_int: allow integer inputs (their gradient is ``float0`` zeros).

    Returns:
      ``f(*args) -> (value, grad)`` or ``((value, aux), grad)``.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> make_jaxpr(value_and_grad(lax.sin))(1.0).out_avals
        [ShapedArray(float32[], weak_type=True), ShapedArray(float32[], weak_type=True)]
    """
    _check_callable(fun)

    @functools.wraps(fun)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        f_dyn, dyn = _dyn_call(fun, args, kwargs, argnums, holomorphic, allow_int)
        if has_aux:
            ans, pullback, aux = vjp(f_dyn, *dyn, has_aux=True)
        else:
            ans, pullback = vjp(f_dyn, *dyn)
        aval = _check_scalar(ans)
        _check_output_dtype(aval, holomorphic)
        check_seed_mesh(ans, aval)  # an output sharded over Explicit axes needs its mesh set
        one = np.ones((), aval.dtype)[()]
        # A weakly typed output gets a weakly typed seed (a Python scalar), so
        # gradients of weakly typed inputs stay weakly typed, as in JAX.
        g = tree_map(_as_array, pullback(one.item() if aval.weak_type else one))
        grads = g[0] if isinstance(argnums, int) else g
        if has_aux:
            return (ans, aux), grads
        return ans, grads

    return value_and_grad_f


def grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """Create a function evaluating the gradient of scalar-valued ``fun``.

    Args:
      fun: a function returning a scalar (or ``(scalar, aux)`` with ``has_aux``).
      argnums: which positional argument(s) to differentiate (int or tuple).
      has_aux: ``fun`` returns ``(output, aux)``; then ``(grad, aux)`` is returned.
      holomorphic: ``fun`` is holomorphic in complex inputs.
      allow_int: allow integer inputs (their gradient is ``float0`` zeros).

    Returns:
      ``f(*args)`` giving the gradient with the structure of the differentiated argument(s).

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(grad(lax.sin))(1.0))
        { lambda ; a:f32[]. let
            _:f32[] = sin a
            b:f32[] = cos a
            c:f32[] = mul 1.0:f32[] b
          in (c,) }
    """
    _check_callable(fun)
    vg = value_and_grad(fun, argnums, has_aux=has_aux, holomorphic=holomorphic, allow_int=allow_int)

    @functools.wraps(fun)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        (_, aux), g = _split(vg(*args, **kwargs), has_aux)
        return (g, aux) if has_aux else g

    return grad_f


def _split(res: Any, has_aux: bool) -> tuple[tuple[Any, Any], Any]:
    if has_aux:
        (ans, aux), g = res
        return (ans, aux), g
    ans, g = res
    return (ans, None), g


def linear_transpose(fun: Callable[..., Any], *primals: Any) -> Callable[..., tuple[Any, ...]]:
    """Transpose a linear function, given example inputs for their shapes and dtypes.

    Args:
      fun: a function linear in its (inexact) arguments.
      *primals: example arguments (only shapes and dtypes matter).

    Returns:
      ``f_t(ct)`` returning a tuple with one cotangent per argument.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f_t = lambda ct: linear_transpose(lambda x: lax.mul(x, 3.0), 1.0)(ct)
        >>> make_jaxpr(f_t)(2.0).eqns[-1].primitive
        mul
    """
    _check_callable(fun)
    flat_p, in_tree = tree_flatten(primals)
    in_avals = [get_aval_of(p) for p in flat_p]
    for a in in_avals:
        if not is_differentiable(a):
            raise TypeError(
                f"linear_transpose only supports float and complex inputs, but got {a.dtype.name}"
            )
    zeros = [instantiate(Zero(a)) for a in in_avals]
    _, lin, out_tree = linearize_flat(_flat_fun(fun, in_tree, False), zeros)

    def transposed(ct: Any) -> tuple[Any, ...]:
        flat_ct, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(
                f"cotangent tree does not match function output, expected {out_tree} but got {ct_tree}"
            )
        res = [instantiate(c) for c in lin.transpose(flat_ct)]
        return tuple(tree_unflatten(in_tree, res))

    return transposed


def stop_gradient(x: Any, /) -> Any:
    """Stop gradients from flowing through ``x`` (a pytree); integer leaves pass unchanged.

    Args:
      x: an array or pytree of arrays.

    Returns:
      The same values, treated as constants by differentiation.

    Example:
        >>> from tessela_tracer import make_jaxpr, lax
        >>> print(make_jaxpr(grad(lambda x: lax.mul(x, stop_gradient(x))))(2.0))
        { lambda ; a:f32[]. let
            b:f32[] = stop_gradient a
            _:f32[] = mul a b
            c:f32[] = mul 1.0:f32[] b
          in (c,) }
    """

    def stop(leaf: ArrayLike) -> ArrayLike:
        if is_differentiable(get_aval_of(leaf)):
            return cast(Array, stop_gradient_p.bind(leaf))
        return leaf

    return tree_map(stop, x)
