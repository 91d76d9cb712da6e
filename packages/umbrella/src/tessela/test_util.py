"""``tessela.test_util``: derivative checks against finite differences, as ``jax.test_util``.

``check_grads`` compares a function's forward-mode (``jvp``) and reverse-mode
(``vjp``) derivatives, up to any order, with central differences taken in a
random direction, and raises AssertionError when they disagree.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.test_util import check_grads
    >>> check_grads(lambda x: tnp.sin(x) * x, (tnp.float32(0.5),), order=2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_autodiff import jvp, vjp
from tessela_pytree import tree_flatten, tree_map
from tessela_tracer.dtypes import bfloat16, canonicalize_dtype

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4
# Per dtype: the tolerance of a derivative compared with a finite difference.
_GRAD_TOL: dict[np.dtype[Any], float] = {
    np.dtype(np.float16): 1e-2,
    np.dtype(bfloat16): 1e-1,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}


def _dtype(x: Any) -> np.dtype[Any]:
    """The dtype a computation on ``x`` runs in (float64 only with x64 on)."""
    return canonicalize_dtype(getattr(x, "dtype", None) or np.result_type(x))


def _tol(given: float | None, trees: Sequence[Any]) -> float:
    if given is not None:
        return given
    leaves = [leaf for tree in trees for leaf in tree_flatten(tree)[0]]
    return max((_GRAD_TOL.get(_dtype(x), 0.0) for x in leaves), default=0.0)


def _random_like(rng: np.random.RandomState, tree: Any) -> Any:
    def one(x: Any) -> Any:
        dt = _dtype(x)
        shape = np.shape(x)
        if dt.kind == "c":
            return (rng.randn(*shape) + 1j * rng.randn(*shape)).astype(dt)
        return np.asarray(rng.randn(*shape)).astype(dt)

    return tree_map(one, tree)


def _axpy(a: float, xs: Any, ys: Any) -> Any:
    """``a * xs + ys`` leafwise, in float64 when the leaves are floats."""
    return tree_map(lambda x, y: (np.asarray(y) + a * np.asarray(x)).astype(_dtype(y)), xs, ys)


def _numerical_jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Any, eps: float) -> Any:
    f_pos = f(*_axpy(eps, tangents, list(primals)))
    f_neg = f(*_axpy(-eps, tangents, list(primals)))
    return tree_map(
        lambda p, n: (np.asarray(p, np.float64) - np.asarray(n, np.float64)) * (0.5 / eps),
        f_pos,
        f_neg,
    )


def _check_close(actual: Any, desired: Any, atol: float, rtol: float, what: str) -> None:
    a_leaves, a_tree = tree_flatten(actual)
    d_leaves, d_tree = tree_flatten(desired)
    if a_tree != d_tree:
        raise AssertionError(f"{what}: tree structures differ: {a_tree} and {d_tree}")
    for a, d in zip(a_leaves, d_leaves, strict=True):
        np.testing.assert_allclose(
            np.asarray(a, np.complex128 if _dtype(a).kind == "c" else np.float64),
            np.asarray(d, np.complex128 if _dtype(d).kind == "c" else np.float64),
            atol=atol,
            rtol=rtol,
            err_msg=what,
        )


def _inner(xs: Any, ys: Any) -> Any:
    pairs = zip(tree_flatten(xs)[0], tree_flatten(ys)[0], strict=True)
    return sum((np.vdot(np.asarray(x), np.asarray(y)) for x, y in pairs), np.float64(0))


def check_jvp(
    f: Callable[..., Any],
    f_jvp: Callable[[Sequence[Any], Sequence[Any]], tuple[Any, Any]],
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """Check ``f_jvp(args, tangents)`` against ``f`` and a central difference.

    Args:
      f: the function.
      f_jvp: ``(primals, tangents) -> (primal_out, tangent_out)``, such as
        ``functools.partial(tessela.jvp, f)``.
      args: the primal arguments (a sequence).
      atol: absolute tolerance (default: by dtype).
      rtol: relative tolerance (default: by dtype).
      eps: the finite-difference step.
      err_msg: added to the failure message.

    Raises:
      AssertionError: when the outputs or the tangents differ.

    Example:
        >>> import functools, tessela as tx, tessela.numpy as tnp
        >>> f = tnp.exp
        >>> check_jvp(f, functools.partial(tx.jvp, f), (tnp.float32(0.3),))
    """
    atol = _tol(atol, [args])
    rtol = _tol(rtol, [args])
    rng = np.random.RandomState(0)
    tangents = _random_like(rng, list(args))
    out, t_out = f_jvp(list(args), tangents)
    _check_close(out, f(*args), atol, rtol, f"{err_msg} primal output")
    t_expected = _numerical_jvp(f, args, tangents, eps)
    _check_close(t_out, t_expected, atol, rtol, f"{err_msg} tangent output")


def check_vjp(
    f: Callable[..., Any],
    f_vjp: Callable[..., tuple[Any, Callable[[Any], Any]]],
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """Check ``f_vjp(*args)`` by the inner-product identity ``<J t, c> = <t, J^T c>``.

    Args:
      f: the function.
      f_vjp: ``(*primals) -> (primal_out, vjp_fun)``, such as
        ``functools.partial(tessela.vjp, f)``.
      args: the primal arguments.
      atol: absolute tolerance (default: by dtype).
      rtol: relative tolerance (default: by dtype).
      eps: the finite-difference step.
      err_msg: added to the failure message.

    Raises:
      AssertionError: when the output or the inner products differ.

    Example:
        >>> import functools, tessela as tx, tessela.numpy as tnp
        >>> check_vjp(tnp.tanh, functools.partial(tx.vjp, tnp.tanh), (tnp.float32(0.3),))
    """
    atol = _tol(atol, [args])
    rtol = _tol(rtol, [args])
    out, vjp_fun = f_vjp(*args)
    _check_close(out, f(*args), atol, rtol, f"{err_msg} primal output")
    rng = np.random.RandomState(0)
    tangents = _random_like(rng, list(args))
    cts = _random_like(rng, out)
    cts_in = vjp_fun(cts)
    t_out = _numerical_jvp(f, args, tangents, eps)
    got, want = _inner(tangents, list(cts_in)), _inner(t_out, cts)
    _check_close(got, want, atol, rtol, f"{err_msg} VJP inner product")


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
) -> None:
    """Check ``f``'s derivatives up to ``order`` in forward and/or reverse mode.

    Args:
      f: the function (of floating-point arrays).
      args: its arguments.
      order: the highest derivative order to check (1 = first derivatives).
      modes: ``"fwd"``, ``"rev"`` or both.
      atol: absolute tolerance (default: by dtype).
      rtol: relative tolerance (default: by dtype).
      eps: the finite-difference step (default ``1e-4``).

    Raises:
      AssertionError: when a derivative differs from its finite difference.
      ValueError: for an unknown mode or an order below 1.

    Example:
        >>> import tessela.numpy as tnp
        >>> check_grads(tnp.cos, (tnp.float32(1.0),), order=1, modes=["rev"])
    """
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"check_grads: unknown modes {sorted(unknown)}; use 'fwd' and/or 'rev'.")
    if order < 1:
        raise ValueError(f"check_grads: order must be at least 1, got {order}.")
    step = EPS if eps is None else eps

    def check(fun: Callable[..., Any], primals: Sequence[Any], left: int) -> None:
        if "fwd" in modes:
            check_jvp(fun, lambda p, t: jvp(fun, p, t), primals, atol, rtol, step, f"order {left}")
            if left > 1:
                tangents = _random_like(np.random.RandomState(1), list(primals))

                def fwd(*p: Any) -> Any:
                    return jvp(fun, list(p), tangents)[1]

                check(fwd, primals, left - 1)
        if "rev" in modes:
            check_vjp(fun, lambda *p: vjp(fun, *p), primals, atol, rtol, step, f"order {left}")
            if left > 1:
                cts = _random_like(np.random.RandomState(2), fun(*primals))

                def rev(*p: Any) -> Any:
                    return vjp(fun, *p)[1](cts)

                check(rev, primals, left - 1)

    check(f, tuple(args), order)
