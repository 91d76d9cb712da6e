"""``custom_linear_solve_p`` and the ``custom_linear_solve`` / ``custom_root`` wrappers.

``custom_linear_solve(matvec, b, solve, transpose_solve)`` traces four
jaxprs (the linear map, its transpose, and the two solvers) and binds one
``custom_linear_solve`` equation whose parameters are JAX's:
``const_lengths`` and ``jaxprs``, each a :class:`LinearSolveTuple`
``(matvec, vecmat, solve, transpose_solve)``. Its operands are the four
jaxprs' constants, in that order, then the leaves of ``b``. Evaluating it
runs the ``solve`` jaxpr; its derivatives (in tessela_autodiff) solve again
instead of differentiating the solver.

Tracing the transpose of ``matvec`` and the linearization that
``custom_root`` needs are differentiation; tessela_autodiff provides both
through :func:`register_solve_transforms` when it is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from tessela_pytree import tree_flatten, tree_leaves, tree_unflatten

from tessela_tracer import _lax, _lax_composite
from tessela_tracer._avals import ShapedArray
from tessela_tracer._core import Primitive, register_abstract_eval, register_impl
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._custom import custom_jvp
from tessela_tracer._jaxpr import ClosedJaxpr, Var, eval_jaxpr
from tessela_tracer._prims_callback import has_effects
from tessela_tracer._staging import DebugInfo, _fun_src_info
from tessela_tracer._trace_util import flatten_fun, trace_with_aux

__all__ = [
    "LinearSolveTuple",
    "custom_linear_solve",
    "custom_linear_solve_p",
    "custom_root",
    "register_solve_transforms",
]


class LinearSolveTuple(NamedTuple):
    """One entry per function of a linear solve (``const_lengths`` and ``jaxprs``)."""

    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self) -> LinearSolveTuple:
        """The tuple of the transposed system: maps and solvers swapped."""
        return LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields)
        return f"_LinearSolveTuple({body})"

    def __str__(self) -> str:
        return self.__repr__()


_TRANSFORMS: dict[str, Callable[..., Any]] = {}


def register_solve_transforms(
    *,
    linear_transpose: Callable[..., Any],
    linearize: Callable[..., Any],
    jvp: Callable[..., Any],
) -> None:
    """Provide the differentiation that ``custom_linear_solve`` and ``custom_root`` trace.

    Args:
      linear_transpose: ``linear_transpose(fun, *primals)`` as in tessela_autodiff.
      linearize: ``linearize(fun, *primals) -> (out, f_jvp)``.
      jvp: ``jvp(fun, primals, tangents) -> (out, tangent_out)``.

    Returns:
      None.
    """
    _TRANSFORMS["linear_transpose"] = linear_transpose
    _TRANSFORMS["linearize"] = linearize
    _TRANSFORMS["jvp"] = jvp


def _transform(name: str) -> Callable[..., Any]:
    fn = _TRANSFORMS.get(name)
    if fn is None:
        raise RuntimeError(
            f"custom_linear_solve/custom_root need {name}: import tessela_autodiff (or tessela)."
        )
    return fn


# ------------------------------------------------------------------ the primitive


def split_solve_args(
    args: Sequence[Any], const_lengths: LinearSolveTuple
) -> tuple[LinearSolveTuple, list[Any]]:
    """Split a ``custom_linear_solve`` operand list into per-jaxpr consts and ``b``.

    Args:
      args: the operands (or anything parallel to them).
      const_lengths: the equation's ``const_lengths``.

    Returns:
      ``(consts, b)``: a :class:`LinearSolveTuple` of lists, and the rest.
    """
    parts: list[list[Any]] = []
    start = 0
    for n in const_lengths:
        parts.append(list(args[start : start + n]))
        start += n
    return LinearSolveTuple(*parts), list(args[start:])


def _abstract_eval(
    *avals: ShapedArray, const_lengths: LinearSolveTuple, jaxprs: LinearSolveTuple
) -> list[ShapedArray]:
    b = list(avals[sum(const_lengths) :])
    n_aux = len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)
    return [*b, *(jaxprs.solve.out_avals[len(b) :] if n_aux > 0 else [])]


def _impl(*args: Any, const_lengths: LinearSolveTuple, jaxprs: LinearSolveTuple) -> list[Any]:
    consts, b = split_solve_args(args, const_lengths)
    return eval_jaxpr(jaxprs.solve.jaxpr, jaxprs.solve.consts, *consts.solve, *b)


custom_linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)
register_abstract_eval(custom_linear_solve_p, _abstract_eval)
register_impl(custom_linear_solve_p, _impl)


# ------------------------------------------------------------------ tracing helpers


def _trace(
    fun: Callable[[Any], Any], tree: Any, avals: Sequence[ShapedArray], what: str
) -> tuple[ClosedJaxpr, list[Any], Any]:
    flat = flatten_fun(fun, tree, star=False)
    return trace_with_aux(flat, list(avals), debug_info=DebugInfo(what, _fun_src_info(fun)))


def _dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Drop the equations no output depends on (all are pure here)."""
    j = closed.jaxpr
    live = {v for v in j.outvars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(j.eqns):
        if any(v in live for v in eqn.outvars) or has_effects(eqn):
            kept.append(eqn)
            live.update(v for v in eqn.invars if isinstance(v, Var))
    if len(kept) == len(j.eqns):
        return closed
    return ClosedJaxpr(j.replace(eqns=kept[::-1]), closed.consts)


def _check_tree(name: str, expected: str, got: Any, want: Any, has_aux: bool) -> None:
    if has_aux:
        kids = got.children()
        ok = len(kids) == 2 and kids[0] == want
    else:
        ok = got == want
    if not ok:
        raise TypeError(
            f"{name}() output pytree structure must match {expected}"
            f"{', modulo auxiliary data' if has_aux else ''}, got {got} and {want}."
        )


def _shape_checked(
    fun: Callable[[Any], Any], name: str, b_flat: Sequence[Any], has_aux: bool
) -> Callable[[Any], Any]:
    def checked(x: Any) -> Any:
        y = fun(x)
        leaves = tree_leaves(y[0] if has_aux else y)
        got = [tuple(np.shape(v)) if not hasattr(v, "shape") else tuple(v.shape) for v in leaves]
        want = [tuple(_aval(v).shape) for v in b_flat]
        if got != want:
            raise ValueError(f"{name}() output shapes must match b, got {got} and {want}")
        return y

    return checked


# ------------------------------------------------------------------ custom_linear_solve


def custom_linear_solve(
    matvec: Callable[[Any], Any],
    b: Any,
    solve: Callable[[Callable[[Any], Any], Any], Any],
    transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """Solve ``matvec(x) == b`` with ``solve``, differentiating implicitly.

    Derivatives never go through ``solve``: the tangent of ``x`` solves the
    same system with the tangent right-hand side (less ``matvec``'s own
    tangent applied to ``x``), and reverse mode solves the transposed system
    with ``transpose_solve``.

    Args:
      matvec: the linear map, differentiable.
      b: the right-hand side, a pytree of arrays.
      solve: ``solve(matvec, b) -> x``; need not be differentiable.
      transpose_solve: ``transpose_solve(vecmat, b) -> x`` for the transposed
        map; needed for reverse mode unless ``symmetric``.
      symmetric: ``matvec`` equals its transpose (``solve`` then also solves
        the transposed system).
      has_aux: ``solve`` and ``transpose_solve`` return ``(x, aux)``.

    Returns:
      ``solve(matvec, b)``, with ``b``'s structure (``(x, aux)`` with ``has_aux``).

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr, lax
        >>> f = lambda b: custom_linear_solve(lambda v: lax.mul(v, 2.0), b, lambda m, r: lax.div(r, 2.0))
        >>> make_jaxpr(f)(np.ones(3, np.float32)).eqns[0].primitive
        custom_linear_solve
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, tree = tree_flatten(b)
    avals = [_aval(x) for x in b_flat]

    mv_j, mv_c, mv_tree = _trace(
        _shape_checked(matvec, "matvec", b_flat, False), tree, avals, "custom_linear_solve"
    )
    _check_tree("matvec", "b", mv_tree, tree, False)
    s_j, s_c, s_tree = _trace(
        _shape_checked(lambda x: solve(matvec, x), "solve", b_flat, has_aux),
        tree, avals, "custom_linear_solve solve",
    )  # fmt: skip
    _check_tree("solve", "b", s_tree, tree, has_aux)
    vm_j: ClosedJaxpr | None = None
    ts_j: ClosedJaxpr | None = None
    vm_c: list[Any] = []
    ts_c: list[Any] = []
    if transpose_solve is not None:
        if symmetric:
            vecmat, vm_j, vm_c = matvec, mv_j, mv_c
        else:
            linear_transpose = _transform("linear_transpose")

            def vecmat(x: Any) -> Any:
                # Linearized inside the caller's trace; the dead primal part is
                # dropped from each traced jaxpr below.
                (y,) = linear_transpose(matvec, b)(x)
                return y

            vm_j, vm_c, _ = _trace(vecmat, tree, avals, "custom_linear_solve transpose_solve")
            vm_j = _dce(vm_j)
        tsolve = transpose_solve
        ts_j, ts_c, ts_tree = _trace(
            _shape_checked(lambda x: tsolve(vecmat, x), "transpose_solve", b_flat, has_aux),
            tree, avals, "custom_linear_solve transpose_solve",
        )  # fmt: skip
        _check_tree("transpose_solve", "b", ts_tree, tree, has_aux)
        ts_j = _dce(ts_j)
    lengths = LinearSolveTuple(len(mv_c), len(vm_c), len(s_c), len(ts_c))
    jaxprs = LinearSolveTuple(mv_j, vm_j, s_j, ts_j)
    outs = custom_linear_solve_p.bind(
        *mv_c, *vm_c, *s_c, *ts_c, *b_flat, const_lengths=lengths, jaxprs=jaxprs
    )
    return tree_unflatten(s_tree, outs)


# ------------------------------------------------------------------ custom_root


class _RootTuple(NamedTuple):
    f: Any
    solve: Any
    l_and_s: Any


def _split_root_args(args: Sequence[Any], lengths: _RootTuple) -> tuple[_RootTuple, list[Any]]:
    parts: list[list[Any]] = []
    start = 0
    for n in lengths:
        parts.append(list(args[start : start + n]))
        start += n
    return _RootTuple(*parts), list(args[start:])


class _StaticJaxprs:
    """The root-finding jaxprs as one hashable static argument (compared by identity)."""

    __slots__ = ("jaxprs",)

    def __init__(self, jaxprs: _RootTuple) -> None:
        self.jaxprs = jaxprs


def _custom_root_fun(lengths: _RootTuple, static: _StaticJaxprs, *args: Any) -> list[Any]:
    params, guess = _split_root_args(args, lengths)
    j = static.jaxprs.solve
    return eval_jaxpr(j.jaxpr, j.consts, *params.solve, *guess)


def _root_jvp(
    lengths: _RootTuple, static: _StaticJaxprs, primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    jaxprs = static.jaxprs
    params, _ = _split_root_args(primals, lengths)
    sol = _custom_root(lengths, static, *primals)
    n_f = len(jaxprs.f.out_avals)
    solution, aux = list(sol[:n_f]), list(sol[n_f:])
    params_dot, _ = _split_root_args(tangents, lengths)
    jvp = _transform("jvp")

    def f_at_solution(*ps: Any) -> list[Any]:
        return eval_jaxpr(jaxprs.f.jaxpr, jaxprs.f.consts, *ps, *solution)

    _, rhs = jvp(f_at_solution, params.f, params_dot.f)
    ls = jaxprs.l_and_s
    sol_dot = eval_jaxpr(ls.jaxpr, ls.consts, *params.l_and_s, *solution, *rhs)
    zeros = [_lax_composite.full_like(a, 0) for a in aux]
    return [*solution, *aux], [*[_lax.neg(t) for t in sol_dot], *zeros]


_custom_root_fun.__name__ = _custom_root_fun.__qualname__ = "_custom_root"
_custom_root = custom_jvp(_custom_root_fun, nondiff_argnums=(0, 1))
_custom_root.defjvp(_root_jvp)


def custom_root(
    f: Callable[[Any], Any],
    initial_guess: Any,
    solve: Callable[[Callable[[Any], Any], Any], Any],
    tangent_solve: Callable[[Callable[[Any], Any], Any], Any],
    has_aux: bool = False,
) -> Any:
    """Find a root of ``f`` with ``solve``, differentiating by the implicit function theorem.

    Args:
      f: the function whose root is sought; its output has its input's structure.
      initial_guess: the starting point, a pytree of arrays.
      solve: ``solve(f, initial_guess) -> root``; need not be differentiable.
      tangent_solve: ``tangent_solve(g, y) -> x`` with ``g(x) == y`` for the
        linear map ``g`` (``f`` linearized at the root); for a scalar,
        ``lambda g, y: y / g(1.0)``.
      has_aux: ``solve`` returns ``(root, aux)``.

    Returns:
      ``solve(f, initial_guess)``, differentiable with respect to the values
      ``f`` closes over.

    Example:
        >>> import tessela_autodiff  # registers the linearize custom_root needs
        >>> from tessela_tracer import make_jaxpr, lax
        >>> g = lambda x: custom_root(lambda y: lax.sub(lax.mul(y, y), x), 1.0,
        ...                           lambda f, y0: y0, lambda g, y: lax.div(y, g(1.0)))
        >>> make_jaxpr(g)(2.0).eqns[0].primitive
        custom_jvp_call
    """
    guess_flat, tree = tree_flatten(initial_guess)
    avals = [_aval(x) for x in guess_flat]
    f_j, f_c, f_tree = _trace(f, tree, avals, "custom_root")
    _check_tree("f", "initial_guess", f_tree, tree, False)
    s_j, s_c, s_tree = _trace(lambda x: solve(f, x), tree, avals, "custom_root solve")
    _check_tree("solve", "initial_guess", s_tree, tree, has_aux)
    linearize = _transform("linearize")

    def linearize_and_solve(xb: Any) -> Any:
        x, bb = xb
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, bb)

    pair_tree = tree_flatten((initial_guess, initial_guess))[1]
    ls_j, ls_c, ls_tree = _trace(
        linearize_and_solve, pair_tree, [*avals, *avals], "custom_root tangent_solve"
    )
    _check_tree("tangent_solve", "x", ls_tree, tree, False)
    lengths = _RootTuple(len(f_c), len(s_c), len(ls_c))
    static = _StaticJaxprs(_RootTuple(f_j, s_j, ls_j))
    outs = _custom_root(lengths, static, *f_c, *s_c, *ls_c, *guess_flat)
    return tree_unflatten(s_tree, outs)
