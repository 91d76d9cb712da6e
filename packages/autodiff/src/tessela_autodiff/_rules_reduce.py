"""JVP and transpose rules of reductions, cumulative ops, sorting and ``dot_general``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, convert_like, instantiate, is_undefined
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import const, defbilinear, defjvp, defjvp_zero, deflinear2

__all__: list[str] = []


def _keep_dims(x: Any, axes: Sequence[int], shape: Sequence[int]) -> Any:
    """Broadcast a reduced array back to ``shape`` (reduced ``axes`` removed)."""
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return lax.broadcast_in_dim(x, tuple(shape), kept)


def _move_last(x: Any, axis: int) -> tuple[Any, tuple[int, ...]]:
    nd = get_aval_of(x).ndim
    perm = (*tuple(i for i in range(nd) if i != axis), axis)
    return (x if axis == nd - 1 else lax.transpose(x, perm)), perm


def _move_back(x: ArrayLike, perm: tuple[int, ...]) -> ArrayLike:
    if perm == tuple(range(len(perm))):
        return x
    return lax.transpose(x, tuple(int(i) for i in np.argsort(perm)))


# ----------------------------------------------------------- integer-valued

for _p in (P.argmax_p, P.argmin_p, P.reduce_and_p, P.reduce_or_p, P.reduce_xor_p):
    defjvp_zero(_p)


# ----------------------------------------------------------- reductions


def _reduce_sum_transpose(ct: Any, x: Any, *, axes: tuple[int, ...], **params: Any) -> list[Any]:
    return [_keep_dims(ct, axes, x.aval.shape)]


deflinear2(P.reduce_sum_p, _reduce_sum_transpose)


def _reduce_chosen_jvp(g: Any, ans: Any, x: Any, *, axes: tuple[int, ...]) -> Any:
    shape = get_aval_of(x).shape
    mask = lax.eq(x, _keep_dims(ans, axes, shape))
    one = lax.select(mask, lax.broadcast(const(x, 1), shape), lax.broadcast(const(x, 0), shape))
    counts = lax.reduce_sum(one, axes)
    return lax.div(lax.reduce_sum(lax.mul(g, one), axes), counts)


defjvp(P.reduce_max_p, _reduce_chosen_jvp)
defjvp(P.reduce_min_p, _reduce_chosen_jvp)


def _exclusive_products(x: Any, axis: int) -> Any:
    """``prod_{j != i} x_j`` along ``axis`` without division (left and right scans)."""
    n = get_aval_of(x).shape[axis]
    one = const(x, 1)
    left = lax.cumprod(x, axis)
    right = lax.cumprod(x, axis, reverse=True)
    nd = get_aval_of(x).ndim
    pad_l = [(0, 0, 0)] * nd
    pad_r = [(0, 0, 0)] * nd
    pad_l[axis] = (1, -1, 0)
    pad_r[axis] = (-1, 1, 0)
    del n
    return lax.mul(lax.pad(left, one, pad_l), lax.pad(right, one, pad_r))


def _reduce_prod_jvp(g: Any, ans: Any, x: Any, *, axes: tuple[int, ...]) -> Any:
    shape = get_aval_of(x).shape
    if not axes:
        return g
    perm = tuple(i for i in range(len(shape)) if i not in axes) + tuple(axes)
    kept = [shape[i] for i in range(len(shape)) if i not in axes]
    size = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    xr = lax.reshape(lax.transpose(x, perm), (*kept, size))
    gr = lax.reshape(lax.transpose(g, perm), (*kept, size))
    others = _exclusive_products(xr, len(kept))
    return lax.reduce_sum(lax.mul(gr, others), (len(kept),))


defjvp(P.reduce_prod_p, _reduce_prod_jvp)


# ----------------------------------------------------------- cumulative


def _cumsum_transpose(ct: Any, x: Any, *, axis: int, reverse: bool) -> list[Any]:
    return [lax.cumsum(ct, axis, reverse=not reverse)]


deflinear2(P.cumsum_p, _cumsum_transpose)


def _cumprod_jvp(g: Any, ans: Any, x: Any, *, axis: int, reverse: bool) -> Any:
    return lax.mul(lax.cumsum(lax.div(g, x), axis, reverse=reverse), ans)


defjvp(P.cumprod_p, _cumprod_jvp)


def _prefix_mask(n: int, reverse: bool, dtype: Any) -> Any:
    """``mask[i, j] = 1`` where ``j`` is in the prefix ending at ``i``."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return ((j >= i) if reverse else (j <= i)).astype(dtype)


def _pairwise(x: Any, n: int, nd: int, which: int) -> Any:
    """Broadcast ``(..., n)`` to ``(..., n, n)``, indexing rows (``which=0``) or columns (1)."""
    shape = (*get_aval_of(x).shape[:-1], n, n)
    dims = tuple(range(nd - 1)) + ((nd - 1,) if which == 0 else (nd,))
    return lax.broadcast_in_dim(x, shape, dims)


def _weighted_prefix(weights: Any, g: Any, nd: int) -> Any:
    """``out[..., i] = sum_j weights[..., i, j] * g[..., j]``."""
    n = get_aval_of(g).shape[-1]
    return lax.reduce_sum(lax.mul(weights, _pairwise(g, n, nd, 1)), (nd,))


def _pair_shape(xl: ArrayLike) -> tuple[int, int, tuple[int, ...]]:
    """Rank ``nd`` and last-axis size ``n`` of ``xl``, and the ``(..., n, n)`` weights' shape."""
    shape = get_aval_of(xl).shape
    n = shape[-1]
    return len(shape), n, (*shape[:-1], n, n)


def _prefix_weighted_jvp(
    weights: Callable[[ArrayLike, ArrayLike, ArrayLike, bool], Array],
) -> Callable[..., ArrayLike]:
    """The JVP formula of a cumulative reduction whose tangent is a weighted prefix sum.

    ``weights(x, xl, al, reverse)`` gives the ``(..., n, n)`` weights from the
    operand ``x``, and the operand and answer with ``axis`` moved last.
    """

    def jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike, *, axis: int, reverse: bool) -> ArrayLike:
        xl, perm = _move_last(x, axis)
        al, _ = _move_last(ans, axis)
        gl, _ = _move_last(g, axis)
        w = weights(x, xl, al, reverse)
        return _move_back(_weighted_prefix(w, gl, get_aval_of(xl).ndim), perm)

    return jvp


def _cum_select_weights(x: ArrayLike, xl: ArrayLike, al: ArrayLike, reverse: bool) -> Array:
    nd, n, full = _pair_shape(xl)
    mask = _prefix_mask(n, reverse, get_aval_of(x).dtype)
    hit = lax.eq(_pairwise(xl, n, nd, 1), _pairwise(al, n, nd, 0))
    w = lax.select(
        hit, lax.broadcast_in_dim(mask, full, (nd - 1, nd)), lax.broadcast(const(x, 0), full)
    )
    return lax.div(w, lax.broadcast_in_dim(lax.reduce_sum(w, (nd,)), full, tuple(range(nd))))


defjvp(P.cummax_p, _prefix_weighted_jvp(_cum_select_weights))
defjvp(P.cummin_p, _prefix_weighted_jvp(_cum_select_weights))


def _cumlogsumexp_weights(x: ArrayLike, xl: ArrayLike, al: ArrayLike, reverse: bool) -> Array:
    nd, n, full = _pair_shape(xl)
    mask = lax.broadcast_in_dim(_prefix_mask(n, reverse, np.bool_), full, (nd - 1, nd))
    diff = lax.sub(_pairwise(xl, n, nd, 1), _pairwise(al, n, nd, 0))
    return lax.select(mask, lax.exp(diff), lax.broadcast(const(x, 0), full))


defjvp(P.cumlogsumexp_p, _prefix_weighted_jvp(_cumlogsumexp_weights))


# ----------------------------------------------------------- sort, top_k


def _gather_by(t: Any, idx: Any, axis: int) -> Any:
    """``out[..., i] = t[..., idx[..., i]]`` along ``axis`` via a one-hot contraction."""
    tl, perm = _move_last(t, axis)
    il, _ = _move_last(idx, axis)
    nd = get_aval_of(tl).ndim
    n = get_aval_of(tl).shape[-1]
    k = get_aval_of(il).shape[-1]
    full = (*get_aval_of(il).shape[:-1], k, n)
    cols = lax.broadcasted_iota(get_aval_of(idx).dtype, full, nd)
    hit = lax.eq(lax.broadcast_in_dim(il, full, tuple(range(nd))), cols)
    tb = lax.broadcast_in_dim(tl, full, (*range(nd - 1), nd))
    picked = lax.select(hit, tb, lax.broadcast(const(t, 0), full))
    return _move_back(lax.reduce_sum(picked, (nd,)), perm)


def _sort_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, dimension: int, is_stable: bool,
    num_keys: int,
) -> tuple[Any, Any]:  # fmt: skip
    shape = get_aval_of(primals[0]).shape
    iota = lax.broadcasted_iota(np.int32, shape, dimension)
    outs = P.sort_p.bind(
        *primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys
    )
    perm = outs[-1]
    t_out = [t if type(t) is Zero else _gather_by(t, perm, dimension) for t in tangents]
    return outs[:-1], t_out


register_jvp(P.sort_p, _sort_jvp)


def _top_k_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, k: int, axis: int
) -> tuple[Any, Any]:
    (x,) = primals
    (t,) = tangents
    vals, idx = P.top_k_p.bind(x, k=k, axis=axis)
    return [vals, idx], [_gather_by(t, idx, axis), Zero.from_primal(idx)]


register_jvp(P.top_k_p, _top_k_jvp)


# ----------------------------------------------------------- dot_general


def _ranges_like(*groups: Sequence[int]) -> list[list[int]]:
    out = []
    start = 0
    for g in groups:
        out.append(list(range(start, start + len(g))))
        start += len(g)
    return out


def _dot_transpose_lhs(
    ct: Any, x_aval: Any, y: Any, dimension_numbers: Any, params: dict[str, Any], swap: bool
) -> Any:
    (xc, yc), (xb, yb) = dimension_numbers
    x_nd = x_aval.ndim
    y_nd = get_aval_of(y).ndim
    x_kept = [i for i in range(x_nd) if i not in xc and i not in xb]
    y_kept = [i for i in range(y_nd) if i not in yc and i not in yb]
    if swap:
        ans_batch, ans_y, _ = _ranges_like(xb, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(xb, x_kept, y_kept)
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(yb)))
    xc_by_y = [xc[i] for i in np.argsort(yc)]
    out_axes = tuple(int(i) for i in np.argsort([*xb, *x_kept, *xc_by_y]))
    prod = P.dot_general_p.bind(ct, y, dimension_numbers=dims, **params)
    res = lax.transpose(prod, out_axes) if out_axes != tuple(range(x_nd)) else prod
    return convert_like(res, x_aval)


def _dot_general_transpose(
    ct: Any, x: Any, y: Any, *, dimension_numbers: Any, **params: Any
) -> list[Any]:
    if type(ct) is Zero:
        return [None, None]
    if is_undefined(x) and is_undefined(y):
        raise ValueError("dot_general is not linear in both operands at once; cannot transpose")
    if is_undefined(x):
        return [_dot_transpose_lhs(ct, x.aval, y, dimension_numbers, params, False), None]
    (xc, yc), (xb, yb) = dimension_numbers
    swapped = ((yc, xc), (yb, xb))
    return [None, _dot_transpose_lhs(ct, y.aval, x, swapped, params, True)]


defbilinear(P.dot_general_p, _dot_general_transpose)

del instantiate
