"""Jacobians and Hessians: ``jacfwd``, ``jacrev``, ``jacobian``, ``hessian`` (built on vmap)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_batching import vmap
from tessela_pytree import PyTreeDef, tree_flatten, tree_unflatten
from tessela_tracer import lax
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._api import _check_callable, _dyn_call, jvp, vjp

__all__ = ["hessian", "jacfwd", "jacobian", "jacrev"]


def _basis(avals: Sequence[Any]) -> list[Any]:
    """Standard basis of the flattened inputs, one row per scalar, reshaped per leaf."""
    sizes = [int(np.prod(a.shape, dtype=np.int64)) for a in avals]
    total = sum(sizes)
    dtype = np.result_type(*[a.dtype for a in avals]) if avals else np.float32
    eye = np.eye(total, dtype=dtype)
    out = []
    start = 0
    for a, n in zip(avals, sizes, strict=True):
        out.append(eye[:, start : start + n].reshape((total, *a.shape)).astype(a.dtype))
        start += n
    return out


def _split_rows(x: Any, avals: Sequence[Any], axis: int) -> list[Any]:
    """Split the basis axis of ``x`` back into one block per input leaf."""
    out = []
    start = 0
    shape = get_aval_of(x).shape
    for a in avals:
        n = int(np.prod(a.shape, dtype=np.int64))
        lo = [0] * len(shape)
        hi = list(shape)
        lo[axis], hi[axis] = start, start + n
        piece = lax.slice(x, lo, hi)
        new = (*shape[:axis], *a.shape, *shape[axis + 1 :])
        out.append(lax.reshape(piece, tuple(new)))
        start += n
    return out


def _nest(
    out_tree: PyTreeDef,
    in_tree: PyTreeDef,
    per_out: Sequence[list[Any]],
    argnums: int | Sequence[int],
) -> Any:
    """The Jacobian pytree: per output leaf, its blocks per input leaf in the input structure."""
    jac = []
    for blocks in per_out:
        inner = tree_unflatten(in_tree, blocks)
        jac.append(inner[0] if isinstance(argnums, int) else inner)
    return tree_unflatten(out_tree, jac)


def jacfwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` by forward mode (``vmap`` of ``jvp`` over the input basis).

    Args:
      fun: a function of arrays returning arrays (pytrees allowed).
      argnums: which positional argument(s) to differentiate.
      has_aux: ``fun`` returns ``(output, aux)``.
      holomorphic: ``fun`` is holomorphic in complex inputs.

    Returns:
      ``f(*args)`` giving the Jacobian: output structure outside, input structure inside.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(jacfwd(lax.sin), ShapeDtypeStruct((3,), "float32")).shape
        (3, 3)
    """
    _check_callable(fun)

    @functools.wraps(fun)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        f, dyn = _dyn_call(fun, args, kwargs, argnums, holomorphic, False)
        leaves, tree = tree_flatten(dyn)
        avals = [get_aval_of(x) for x in leaves]

        def push(*basis: ArrayLike) -> Any:
            tangents = tree_unflatten(tree, list(basis))
            res = jvp(f, dyn, tangents, has_aux=has_aux)
            return (res[1], res[2]) if has_aux else res[1]

        if has_aux:
            touts, aux = vmap(push, out_axes=(-1, None))(*_basis(avals))
        else:
            touts = vmap(push, out_axes=-1)(*_basis(avals))
        out_leaves, out_tree = tree_flatten(touts)
        per_out = [_split_rows(t, avals, get_aval_of(t).ndim - 1) for t in out_leaves]
        result = _nest(out_tree, tree, per_out, argnums)
        return (result, aux) if has_aux else result

    return jacfun


def jacrev(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` by reverse mode (``vmap`` of the VJP over the output basis).

    Args:
      fun: a function of arrays returning arrays (pytrees allowed).
      argnums: which positional argument(s) to differentiate.
      has_aux: ``fun`` returns ``(output, aux)``.
      holomorphic: ``fun`` is holomorphic in complex inputs.
      allow_int: allow integer inputs.

    Returns:
      ``f(*args)`` giving the Jacobian: output structure outside, input structure inside.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> eval_shape(jacrev(lax.sin), ShapeDtypeStruct((3,), "float32")).shape
        (3, 3)
    """
    _check_callable(fun)

    @functools.wraps(fun)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        f, dyn = _dyn_call(fun, args, kwargs, argnums, holomorphic, allow_int)
        if has_aux:
            y, pullback, aux = vjp(f, *dyn, has_aux=True)
        else:
            y, pullback = vjp(f, *dyn)
        y_leaves, y_tree = tree_flatten(y)
        y_avals = [get_aval_of(v) for v in y_leaves]
        cts = vmap(lambda *b: pullback(tree_unflatten(y_tree, list(b))))(*_basis(y_avals))
        in_tree = tree_flatten(dyn)[1]
        in_leaves = tree_flatten(cts)[0]
        per_out: list[list[Any]] = [[] for _ in y_leaves]
        for leaf in in_leaves:
            for k, block in enumerate(_split_rows(leaf, y_avals, 0)):
                per_out[k].append(block)
        result = _nest(y_tree, in_tree, per_out, argnums)
        return (result, aux) if has_aux else result

    return jacfun


jacobian = jacrev


def hessian(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))``.

    Args:
      fun: a function returning a scalar.
      argnums: which positional argument(s) to differentiate.
      has_aux: ``fun`` returns ``(output, aux)``.
      holomorphic: ``fun`` is holomorphic in complex inputs.

    Returns:
      ``f(*args)`` giving the Hessian.

    Example:
        >>> from tessela_tracer import eval_shape, lax, ShapeDtypeStruct
        >>> f = lambda x: lax.reduce_sum(lax.sin(x), (0,))
        >>> eval_shape(hessian(f), ShapeDtypeStruct((3,), "float32")).shape
        (3, 3)
    """
    _check_callable(fun)
    return jacfwd(
        jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic),
        argnums,
        has_aux=has_aux,
        holomorphic=holomorphic,
    )
