"""Batching rules of ``reduce_precision``, ``optimization_barrier``, ``reduce`` and
``custom_linear_solve``.

- ``reduce_precision`` is elementwise; ``optimization_barrier`` keeps each
  operand's batch axis.
- ``reduce``: the batch axes of the operands move to the front and the
  reduced dimensions shift by one; batched initial values are not supported
  (as in JAX).
- ``custom_linear_solve``: the four jaxprs are batched together until the
  batched-ness of ``x`` (what ``solve`` and ``vecmat`` produce) and of ``b``
  (what ``matvec`` and ``transpose_solve`` produce) stops changing, so that
  every jaxpr agrees with the others on which values carry the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import primitives as P
from tessela_tracer.extend import ClosedJaxpr, LinearSolveTuple, split_solve_args

from tessela_batching._core import (
    NotMapped,
    batch_jaxpr,
    batch_size,
    bdim_at_front,
    broadcast,
    not_mapped,
    register_batching,
    rule_axis_name,
)
from tessela_batching._rules_elementwise import defvectorized

__all__: list[str] = []

defvectorized(P.reduce_precision_p)


def _barrier_rule(args: Sequence[Any], dims: Sequence[Any]) -> Any:
    return P.optimization_barrier_p.bind(*args), list(dims)


register_batching(P.optimization_barrier_p, _barrier_rule)


def _reduce_rule(
    args: Sequence[Any],
    dims: Sequence[Any],
    *,
    computation: Any,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> Any:
    n = len(args) // 2
    if any(not isinstance(d, NotMapped) for d in dims[n:]):
        raise NotImplementedError("vmap of lax.reduce with batched initial values")
    size = batch_size(args, dims)
    ops = [bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n], strict=True)]
    outs = P.reduce_p.bind(
        *ops, *args[n:], computation=computation, jaxpr=jaxpr,
        dimensions=tuple(d + 1 for d in dimensions),
    )  # fmt: skip
    return outs, [0] * n


register_batching(P.reduce_p, _reduce_rule)


# ------------------------------------------------------------------ custom_linear_solve


def _flags(dims: Sequence[Any]) -> list[bool]:
    return [not isinstance(d, NotMapped) for d in dims]


def _or(a: Sequence[bool], b: Sequence[bool]) -> list[bool]:
    return [x or y for x, y in zip(a, b, strict=True)]


def _solve_rule(
    args: Sequence[Any],
    dims: Sequence[Any],
    *,
    const_lengths: LinearSolveTuple,
    jaxprs: LinearSolveTuple,
) -> Any:
    size, name = batch_size(args, dims), rule_axis_name()
    consts, b = split_solve_args(args, const_lengths)
    c_dims, b_dims = split_solve_args(dims, const_lengths)
    c_bat = LinearSolveTuple(*[_flags(d) for d in c_dims])
    orig_b_bat = _flags(b_dims)
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

    def front(xs: Sequence[Any], ds: Sequence[Any]) -> list[Any]:
        return [
            x if isinstance(d, NotMapped) else bdim_at_front(x, d, size)
            for x, d in zip(xs, ds, strict=True)
        ]

    new_consts: list[list[Any]] = []
    new_jaxprs: list[Any] = []
    for done, cs, ds in zip((mv_done, vm_done, s_done, st_done), consts, c_dims, strict=True):
        if done is None:
            new_jaxprs.append(None)
            new_consts.append(list(cs))
            continue
        new_jaxprs.append(done[0])
        new_consts.append([*done[1], *front(cs, ds)])
    new_b = [
        broadcast(x, size, 0) if now and isinstance(d, NotMapped) else
        bdim_at_front(x, d, size) if now else x
        for x, d, now in zip(b, b_dims, b_bat, strict=True)
    ]  # fmt: skip
    outs = P.custom_linear_solve_p.bind(
        *[c for cs in new_consts for c in cs], *new_b,
        const_lengths=LinearSolveTuple(*[len(cs) for cs in new_consts]),
        jaxprs=LinearSolveTuple(*new_jaxprs),
    )  # fmt: skip
    return outs, [0 if f else not_mapped for f in s_done[2]]


register_batching(P.custom_linear_solve_p, _solve_rule)
