"""JVP and transpose rules of the indexing primitives.

- ``dynamic_slice`` and ``gather`` are linear in the operand: their
  transposes write the cotangent into zeros (``dynamic_update_slice``,
  ``scatter_add``).
- ``dynamic_update_slice``, ``scatter`` and ``scatter_add`` are linear in the
  operand and the updates together; ``scatter_mul`` is bilinear (gradients in
  the updates need ``unique_indices``, as in JAX).
- ``scatter_max`` and ``scatter_min`` take the tangent of the operand or
  update that attains each output element, averaged over ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import (
    Tangent,
    Zero,
    add_tangents,
    instantiate,
    is_undefined,
    zeros_like_aval,
)
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import const
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _dynamic_slice_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, slice_sizes: tuple[int, ...]
) -> tuple[Any, Any]:
    x, *idx = primals
    ans = P.dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
    if type(tangents[0]) is Zero:
        return ans, Zero(get_aval_of(ans))
    return ans, P.dynamic_slice_p.bind(tangents[0], *idx, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct: Any, x: Any, *idx: Any, slice_sizes: tuple[int, ...]) -> list[Any]:
    if type(ct) is Zero:
        return [None] * (1 + len(idx))
    zeros = zeros_like_aval(x.aval)
    return [P.dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


register_jvp(P.dynamic_slice_p, _dynamic_slice_jvp)
register_transpose(P.dynamic_slice_p, _dynamic_slice_transpose)


def _dynamic_update_slice_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent]
) -> tuple[Any, Any]:
    x, u, *idx = primals
    ans = P.dynamic_update_slice_p.bind(x, u, *idx)
    tx, tu = tangents[0], tangents[1]
    if type(tx) is Zero and type(tu) is Zero:
        return ans, Zero(get_aval_of(ans))
    return ans, P.dynamic_update_slice_p.bind(instantiate(tx), instantiate(tu), *idx)


def _dynamic_update_slice_transpose(ct: Any, x: Any, u: Any, *idx: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None] * (2 + len(idx))
    u_aval = u.aval if is_undefined(u) else get_aval_of(u)
    t_x = (
        P.dynamic_update_slice_p.bind(ct, zeros_like_aval(u_aval), *idx)
        if is_undefined(x)
        else None
    )
    t_u = (
        P.dynamic_slice_p.bind(ct, *idx, slice_sizes=tuple(u_aval.shape))
        if is_undefined(u)
        else None
    )
    return [t_x, t_u] + [None] * len(idx)


register_jvp(P.dynamic_update_slice_p, _dynamic_update_slice_jvp)
register_transpose(P.dynamic_update_slice_p, _dynamic_update_slice_transpose)


# ----------------------------------------------------------- gather / scatter


def _gather_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    x, idx = primals
    ans = P.gather_p.bind(x, idx, **params)
    if type(tangents[0]) is Zero:
        return ans, Zero(get_aval_of(ans))
    tparams = dict(params)
    if tparams.get("fill_value") is not None:
        tparams["fill_value"] = 0
    return ans, P.gather_p.bind(tangents[0], idx, **tparams)


def _gather_transpose(
    ct: Any, x: Any, idx: Any, *, dimension_numbers: Any, slice_sizes: Any,
    indices_are_sorted: bool, unique_indices: bool, mode: Any, fill_value: Any,
) -> list[Any]:  # fmt: skip
    if type(ct) is Zero:
        return [None, None]
    dn = dimension_numbers
    sdn = lax.ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )
    zeros = zeros_like_aval(x.aval)
    out = lax.scatter_add(
        zeros, idx, ct, sdn, indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=mode,
    )  # fmt: skip
    return [out, None]


register_jvp(P.gather_p, _gather_jvp)
register_transpose(P.gather_p, _gather_transpose)


def _scatter_slice_sizes(
    operand_shape: Sequence[int], updates_shape: Sequence[int], dn: Any
) -> tuple[int, ...]:
    sizes = []
    pos = 0
    for i in range(len(operand_shape)):
        if i in dn.inserted_window_dims or i in dn.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(updates_shape[dn.update_window_dims[pos]])
            pos += 1
    return tuple(sizes)


def _gather_dn(dn: Any) -> Any:
    return lax.GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )


def _gather_updates(ct: Any, idx: Any, u_aval: Any, params: dict[str, Any]) -> Any:
    # The scatter's mode, but not its index promises: JAX's transposes gather without them.
    dn = params["dimension_numbers"]
    sizes = _scatter_slice_sizes(get_aval_of(ct).shape, u_aval.shape, dn)
    return lax.gather(ct, idx, _gather_dn(dn), sizes, mode=params["mode"], fill_value=0)


def _scatter_linear_jvp(prim: Any) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array, Tangent]:
        x, idx, u = primals
        ans = prim.bind(x, idx, u, **params)
        tx, tu = tangents[0], tangents[2]
        if type(tx) is Zero and type(tu) is Zero:
            return ans, Zero(get_aval_of(ans))
        return ans, prim.bind(instantiate(tx), idx, instantiate(tu), **params)

    return rule


def _scatter_add_transpose(ct: Any, x: Any, idx: Any, u: Any, **params: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None, None]
    t_x = ct if is_undefined(x) else None
    t_u = _gather_updates(ct, idx, u.aval, params) if is_undefined(u) else None
    return [t_x, None, t_u]


def _scatter_transpose(ct: Any, x: Any, idx: Any, u: Any, **params: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None, None]
    u_aval = u.aval if is_undefined(u) else get_aval_of(u)
    t_x = P.scatter_p.bind(ct, idx, zeros_like_aval(u_aval), **params) if is_undefined(x) else None
    t_u = _gather_updates(ct, idx, u_aval, params) if is_undefined(u) else None
    return [t_x, None, t_u]


register_jvp(P.scatter_add_p, _scatter_linear_jvp(P.scatter_add_p))
register_transpose(P.scatter_add_p, _scatter_add_transpose)


def _scatter_sub_transpose(ct: Any, x: Any, idx: Any, u: Any, **params: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None, None]
    t_x = ct if is_undefined(x) else None
    t_u = lax.neg(_gather_updates(ct, idx, u.aval, params)) if is_undefined(u) else None
    return [t_x, None, t_u]


register_jvp(P.scatter_sub_p, _scatter_linear_jvp(P.scatter_sub_p))
register_transpose(P.scatter_sub_p, _scatter_sub_transpose)
register_jvp(P.scatter_p, _scatter_linear_jvp(P.scatter_p))
register_transpose(P.scatter_p, _scatter_transpose)


_SCATTER_MUL_UNIQUE = "scatter_mul gradients are only implemented if `unique_indices=True`"


def _scatter_mul_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
) -> tuple[Any, Any]:
    # out = x * u at the scattered positions (each written once: unique indices), x
    # elsewhere; so d out = scatter_mul(dx, idx, u) + x * scatter_add(0, idx, du).
    x, idx, u = primals
    tx, tu = tangents[0], tangents[2]
    ans = P.scatter_mul_p.bind(x, idx, u, **params)
    out: Any = Zero(get_aval_of(ans))
    if type(tx) is not Zero:
        out = P.scatter_mul_p.bind(tx, idx, u, **params)
    if type(tu) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError(_SCATTER_MUL_UNIQUE)
        spread = lax.scatter_add(
            zeros_like_aval(get_aval_of(x)), idx, tu, params["dimension_numbers"],
            indices_are_sorted=params["indices_are_sorted"], unique_indices=True,
            mode=params["mode"],
        )  # fmt: skip
        out = add_tangents(out, lax.mul(x, spread))
    return ans, out


def _scatter_mul_transpose(ct: Any, x: Any, idx: Any, u: Any, **params: Any) -> list[Any]:
    if type(ct) is Zero:
        return [None, None, None]
    t_x = t_u = None
    if is_undefined(x):
        t_x = P.scatter_mul_p.bind(ct, idx, u, **params)
    if is_undefined(u):
        if not params["unique_indices"]:
            raise NotImplementedError(_SCATTER_MUL_UNIQUE)
        t_u = _gather_updates(lax.mul(ct, x), idx, u.aval, params)
    return [t_x, None, t_u]


register_jvp(P.scatter_mul_p, _scatter_mul_jvp)
register_transpose(P.scatter_mul_p, _scatter_mul_transpose)


def _scatter_extremum_jvp(prim: Any) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array, Tangent]:
        x, idx, u = primals
        ans = prim.bind(x, idx, u, **params)
        tx, tu = instantiate(tangents[0]), instantiate(tangents[2])
        # Each output element takes the tangent of the operand and of every update
        # that attains it, averaged over ties.
        one_x = lax.select(lax.eq(x, ans), lax.broadcast(const(x, 1), get_aval_of(x).shape),
                           lax.broadcast(const(x, 0), get_aval_of(x).shape))  # fmt: skip
        ans_at_u = _gather_updates(ans, idx, get_aval_of(u), params)
        one_u = lax.select(lax.eq(u, ans_at_u), lax.broadcast(const(u, 1), get_aval_of(u).shape),
                           lax.broadcast(const(u, 0), get_aval_of(u).shape))  # fmt: skip
        sadd = dict(params)
        counts = lax.scatter_add(
            one_x, idx, one_u, sadd["dimension_numbers"], mode=sadd["mode"],
            indices_are_sorted=sadd["indices_are_sorted"], unique_indices=sadd["unique_indices"],
        )  # fmt: skip
        sums = lax.scatter_add(
            lax.mul(tx, one_x), idx, lax.mul(tu, one_u), sadd["dimension_numbers"],
            mode=sadd["mode"], indices_are_sorted=sadd["indices_are_sorted"],
            unique_indices=sadd["unique_indices"],
        )  # fmt: skip
        return ans, lax.div(sums, counts)

    return rule


register_jvp(P.scatter_max_p, _scatter_extremum_jvp(P.scatter_max_p))
register_jvp(P.scatter_min_p, _scatter_extremum_jvp(P.scatter_min_p))
