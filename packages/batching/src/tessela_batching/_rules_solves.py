"""Batching rule of the solves family: ``custom_linear_solve``.

The equation carries four jaxprs: ``matvec`` (x -> b), ``vecmat`` (its
transpose, b -> x, optional), ``solve`` (b -> x, with auxiliary outputs) and
``transpose_solve`` (optional). They must agree on which values carry the
batch, so they are batched together until the batched-ness of ``x`` (what
``solve`` and ``vecmat`` produce, and ``matvec`` and ``transpose_solve``
take) and of ``b`` (what ``matvec`` and ``transpose_solve`` produce) stops
changing: a fixed point, reached in at most ``2 + len(b) + len(x)`` rounds
since flags only ever turn on. Batched constants and right-hand sides move
their batch to axis 0; the solution comes out batched at axis 0 where the
fixed point says so, unbatched elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import LinearSolveTuple, split_solve_args
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import batch_jaxpr, batch_size, register_batching, rule_axis_name
from tessela_batching._rule_helpers import batched_flags, front, out_dims

__all__: list[str] = []


def _or(a: Sequence[bool], b: Sequence[bool]) -> list[bool]:
    return [x or y for x, y in zip(a, b, strict=True)]


def _solve_rule(
    args: Sequence[ArrayLike],
    dims: Sequence[Any],
    *,
    const_lengths: LinearSolveTuple,
    jaxprs: LinearSolveTuple,
) -> Any:
    size, name = batch_size(args, dims), rule_axis_name()
    consts, b = split_solve_args(args, const_lengths)
    c_dims, b_dims = split_solve_args(dims, const_lengths)
    c_bat = LinearSolveTuple(*[batched_flags(d) for d in c_dims])
    orig_b_bat = batched_flags(b_dims)
    matvec, vecmat, solve, solve_t = jaxprs
    n_op = len(matvec.out_avals)
    n_aux = len(solve.out_avals) - n_op
    b_bat = list(orig_b_bat)
    x_bat = [False] * len(solve.out_avals)
    for _ in range(2 + len(b_bat) + len(x_bat)):
        s_done = batch_jaxpr(solve, size, [*c_bat.solve, *b_bat], x_bat, name)
        x_bat_out = list(s_done[2])
        vm_done = None
        if vecmat is not None:
            vm_done = batch_jaxpr(vecmat, size, [*c_bat.vecmat, *b_bat], b_bat, name)
            x_bat_out = _or([*vm_done[2], *[True] * n_aux], x_bat_out)
        x_noaux = x_bat_out[:n_op]
        mv_done = batch_jaxpr(matvec, size, [*c_bat.matvec, *x_noaux], b_bat, name)
        b_bat_out = _or(mv_done[2], orig_b_bat)
        st_done = None
        if solve_t is not None:
            st_done = batch_jaxpr(
                solve_t, size, [*c_bat.transpose_solve, *x_noaux], x_bat_out, name
            )
            b_bat_out = _or(b_bat_out, st_done[2][: len(orig_b_bat)])
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    else:
        raise AssertionError("custom_linear_solve batching: no fixed point")

    new_consts: list[list[Any]] = []
    new_jaxprs: list[Any] = []
    for done, cs, ds in zip((mv_done, vm_done, s_done, st_done), consts, c_dims, strict=True):
        if done is None:
            new_jaxprs.append(None)
            new_consts.append(list(cs))
            continue
        new_jaxprs.append(done[0])
        new_consts.append([*done[1], *front(cs, ds, [False] * len(ds), size)])
    new_b = front(b, b_dims, b_bat, size)
    outs = P.custom_linear_solve_p.bind(
        *[c for cs in new_consts for c in cs], *new_b,
        const_lengths=LinearSolveTuple(*[len(cs) for cs in new_consts]),
        jaxprs=LinearSolveTuple(*new_jaxprs),
    )  # fmt: skip
    return outs, out_dims(s_done[2])


register_batching(P.custom_linear_solve_p, _solve_rule)
