"""JVP and transpose rules of ``custom_linear_solve``.

With ``A = matvec`` and ``x = solve(A, b)``:

- JVP: ``x_dot = solve(A, b_dot - A_dot x)``, where ``A_dot x`` is the
  tangent of ``matvec`` in its constants at fixed ``x`` (skipped when those
  constants have zero tangents); auxiliary outputs get zero tangents.
- transpose (in ``b`` only; the constants must be known):
  ``b_ct = transpose_solve(A^T, x_ct)``, the same primitive on the transposed
  tuples.

Importing this module also gives ``tessela_tracer`` the transpose,
linearization and JVP that ``custom_linear_solve`` and ``custom_root`` trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import (
    LinearSolveTuple,
    eval_jaxpr,
    get_aval_of,
    register_solve_transforms,
    split_solve_args,
    tangent_aval,
)

from tessela_autodiff._ad_util import Zero, add_tangents, instantiate, is_undefined
from tessela_autodiff._api import jvp, linear_transpose, linearize
from tessela_autodiff._jvp import jvp_flat, register_jvp
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []

register_solve_transforms(linear_transpose=linear_transpose, linearize=linearize, jvp=jvp)


def _flatten(parts: LinearSolveTuple) -> list[Any]:
    return [x for part in parts for x in part]


def _solve_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    const_lengths: LinearSolveTuple,
    jaxprs: LinearSolveTuple,
) -> tuple[Any, Any]:
    params = {"const_lengths": const_lengths, "jaxprs": jaxprs}
    x = P.custom_linear_solve_p.bind(*primals, **params)
    consts, b = split_solve_args(primals, const_lengths)
    consts_dot, b_dot = split_solve_args(tangents, const_lengths)
    nb = len(b)
    x_leaves = list(x[:nb])
    if all(type(t) is Zero for t in consts_dot.matvec):
        rhs = list(b_dot)
    else:
        mv = jaxprs.matvec
        zeros = [Zero(tangent_aval(get_aval_of(v))) for v in x_leaves]
        _, a_dot_x, _ = jvp_flat(
            lambda *a: (eval_jaxpr(mv.jaxpr, mv.consts, *a), None),
            [*consts.matvec, *x_leaves],
            [*consts_dot.matvec, *zeros],
        )
        rhs = [
            t if type(m) is Zero else add_tangents(t, lax.neg(m))
            for t, m in zip(b_dot, a_dot_x, strict=True)
        ]
    if all(type(t) is Zero for t in rhs):
        return x, [Zero(tangent_aval(get_aval_of(v))) for v in x]
    x_dot = P.custom_linear_solve_p.bind(
        *_flatten(consts), *[instantiate(t) for t in rhs], **params
    )
    aux = [Zero(tangent_aval(get_aval_of(v))) for v in x[nb:]]
    return x, [*x_dot[:nb], *aux]


def _solve_transpose(
    cts: Sequence[Any],
    *args: Any,
    const_lengths: LinearSolveTuple,
    jaxprs: LinearSolveTuple,
) -> list[Any]:
    if jaxprs.transpose_solve is None:
        raise TypeError(
            "transpose_solve required for backwards mode automatic differentiation of "
            "custom_linear_solve"
        )
    consts, b = split_solve_args(args, const_lengths)
    if any(is_undefined(c) for part in consts for c in part):
        raise NotImplementedError(
            "custom_linear_solve is transposed only in b: its matvec and solver constants "
            "must be known"
        )
    x_ct, other = list(cts[: len(b)]), cts[len(b) :]
    if any(type(c) is not Zero for c in other):
        raise NotImplementedError("custom_linear_solve: auxiliary outputs have no cotangent")
    x_ct = [instantiate(c) for c in x_ct]
    out = P.custom_linear_solve_p.bind(
        *_flatten(consts.transpose()), *x_ct,
        const_lengths=const_lengths.transpose(), jaxprs=jaxprs.transpose(),
    )  # fmt: skip
    return [*[None] * sum(const_lengths), *out[: len(b)]]


register_jvp(P.custom_linear_solve_p, _solve_jvp)
register_transpose(P.custom_linear_solve_p, _solve_transpose)
