"""Flat forms of user derivative rules, and the values rules exchange.

``custom_jvp`` and ``custom_vjp`` take rules written on pytrees; the
``custom_jvp_call`` / ``custom_vjp_call`` primitives carry them as closures on
flat lists of leaves, so that every transformation can call (or batch) them
without knowing the user's containers. The closures rebuild the pytrees,
call the rule and check what it returns, with the messages JAX users know.

Conventions of the flat closures (what transformation rules rely on):

- ``jvp(primals, tangents) -> (primals_out, tangents_out)``: lists of leaves;
  a tangent may be ``None`` (a zero) only when the rule asked for
  ``symbolic_zeros``; an output tangent is ``None`` where the rule returned a
  :class:`SymbolicZero`.
- ``fwd(primals, perturbed) -> [*residuals, *primals_out]``: ``perturbed`` has
  one flag per primal (whether its tangent may be non-zero); the counts and
  trees of the last call are returned by the ``out_trees()`` closure beside it.
- ``bwd(residuals, cotangents) -> cotangents_in``: one entry per primal leaf,
  ``None`` for a zero cotangent; an input cotangent is ``None`` (a zero) only
  when the rule asked for ``symbolic_zeros``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_pytree import PyTreeDef, keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

from tessela_tracer._avals import ShapedArray, tangent_aval
from tessela_tracer._core import Tracer
from tessela_tracer._core import get_aval_of as _aval
from tessela_tracer._dtypes import float0, issubdtype
from tessela_tracer._errors import UnexpectedTracerError

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]


def _same_type(a: ShapedArray, b: ShapedArray) -> bool:
    return tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype


class SymbolicZero:
    """A zero tangent or cotangent that a rule with ``symbolic_zeros=True`` sees.

    Attributes:
      aval: the abstract value (shape and dtype) of the zero.

    Example:
        >>> z = SymbolicZero(ShapedArray((2,), np.dtype("float32")))
        >>> z.shape, z.dtype
        ((2,), dtype('float32'))
    """

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @property
    def shape(self) -> tuple[int, ...]:
        """The zero's shape."""
        return tuple(self.aval.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        """The zero's dtype."""
        return self.aval.dtype

    def __repr__(self) -> str:
        return f"SymbolicZero({self.aval.str_short()})"


def zero_from_primal(val: Any, /, symbolic_zeros: bool = False) -> Any:
    """The zero tangent of each leaf of ``val``: a :class:`SymbolicZero` per leaf.

    Args:
      val: a pytree of arrays.
      symbolic_zeros: accepted for JAX compatibility; zeros are always symbolic.

    Returns:
      ``val``'s structure with a :class:`SymbolicZero` at each leaf.

    Example:
        >>> zero_from_primal((np.float32(1.0),))
        (SymbolicZero(float32[]),)
    """
    leaves, tree = tree_flatten(val)
    return tree_unflatten(tree, [SymbolicZero(tangent_aval(_aval(x))) for x in leaves])


class CustomVJPPrimal:
    """A primal argument of a ``symbolic_zeros`` fwd rule, with its perturbation flag.

    Attributes:
      value: the primal value.
      perturbed: whether its tangent may be non-zero.

    Example:
        >>> CustomVJPPrimal(1.0, False)
        CustomVJPPrimal(value=1.0, perturbed=False)
    """

    __slots__ = ("perturbed", "value")

    def __init__(self, value: Any, perturbed: bool) -> None:
        self.value = value
        self.perturbed = perturbed

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def custom_vjp_primal_tree_values(tree: Any, /) -> Any:
    """Replace each :class:`CustomVJPPrimal` leaf of ``tree`` by its value.

    Args:
      tree: a pytree whose leaves are :class:`CustomVJPPrimal` records.

    Returns:
      The same structure holding the primal values.

    Example:
        >>> custom_vjp_primal_tree_values((CustomVJPPrimal(2.0, True),))
        (2.0,)
    """
    leaves, treedef = tree_flatten(tree)
    for x in leaves:
        if type(x) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(x)}")
    return tree_unflatten(treedef, [x.value for x in leaves])


class NondiffTracerError(UnexpectedTracerError):
    """A tracer was passed to a ``custom_vjp`` function as a ``nondiff_argnums`` argument."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        Exception.__init__(
            self,
            "Found a Tessela Tracer object passed as an argument to a custom_vjp function in a "
            "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be "
            "passed as non-differentiable arguments to custom_vjp functions; instead, "
            "nondiff_argnums should only be used for arguments that can't be or contain "
            "tracers, e.g. function-valued arguments. In particular, array-valued arguments "
            "should typically not be indicated as nondiff_argnums.\n"
            "See https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError",
        )


def check_no_tracers(x: object, /) -> None:
    """Raise :class:`NondiffTracerError` if a leaf of ``x`` is a tracer."""
    for leaf in tree_flatten(x)[0]:
        if isinstance(leaf, Tracer):
            raise NondiffTracerError(leaf)


def _type_tree(tree: PyTreeDef, avals: Sequence[ShapedArray]) -> str:
    return str(tree_unflatten(tree, [a.str_short() for a in avals])).replace("'", "")


def _to_none(t: Any) -> Any:
    return None if type(t) is SymbolicZero else t


class OutType:
    """What the primal function returned: its tree and leaf types (set when traced)."""

    __slots__ = ("avals", "tree")

    def __init__(self) -> None:
        self.tree: PyTreeDef | None = None
        self.avals: list[ShapedArray] = []


def _primal_mismatch(
    kind: str, rule: str, primal: str, structure: bool, ours: str, theirs: str
) -> str:
    if kind == "jvp":
        lead = (
            f"Custom JVP rule {rule} for function {primal} must produce a pair (list or tuple "
            "of length two) where the first element represents the primal output (equal in "
            f"value to the output of the custom_jvp-decorated function {primal}, and in "
            "particular "
            + ("of the same container/pytree structure), " if structure
               else "with leaves of the same shape/dtype), ")
        )  # fmt: skip
        who = "JVP rule"
    else:
        lead = (
            f"Custom VJP fwd rule {rule} for function {primal} must produce a pair (list or "
            "tuple of length two) where the first element represents the primal output (equal "
            f"to the output of the custom_vjp-decorated function {primal}) and the second "
            "element represents residuals (i.e. values stored from the forward pass for use "
            "on the backward pass), "
        )
        who = "fwd rule"
    what = "container/pytree structure" if structure else "shapes/dtypes of"
    end = "." if structure else ""
    return (
        f"{lead}but instead the {who} output's first element had {what}:\n    {ours}\n"
        f"while the custom_{kind}-decorated function {primal} had output {what}:\n"
        f"    {theirs}{end}"
    )


def _check_primal_out(
    out_type: OutType, tree: PyTreeDef, avals: Sequence[ShapedArray], kind: str, rule: str,
    primal: str,
) -> None:  # fmt: skip
    if out_type.tree is None:
        return
    ours, theirs = _type_tree(tree, avals), _type_tree(out_type.tree, out_type.avals)
    if tree != out_type.tree:
        raise TypeError(_primal_mismatch(kind, rule, primal, True, ours, theirs))
    if not all(_same_type(a, b) for a, b in zip(avals, out_type.avals, strict=True)):
        raise TypeError(_primal_mismatch(kind, rule, primal, False, ours, theirs))


def fun_name(fun: object, /) -> str:
    """A function's name for messages and printing (``<lambda>``, ``f``, ...)."""
    while hasattr(fun, "func") and not hasattr(fun, "__name__"):
        fun = fun.func
    return str(getattr(fun, "__name__", type(fun).__name__))


def with_static(static: dict[int, Any], dyn: Sequence[Any]) -> list[Any]:
    """Merge static arguments (by position) back among the dynamic ones."""
    it = iter(dyn)
    n = len(static) + len(dyn)
    return [static[i] if i in static else next(it) for i in range(n)]


def flat_jvp_rule(
    rule: Callable[..., Any], static_args: Sequence[Any], in_tree: PyTreeDef, out_type: OutType,
    primal: str, /,
) -> Callable[[Sequence[Any], Sequence[Any]], tuple[list[Any], list[Any]]]:  # fmt: skip
    """Wrap ``rule(*static_args, primals, tangents)`` (pytrees) as a flat closure.

    Args:
      rule: the user's JVP rule.
      static_args: the ``nondiff_argnums`` values, passed first.
      in_tree: the tree of the tuple of differentiable arguments.
      out_type: the primal function's output tree and types.
      primal: the primal function's name, for messages.

    Returns:
      ``jvp(primals, tangents) -> (primals_out, tangents_out)`` on leaves.
    """
    name = fun_name(rule)

    def jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        ts = [SymbolicZero(tangent_aval(_aval(p))) if t is None else t
              for p, t in zip(primals, tangents, strict=True)]  # fmt: skip
        pair = rule(*static_args, tree_unflatten(in_tree, list(primals)),
                    tree_unflatten(in_tree, ts))  # fmt: skip
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(
                f"Custom JVP rule {name} for function {primal} must produce a pair (list or "
                "tuple of length two) representing primal and tangent outputs, but got "
                f"{pair}."
            )
        outs, tree = tree_flatten(pair[0])
        touts, ttree = tree_flatten(pair[1])
        if tree != ttree:
            raise TypeError(
                f"Custom JVP rule {name} for function {primal} must produce primal and tangent "
                "outputs with equal container (pytree) structures, but got "
                f"{tree} and {ttree} respectively."
            )
        avals = [_aval(o) for o in outs]
        _check_primal_out(out_type, tree, avals, "jvp", name, primal)
        want = [tangent_aval(a) for a in avals]
        got = [t.aval if type(t) is SymbolicZero else tangent_aval(_aval(t)) for t in touts]
        got = [ShapedArray(tuple(g.shape), g.dtype, False) for g in got]
        if not all(_same_type(w, g) for w, g in zip(want, got, strict=True)):
            if len(want) == 1:
                raise TypeError(
                    "Custom JVP rule must produce primal and tangent outputs with corresponding "
                    f"shapes and dtypes. Expected {want[0].str_short()} (tangent type of "
                    f"{avals[0].strip_weak_type().str_short()}) but got {got[0].str_short()}."
                )
            lines = "\n".join(
                f"  primal {a.strip_weak_type().str_short()} with tangent {g.str_short()}, "
                f"expecting tangent {w.str_short()}"
                for a, w, g in zip(avals, want, got, strict=True) if not _same_type(w, g)
            )  # fmt: skip
            raise TypeError(
                "Custom JVP rule must produce primal and tangent outputs with corresponding "
                f"shapes and dtypes, but got:\n{lines}"
            )
        return outs, [_to_none(t) for t in touts]

    return jvp


class VJPTrees:
    """What the last call of a flat fwd rule returned: output and residual trees."""

    __slots__ = ("out_avals", "out_tree", "res_tree")

    def __init__(self) -> None:
        self.out_tree: PyTreeDef | None = None
        self.res_tree: PyTreeDef | None = None
        self.out_avals: list[ShapedArray] = []

    def __call__(self) -> tuple[PyTreeDef, PyTreeDef]:
        if self.out_tree is None or self.res_tree is None:
            raise ValueError("the custom_vjp fwd rule has not run yet")
        return self.out_tree, self.res_tree


def flat_fwd_rule(
    fwd: Callable[..., Any], static: dict[int, Any], in_tree: PyTreeDef, out_type: OutType,
    trees: VJPTrees, primal: str, symbolic_zeros: bool, /,
) -> Callable[[Sequence[Any], Sequence[bool]], list[Any]]:  # fmt: skip
    """Wrap ``fwd(*args) -> (out, residuals)`` (pytrees) as a flat closure.

    Args:
      fwd: the user's forward rule.
      static: the ``nondiff_argnums`` values by position, passed in place.
      in_tree: the tree of the tuple of differentiable arguments.
      out_type: the primal function's output tree and types.
      trees: where each call records its output and residual trees.
      primal: the primal function's name, for messages.
      symbolic_zeros: pass :class:`CustomVJPPrimal` leaves.

    Returns:
      ``fwd(primals, perturbed) -> [*residuals, *primals_out]`` on leaves.
    """
    name = fun_name(fwd)

    def flat_fwd(primals: Sequence[Any], perturbed: Sequence[bool]) -> list[Any]:
        leaves = list(primals)
        if symbolic_zeros:
            leaves = [CustomVJPPrimal(p, bool(z)) for p, z in zip(primals, perturbed, strict=True)]
        pair = fwd(*with_static(static, tree_unflatten(in_tree, leaves)))
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(
                f"Custom VJP fwd rule {name} for function {primal} must produce a pair (list or "
                "tuple of length two) where the first element represents the primal output "
                f"(equal to those of the custom_vjp-decorated function {primal}) and the second "
                "element represents residuals (i.e. values stored from the forward pass for use "
                f"on the backward pass), but instead of a pair the fwd rule {name} produced "
                f"{pair}."
            )
        outs, tree = tree_flatten(pair[0])
        res, res_tree = tree_flatten(pair[1])
        avals = [_aval(o) for o in outs]
        _check_primal_out(out_type, tree, avals, "vjp", name, primal)
        trees.out_tree, trees.res_tree = tree, res_tree
        trees.out_avals = [tangent_aval(a) for a in avals]
        return [*res, *outs]

    return flat_fwd


def _mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    bad = []
    if a.dtype != b.dtype:
        bad.append("the dtypes do not match")
    if tuple(a.shape) != tuple(b.shape):
        bad.append("the shapes do not match")
    if len(bad) == 2:
        return ", so the dtypes do not match, and the shapes do not match"
    return f", so {bad[0]}" if bad else ""


def flat_bwd_rule(
    bwd: Callable[..., Any], static_args: Sequence[Any], in_tree: PyTreeDef,
    in_avals: Sequence[ShapedArray], trees: VJPTrees, /,
) -> Callable[[Sequence[Any], Sequence[Any]], list[Any]]:  # fmt: skip
    """Wrap ``bwd(*static_args, residuals, ct) -> cts`` (pytrees) as a flat closure.

    Args:
      bwd: the user's backward rule.
      static_args: the ``nondiff_argnums`` values, passed first.
      in_tree: the tree of the tuple of differentiable arguments.
      in_avals: the types of the differentiable argument leaves.
      trees: the output and residual trees recorded by the fwd rule.

    Returns:
      ``bwd(residuals, cts) -> cts_in`` on leaves, ``None`` for a zero.
    """
    arg_trees = in_tree.children()
    paths = [
        keystr(p) for p, _ in tree_flatten_with_path(tree_unflatten(in_tree, list(in_avals)))[0]
    ]

    def flat_bwd(res: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
        out_tree, res_tree = trees()
        cts_ = [SymbolicZero(a) if c is None else c
                for c, a in zip(cts, trees.out_avals, strict=True)]  # fmt: skip
        got = bwd(*static_args, tree_unflatten(res_tree, list(res)),
                  tree_unflatten(out_tree, cts_))  # fmt: skip
        if isinstance(got, list) and len(got) == len(arg_trees):
            got = tuple(got)
        flat: list[Any] = []
        try:
            if not isinstance(got, tuple) or len(got) != len(arg_trees):
                raise ValueError
            for g, t in zip(got, arg_trees, strict=True):
                flat.extend([None] * t.num_leaves if g is None else t.flatten_up_to(g))
        except ValueError:
            raise TypeError(
                "Custom VJP bwd rule must produce an output with the same container (pytree) "
                "structure as the args tuple of the primal function, and in particular must "
                "produce a tuple of length equal to the number of arguments to the primal "
                f"function, but got bwd output structure {tree_flatten(got)[1]} for primal "
                f"input structure {in_tree}."
            ) from None
        out: list[Any] = []
        for ct, a, path in zip(flat, in_avals, paths, strict=True):
            want = tangent_aval(a)
            if ct is None or want.dtype == float0:
                out.append(None)
                continue
            got_aval = ct.aval if type(ct) is SymbolicZero else _aval(ct)
            if tuple(got_aval.shape) != tuple(want.shape) or (
                got_aval.dtype != want.dtype and not issubdtype(want.dtype, np.inexact)
            ):
                if type(ct) is SymbolicZero:
                    raise ValueError(
                        "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that "
                        "does not match the corresponding input tangent shape/dtype: at "
                        f"output{path} the SymbolicZero had shape/dtype {got_aval.str_short()} "
                        f"while the corresponding input had shape/dtype {a.str_short()}. "
                        "Consider just returning a None here instead of a SymbolicZero object."
                    )
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same type as the args "
                    f"tuple of the primal function, but at output{path} the bwd rule produced "
                    f"an output of type {got_aval.str_short()} corresponding to an input of "
                    f"type {a.str_short()}{_mismatch_extra(want, got_aval)}"
                )
            out.append(_to_none(ct))
        return out

    return flat_bwd
