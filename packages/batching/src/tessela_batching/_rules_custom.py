"""Batching rules of the custom family: ``custom_jvp_call``, ``custom_vjp_call``, ``custom_lin``,
``custom_vmap_call``.

The equations carry the user's rules as closures on flat leaves (``jvp``;
``fwd`` and ``bwd``), where ``None`` tangents and cotangents are symbolic
zeros. Batching must keep the rules consistent with the batched primal, so:

- ``custom_jvp_call`` / ``custom_vjp_call`` batch the primal jaxpr with every
  argument batched at axis 0 (unbatched closed-over constants stay as they
  are) and wrap the rules in ``vmap`` over axis 0: the batched ``jvp`` maps
  primals and tangents, the batched ``fwd`` maps the primals (its residuals
  come out batched at axis 0) and the batched ``bwd`` maps residuals and
  cotangents. ``None`` stays ``None`` through ``vmap`` (an empty pytree).
- ``custom_lin`` (the linear part of a ``custom_vjp`` function that reverse
  mode stages) is linear in its tangent operands, for fixed residuals: member
  ``i`` of the batch computes ``L(res_i)(t_i)``, whose transpose is
  ``bwd(res_i, ct_i)``. The batched equation therefore takes every tangent
  batched at axis 0 (an unbatched one is broadcast, a linear map whose
  transpose sums), keeps unbatched residuals unbatched, outputs tangents
  batched at axis 0, and carries ``vmap(bwd)`` over the residuals' batch axes
  and axis 0 of the cotangents. It stays a ``custom_lin`` equation: only its
  transpose ever runs.
- ``custom_vmap_call`` runs the user's batching rule on the operands, each
  batched one with its batch at axis 0, and takes the outputs it says are
  batched as batched at axis 0. If the function closes over batched values,
  the rule cannot see them: its body is batched instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tessela_tracer import ShapedArray
from tessela_tracer import primitives as P
from tessela_tracer.extend import ClosedJaxpr, NamedCallable, Primitive, eval_jaxpr
from tessela_tracer.typing import Array, ArrayLike

from tessela_batching._api import vmap
from tessela_batching._core import (
    NotMapped,
    batch_jaxpr,
    batch_size,
    not_mapped,
    register_batching,
    rule_axis_name,
)
from tessela_batching._rule_helpers import batched_flags, front

__all__: list[str] = []

ResAxes = int | list[int | None]


def _batched_call(
    args: Sequence[ArrayLike], dims: Sequence[Any], call_jaxpr: ClosedJaxpr, num_consts: int
) -> tuple[ClosedJaxpr, list[Any], list[Any]]:
    """The call's jaxpr with every argument batched at 0, its new consts, and the operands."""
    size, name = batch_size(args, dims), rule_axis_name()
    const_b = batched_flags(dims[:num_consts])
    n_args, n_out = len(args) - num_consts, len(call_jaxpr.out_avals)
    j, extra, _ = batch_jaxpr(call_jaxpr, size, const_b + [True] * n_args, [True] * n_out, name)
    ops = [
        *front(args[:num_consts], dims[:num_consts], const_b, size),
        *front(args[num_consts:], dims[num_consts:], [True] * n_args, size),
    ]
    return j, extra, ops


def _bind_batched_call(
    prim: Primitive,
    args: Sequence[ArrayLike],
    dims: Sequence[Any],
    call_jaxpr: ClosedJaxpr,
    num_consts: int,
    params: dict[str, Any],
) -> tuple[Any, list[int]]:
    """Bind ``prim`` on the batched call (:func:`_batched_call`): every output batched at 0."""
    j, extra, ops = _batched_call(args, dims, call_jaxpr, num_consts)
    outs = prim.bind(*extra, *ops, call_jaxpr=j, num_consts=len(extra) + num_consts, **params)
    return outs, [0] * len(outs)


# ----------------------------------------------------------------- custom_jvp_call


def _batched_jvp(jvp: Callable[..., Any], size: int, name: Any) -> Callable[..., Any]:
    """The flat JVP rule mapped over axis 0 of primals and (non-None) tangents."""

    def batched_jvp(
        primals: Sequence[ArrayLike], tangents: Sequence[ArrayLike]
    ) -> tuple[list[Array], list[Array]]:
        f = vmap(lambda p, t: jvp(p, t), axis_name=name, axis_size=size)
        outs, touts = f(list(primals), list(tangents))
        return list(outs), list(touts)

    return batched_jvp


def _custom_jvp_call_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr, num_consts: int,
    **params: Any,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    params["jvp"] = NamedCallable(_batched_jvp(params["jvp"], size, name), str(params["jvp"]))
    return _bind_batched_call(P.custom_jvp_call_p, args, dims, call_jaxpr, num_consts, params)


register_batching(P.custom_jvp_call_p, _custom_jvp_call_rule)


# ----------------------------------------------------------------- custom_vjp_call


def _batched_fwd(fwd: Callable[..., Any], size: int, name: Any) -> Callable[..., Any]:
    """The flat fwd rule mapped over axis 0 of the primals (residuals batched at 0)."""

    def batched_fwd(primals: Sequence[ArrayLike], perturbed: Sequence[bool]) -> list[Array]:
        f = vmap(lambda *xs: fwd(list(xs), perturbed), axis_name=name, axis_size=size)
        return list(f(*primals))

    return batched_fwd


def _batched_bwd(
    bwd: Callable[..., Any], size: int, name: Any, res_axes: ResAxes = 0
) -> Callable[..., Any]:
    """The flat bwd rule mapped over ``res_axes`` of the residuals and axis 0 of the
    (non-None) cotangents."""

    def batched_bwd(res: Sequence[ArrayLike], cts: Sequence[ArrayLike]) -> list[Array | None]:
        f = vmap(lambda r, c: bwd(r, c), in_axes=(res_axes, 0), axis_name=name, axis_size=size)
        return list(f(list(res), list(cts)))

    return batched_bwd


def _custom_vjp_call_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr, num_consts: int,
    **params: Any,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    params["fwd"] = NamedCallable(_batched_fwd(params["fwd"], size, name), str(params["fwd"]))
    params["bwd"] = NamedCallable(_batched_bwd(params["bwd"], size, name), str(params["bwd"]))
    return _bind_batched_call(P.custom_vjp_call_p, args, dims, call_jaxpr, num_consts, params)


register_batching(P.custom_vjp_call_p, _custom_vjp_call_rule)


# ----------------------------------------------------------------- custom_lin


def _custom_lin_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, num_res: int, bwd: Callable[..., Any],
    out_avals: Callable[[], Sequence[ShapedArray]], symbolic_zeros: bool,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    res_dims, n_lin = dims[:num_res], len(args) - num_res
    res = front(args[:num_res], res_dims, [False] * num_res, size)
    tangents = front(args[num_res:], dims[num_res:], [True] * n_lin, size)
    res_axes: list[int | None] = [None if isinstance(d, NotMapped) else 0 for d in res_dims]
    avals = tuple(a.update(shape=(size, *a.shape)) for a in out_avals())
    outs = P.custom_lin_p.bind(
        *res, *tangents, num_res=num_res,
        bwd=NamedCallable(_batched_bwd(bwd, size, name, res_axes), str(bwd)),
        out_avals=NamedCallable(lambda: avals, str(out_avals)), symbolic_zeros=symbolic_zeros,
    )  # fmt: skip
    return outs, [0] * len(outs)


register_batching(P.custom_lin_p, _custom_lin_rule)


# ----------------------------------------------------------------- custom_vmap_call


def _custom_vmap_call_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, call: ClosedJaxpr, rule: Callable[..., Any],
    num_consts: int, **params: Any,
) -> Any:  # fmt: skip
    size = batch_size(args, dims)
    if any(batched_flags(dims[:num_consts])):
        j, extra, ops = _batched_call(args, dims, call, num_consts)
        outs = eval_jaxpr(j.jaxpr, j.consts, *extra, *ops)
        return outs, [0] * len(outs)
    n = len(args) - num_consts
    flags = batched_flags(dims[num_consts:])
    vals = front(args[num_consts:], dims[num_consts:], [False] * n, size)
    outs, out_batched = rule(size, flags, *vals)
    return list(outs), [0 if b else not_mapped for b in out_batched]


register_batching(P.custom_vmap_call_p, _custom_vmap_call_rule)


# ----------------------------------------------------------------- linear_call


def _linear_call_rule(
    args: Sequence[ArrayLike], dims: Sequence[Any], *, callee: ClosedJaxpr,
    transpose_thunk: Callable[[], tuple[ClosedJaxpr, list[Any]]], num_callee_consts: int,
    num_res: int,
) -> Any:  # fmt: skip
    size, name = batch_size(args, dims), rule_axis_name()
    n = len(args)
    ops = front(args, dims, [True] * n, size)
    j, extra, _ = batch_jaxpr(callee, size, [True] * n, [True] * len(callee.out_avals), name)

    def batched_transpose() -> tuple[ClosedJaxpr, list[ArrayLike]]:
        t, t_consts = transpose_thunk()
        nt = len(t_consts)
        flags = [False] * nt + [True] * (len(t.in_avals) - nt)
        bt, t_extra, _ = batch_jaxpr(t, size, flags, [True] * len(t.out_avals), name)
        return bt, [*t_extra, *t_consts]

    outs = P.linear_call_p.bind(
        *extra, *ops, callee=j,
        transpose_thunk=NamedCallable(batched_transpose, str(transpose_thunk)),
        num_callee_consts=len(extra) + num_callee_consts, num_res=num_res,
    )  # fmt: skip
    return outs, [0] * len(outs)


register_batching(P.linear_call_p, _linear_call_rule)
