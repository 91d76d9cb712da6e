"""The functions ``vjp`` and ``linearize`` return: pytrees whose leaves are residuals.

A pullback (``vjp``'s function) and a linearized function (``linearize``'s)
hold the residuals of the primal pass. They are returned as
``tessela_pytree.Partial`` objects: the bound arguments are the residuals,
and the function is a static :class:`Pullback` or :class:`Pushforward`
(the linear jaxpr without its constants, which inputs and outputs have
tangents, and the argument and output trees; compared by identity). So, as
in JAX, they cross ``jit`` boundaries: a jitted function may return one or
take one as an argument, and ``tree_map`` reaches the residuals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_pytree import PyTreeDef, tree_flatten, tree_unflatten
from tessela_tracer import ClosedJaxpr, ShapedArray
from tessela_tracer.extend import eval_jaxpr, get_aval_of, tangent_aval

from tessela_autodiff._ad_util import Zero, instantiate, is_differentiable
from tessela_autodiff._linearize import LinearFunction

__all__ = ["Pullback", "Pushforward"]


class _Linear:
    """The static part of a :class:`LinearFunction`: everything but the residuals."""

    __slots__ = ("in_avals", "in_mask", "jaxpr", "n_res", "out_avals", "out_mask")

    def __init__(self, lin: LinearFunction) -> None:
        self.jaxpr = lin.jaxpr.jaxpr
        self.n_res = len(lin.jaxpr.consts)
        self.in_mask = lin.in_mask
        self.out_mask = lin.out_mask
        self.in_avals = lin.in_avals
        self.out_avals = lin.out_avals

    def split(self, args: tuple[Any, ...], what: str) -> tuple[LinearFunction, tuple[Any, ...]]:
        # The linear function over the residuals in front of ``args``, and the rest.
        n = self.n_res
        if len(args) < n:
            raise TypeError(f"{what} got {len(args)} residuals; it was built with {n}")
        lin = LinearFunction(
            ClosedJaxpr(self.jaxpr, list(args[:n])),
            self.in_mask, self.out_mask, self.in_avals, self.out_avals,
        )  # fmt: skip
        return lin, args[n:]


class Pullback(_Linear):
    """``vjp``'s function without its residuals: ``Pullback(*residuals, ct)``.

    Args:
      lin: the linearization of the function.
      in_tree: the tree of the primal arguments.
      out_tree: the tree of the outputs (without ``aux``).
      out_avals: the outputs' avals.
    """

    __slots__ = ("in_tree", "out_tree", "primal_avals")

    def __init__(
        self,
        lin: LinearFunction,
        in_tree: PyTreeDef,
        out_tree: PyTreeDef,
        out_avals: Sequence[ShapedArray],
    ) -> None:
        super().__init__(lin)
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.primal_avals = list(out_avals)

    def __call__(self, *args: Any) -> tuple[Any, ...]:
        lin, rest = self.split(args, "the function returned by vjp")
        if len(rest) != 1:
            raise TypeError(
                "the function returned by vjp takes one argument, the cotangent of the "
                f"output (a pytree like it), but got {len(rest)}; pack several outputs' "
                "cotangents in the output's own structure."
            )
        flat_ct, ct_tree = tree_flatten(rest[0])
        if ct_tree != self.out_tree:
            raise TypeError(
                "Tree structure of cotangent input "
                f"{ct_tree}, does not match structure of primal output {self.out_tree}."
            )
        cts: list[Any] = []
        for c, a in zip(flat_ct, self.primal_avals, strict=True):
            ca = get_aval_of(c)
            if tuple(ca.shape) != tuple(a.shape):
                raise ValueError(
                    "Shape of cotangent input to vjp pullback function "
                    f"{tuple(ca.shape)} must be the same as the shape of corresponding "
                    f"primal input {tuple(a.shape)}."
                )
            cts.append(c if is_differentiable(a) else Zero(tangent_aval(a)))
        aux_zeros = [Zero(tangent_aval(a)) for a in self.out_avals[len(cts) :]]
        cts_in = lin.transpose([*cts, *aux_zeros])
        return tuple(tree_unflatten(self.in_tree, [instantiate(c) for c in cts_in]))


class Pushforward(_Linear):
    """``linearize``'s function without its residuals: ``Pushforward(*residuals, *tangents)``.

    Args:
      lin: the linearization of the function.
      in_tree: the tree of the primal arguments.
      out_tree: the tree of the outputs (without ``aux``).
      n_out: how many flat outputs there are (without ``aux``).
    """

    __slots__ = ("in_tree", "n_out", "out_tree")

    def __init__(
        self, lin: LinearFunction, in_tree: PyTreeDef, out_tree: PyTreeDef, n_out: int
    ) -> None:
        super().__init__(lin)
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.n_out = n_out

    def __call__(self, *args: Any) -> Any:
        lin, tangents = self.split(args, "the function returned by linearize")
        flat_t, tree_t = tree_flatten(tangents)
        if tree_t != self.in_tree:
            raise TypeError(
                "linearized function called on tangent values inconsistent with the "
                f"original primal values: got tangent structure {tree_t} for primal "
                f"structure {self.in_tree}"
            )
        ts = [t for t, m in zip(flat_t, self.in_mask, strict=True) if m]
        vals = iter(eval_jaxpr(lin.jaxpr.jaxpr, lin.jaxpr.consts, *ts))
        res = [
            next(vals) if m else instantiate(Zero(tangent_aval(a)))
            for m, a in zip(self.out_mask, self.out_avals, strict=True)
        ]
        return tree_unflatten(self.out_tree, res[: self.n_out])
