"""JVP and transpose rules of the windowed reductions.

``reduce_window_sum`` is linear: its transpose pads the cotangent (holes for
the strides) and sums windows again. The tangent of a max (min) pool is
``select_and_gather_add`` of the tangent at each window's chosen element; its
transpose is ``select_and_scatter_add``, and the two transpose into each
other. The general ``reduce_window`` is differentiated as JAX does it: one
``reduce_window`` over the primals and their tangents, whose computation is
the JVP of the reduction's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import ClosedJaxpr, eval_jaxpr, get_aval_of, tangent_aval
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, instantiate, is_differentiable
from tessela_autodiff._jvp import jvp_flat, register_jvp
from tessela_autodiff._rule_helpers import conv_vjp_lhs_padding, deflinear2
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _reduce_window_sum_transpose(
    ct: Any,
    x: Any,
    *,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> list[Any]:
    shape = x.aval.shape
    pads = conv_vjp_lhs_padding(
        shape, window_dimensions, window_strides, get_aval_of(ct).shape, padding, base_dilation,
        window_dilation,
    )  # fmt: skip
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides, strict=True)]
    padded = lax.pad(ct, np.zeros((), get_aval_of(ct).dtype), config)
    ones = (1,) * len(shape)
    out = P.reduce_window_sum_p.bind(
        padded, window_dimensions=tuple(window_dimensions), window_strides=tuple(base_dilation),
        padding=((0, 0),) * len(shape), base_dilation=ones, window_dilation=tuple(window_dilation),
    )  # fmt: skip
    return [out]


deflinear2(P.reduce_window_sum_p, _reduce_window_sum_transpose)


def _chooser_jvp(select_prim: Any, prim: Any) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array, Tangent]:
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, **params)
        if type(t) is Zero:
            return ans, Zero(get_aval_of(ans))
        return ans, P.select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)

    return rule


register_jvp(P.reduce_window_max_p, _chooser_jvp(P.ge_p, P.reduce_window_max_p))
register_jvp(P.reduce_window_min_p, _chooser_jvp(P.le_p, P.reduce_window_min_p))


def _linear_in_first(prim: Any) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array, Tangent]:
        (t, x), (g, _) = primals, tangents
        ans = prim.bind(t, x, **params)
        if type(g) is Zero:
            return ans, Zero(get_aval_of(ans))
        return ans, prim.bind(g, x, **params)

    return rule


def _select_and_gather_add_transpose(
    ct: Any,
    t: Any,
    x: Any,
    *,
    select_prim: Any,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> list[Any]:
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={window_dilation}."
        )
    if type(ct) is Zero:
        return [None, None]
    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        dtype = get_aval_of(x).dtype
        fill = -np.inf if select_prim is P.ge_p else np.inf
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            fill = info.min if select_prim is P.ge_p else info.max
        x = lax.pad(x, np.array(fill, dtype), [(0, 0, d - 1) for d in base_dilation])
    out = P.select_and_scatter_add_p.bind(
        ct, x, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding,
    )  # fmt: skip
    if dilated:
        shape = get_aval_of(out).shape
        out = lax.slice(out, (0,) * len(shape), shape, base_dilation)
    return [out, None]


def _select_and_scatter_add_transpose(
    ct: Any, s: Any, x: Any, *, select_prim: Any, **params: Any
) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    ones = (1,) * len(params["window_dimensions"])
    out = P.select_and_gather_add_p.bind(
        ct, x, select_prim=select_prim, base_dilation=ones, window_dilation=ones, **params
    )
    return [out, None]


register_jvp(P.select_and_gather_add_p, _linear_in_first(P.select_and_gather_add_p))
register_transpose(P.select_and_gather_add_p, _select_and_gather_add_transpose)
register_jvp(P.select_and_scatter_add_p, _linear_in_first(P.select_and_scatter_add_p))
register_transpose(P.select_and_scatter_add_p, _select_and_scatter_add_transpose)


def _reduce_window_jvp(
    primals: Sequence[ArrayLike],
    tangents: Sequence[Tangent],
    *,
    jaxpr: ClosedJaxpr,
    **params: Any,
) -> tuple[list[Any], list[Tangent]]:
    n = len(primals) // 2
    xs, inits = list(primals[:n]), list(primals[n:])
    if any(type(t) is not Zero for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    # Tangents ride along for the differentiable operands only.
    diff = [i for i, x in enumerate(xs) if is_differentiable(get_aval_of(x))]
    txs = [instantiate(tangents[i]) for i in diff]
    tinits = [np.zeros((), tangent_aval(get_aval_of(xs[i])).dtype) for i in diff]

    def combine(left: list[Any], right: list[Any]) -> list[Any]:
        ts: list[Tangent] = [Zero(tangent_aval(get_aval_of(v))) for v in (*left[:n], *right[:n])]
        for j, i in enumerate(diff):
            ts[i], ts[n + i] = left[n + j], right[n + j]
        outs, touts, _ = jvp_flat(
            lambda *a: (eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *a), None),
            [*left[:n], *right[:n]],
            ts,
        )
        return [*outs, *(instantiate(touts[i]) for i in diff)]

    res = lax.reduce_window(
        [*xs, *txs], [*inits, *tinits], combine, params["window_dimensions"],
        params["window_strides"], params["padding"], params["base_dilation"],
        params["window_dilation"],
    )  # fmt: skip
    touts: list[Tangent] = [Zero(tangent_aval(get_aval_of(o))) for o in res[:n]]
    for j, i in enumerate(diff):
        touts[i] = res[n + j]
    return list(res[:n]), touts


register_jvp(P.reduce_window_p, _reduce_window_jvp)
