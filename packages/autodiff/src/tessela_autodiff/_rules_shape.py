"""JVP and transpose rules of the shape primitives.

Every one of them is linear (``iota`` has no operand to differentiate): the
JVP applies the primitive to the tangent, and each transpose undoes the
movement of elements: ``broadcast_in_dim`` sums over the broadcast axes,
``reshape``, ``squeeze``, ``transpose`` and ``rev`` apply their inverse,
``concatenate`` slices the cotangent back into pieces, ``pad`` slices out the
operand (and sums the rest for the padding value) and ``slice`` pads with
zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of

from tessela_autodiff._ad_util import is_undefined, zeros_like_aval
from tessela_autodiff._rule_helpers import const, defjvp_zero, deflinear2

__all__: list[str] = []

defjvp_zero(P.iota_p)


def _broadcast_in_dim_transpose(
    ct: Any, x: Any, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...], sharding: Any
) -> list[Any]:
    in_shape = x.aval.shape
    new_dims = tuple(i for i in range(len(shape)) if i not in broadcast_dimensions)
    expanded = tuple(
        d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1
    )
    summed = lax.reduce_sum(ct, tuple(sorted(new_dims + expanded))) if new_dims or expanded else ct
    # The kept axes come out in increasing order; broadcast_dimensions out of
    # order also transposed the operand, so the cotangent is transposed back.
    kept = [d for d in broadcast_dimensions if d not in expanded]
    if kept != sorted(kept):
        order = sorted(kept)
        summed = lax.transpose(summed, tuple(order.index(d) for d in kept))
    if tuple(get_aval_of(summed).shape) != tuple(in_shape):
        summed = lax.reshape(summed, tuple(in_shape))
    return [summed]


deflinear2(P.broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _reshape_transpose(ct: Any, x: Any, *, dimensions: Any, **params: Any) -> list[Any]:
    shape = tuple(x.aval.shape)
    if dimensions is None:
        return [lax.reshape(ct, shape)]
    # The forward pass transposed by ``dimensions`` first: undo that last.
    permuted = tuple(shape[d] for d in dimensions)
    inverse = tuple(int(i) for i in np.argsort(dimensions))
    return [lax.transpose(lax.reshape(ct, permuted), inverse)]


deflinear2(P.reshape_p, _reshape_transpose)
deflinear2(P.squeeze_p, lambda ct, x, **params: [lax.reshape(ct, tuple(x.aval.shape))])
deflinear2(
    P.transpose_p,
    lambda ct, x, *, permutation: [
        lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))
    ],
)
deflinear2(P.rev_p, lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)])


def _concatenate_transpose(ct: Any, *xs: Any, dimension: int) -> list[Any]:
    out: list[Any] = []
    start = 0
    shape = get_aval_of(ct).shape
    for x in xs:
        size = get_aval_of(x).shape[dimension] if not is_undefined(x) else x.aval.shape[dimension]
        if is_undefined(x):
            lo = [0] * len(shape)
            hi = list(shape)
            lo[dimension] = start
            hi[dimension] = start + size
            out.append(lax.slice(ct, lo, hi))
        else:
            out.append(None)
        start += size
    return out


deflinear2(P.concatenate_p, _concatenate_transpose)


def _pad_transpose(
    ct: Any, x: Any, pad_value: Any, *, padding_config: tuple[tuple[int, int, int], ...]
) -> list[Any]:
    zero = const(ct, 0)
    unneg = [(max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in padding_config]
    t = lax.pad(ct, zero, unneg) if any(a or b for a, b, _ in unneg) else ct
    shape = get_aval_of(t).shape
    starts = [max(lo, 0) for lo, _, _ in padding_config]
    limits = [d - max(hi, 0) for d, (_, hi, _) in zip(shape, padding_config, strict=True)]
    strides = [interior + 1 for _, _, interior in padding_config]
    t_x = lax.slice(t, starts, limits, strides)
    t_x_out = t_x if is_undefined(x) else None
    t_pad = None
    if is_undefined(pad_value):
        all_axes = tuple(range(len(shape)))
        t_pad = lax.sub(lax.reduce_sum(ct, all_axes), lax.reduce_sum(t_x, all_axes))
    return [t_x_out, t_pad]


deflinear2(P.pad_p, _pad_transpose)


def _slice_transpose(
    ct: Any,
    x: Any,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[Any]:
    shape = x.aval.shape
    out_shape = get_aval_of(ct).shape
    st = strides or (1,) * len(shape)
    if 0 in out_shape:
        return [zeros_like_aval(x.aval)]
    cfg = []
    for d, lo, n, s in zip(shape, start_indices, out_shape, st, strict=True):
        real_hi = lo + (n - 1) * s + 1
        cfg.append((lo, d - real_hi, s - 1))
    return [lax.pad(ct, const(ct, 0), cfg)]


deflinear2(P.slice_p, _slice_transpose)
