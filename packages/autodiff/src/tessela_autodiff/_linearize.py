"""Linearization: JVP on top of partial evaluation gives primal outputs and a linear jaxpr."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from tessela_tracer import ClosedJaxpr, ShapedArray
from tessela_tracer.extend import get_aval_of, get_current_trace, set_current_trace, tangent_aval
from tessela_tracer.typing import ArrayLike

from tessela_autodiff._ad_util import Tangent, UndefinedPrimal, Zero, is_differentiable
from tessela_autodiff._jvp import jvp_flat
from tessela_autodiff._partial_eval import PartialEvalTrace
from tessela_autodiff._transpose import backward_pass

__all__ = ["LinearFunction", "linearize_flat"]

Aux = TypeVar("Aux")


class LinearFunction:
    """The linear map of a linearization: input tangents to output tangents.

    ``jaxpr`` maps the tangents of the differentiable inputs to the non-zero
    output tangents; its constants are the residuals of the primal pass.
    """

    __slots__ = ("in_avals", "in_mask", "jaxpr", "out_avals", "out_mask")

    def __init__(
        self,
        jaxpr: ClosedJaxpr,
        in_mask: Sequence[bool],
        out_mask: Sequence[bool],
        in_avals: Sequence[ShapedArray],
        out_avals: Sequence[ShapedArray],
    ) -> None:
        self.jaxpr = jaxpr
        self.in_mask = list(in_mask)
        self.out_mask = list(out_mask)
        self.in_avals = list(in_avals)
        self.out_avals = list(out_avals)

    def transpose(self, cts: Sequence[Tangent]) -> list[Tangent]:
        """Pull cotangents (one per output, ``Zero`` allowed) back to the inputs."""
        j = self.jaxpr.jaxpr
        cts_nz = [c for c, m in zip(cts, self.out_mask, strict=True) if m]
        args = [UndefinedPrimal(v.aval) for v in j.invars]
        outs = backward_pass(j, self.jaxpr.consts, args, cts_nz)
        it = iter(outs)
        return [
            cast(Tangent, next(it)) if m else Zero(tangent_aval(a))
            for m, a in zip(self.in_mask, self.in_avals, strict=True)
        ]


def linearize_flat(
    fun: Callable[..., tuple[Sequence[ArrayLike], Aux]], primals: Sequence[ArrayLike], /
) -> tuple[list[ArrayLike], LinearFunction, Aux]:
    """Run ``fun`` on flat primals, staging its tangent computation.

    Args:
      fun: ``fun(*xs) -> (outputs, aux)``; ``aux`` (an output tree) is passed through.
      primals: flat inputs.

    Returns:
      ``(primals_out, linear, aux)``.
    """
    in_avals = [get_aval_of(p) for p in primals]
    in_mask = [is_differentiable(a) for a in in_avals]
    pe = PartialEvalTrace(get_current_trace())
    tangents: list[Any] = [
        pe.new_arg(a) if m else Zero(tangent_aval(a))
        for a, m in zip(in_avals, in_mask, strict=True)
    ]
    with set_current_trace(pe):
        outs, touts, aux = jvp_flat(fun, primals, tangents)
    pe.valid = False
    out_avals = [get_aval_of(o) for o in outs]
    out_mask = [type(t) is not Zero for t in touts]
    jaxpr = pe.to_closed_jaxpr([t for t in touts if type(t) is not Zero])
    return outs, LinearFunction(jaxpr, in_mask, out_mask, in_avals, out_avals), aux
