"""Batching rules of the elementwise family.

- One-operand ops keep their operand's batch dimension (:func:`defvectorized`);
  ``bitcast_convert_type`` to a narrower or wider dtype changes the last
  axis, so a batch there moves to the front first.
- n-ary ops broadcast (:func:`defbroadcasting`): batched operands move to
  axis 0 and unbatched ones gain leading size-1 axes, unless every operand
  already agrees.
- ``select_n`` and ``clamp`` accept scalar predicates and bounds: those stay
  scalars when unbatched, and are broadcast to the full operand shape when
  batched (each member selects or clamps with its own value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import get_aval_of
from tessela_tracer.typing import ArrayLike

from tessela_batching._core import (
    NotMapped,
    batch_size,
    bdim_at_front,
    broadcast,
    moveaxis,
    register_batching,
)
from tessela_batching._rule_helpers import defbroadcasting, defvectorized

__all__: list[str] = []


# ----------------------------------------------------------------- unary

for _p in (
    P.neg_p, P.sign_p, P.floor_p, P.ceil_p, P.round_p, P.is_finite_p, P.abs_p, P.exp_p,
    P.exp2_p, P.log_p, P.log1p_p, P.expm1_p, P.tanh_p, P.logistic_p, P.sin_p, P.cos_p, P.tan_p,
    P.asin_p, P.acos_p, P.atan_p, P.sinh_p, P.cosh_p, P.asinh_p, P.acosh_p, P.atanh_p,
    P.sqrt_p, P.rsqrt_p, P.cbrt_p, P.square_p, P.erf_p, P.erfc_p, P.erf_inv_p, P.lgamma_p,
    P.digamma_p, P.not_p, P.population_count_p, P.clz_p, P.real_p, P.imag_p, P.conj_p,
    P.integer_pow_p, P.stop_gradient_p, P.convert_element_type_p,
):  # fmt: skip
    defvectorized(_p)


def _bitcast_rule(args: Sequence[ArrayLike], dims: Sequence[Any], *, new_dtype: Any) -> Any:
    (x,), (d,) = args, dims
    aval = get_aval_of(x)
    if aval.dtype.itemsize != np.dtype(new_dtype).itemsize and d == aval.ndim - 1:
        x, d = moveaxis(x, d, 0), 0
    return P.bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


register_batching(P.bitcast_convert_type_p, _bitcast_rule)


# ----------------------------------------------------------------- n-ary


for _p in (
    P.add_p, P.sub_p, P.mul_p, P.div_p, P.rem_p, P.max_p, P.min_p, P.atan2_p, P.nextafter_p,
    P.and_p, P.or_p, P.xor_p, P.shift_left_p, P.shift_right_logical_p,
    P.shift_right_arithmetic_p, P.eq_p, P.ne_p, P.lt_p, P.le_p, P.gt_p, P.ge_p, P.complex_p,
    P.pow_p, P.polygamma_p, P.zeta_p, P.mulhi_p,
):  # fmt: skip
    defbroadcasting(_p)


def _full_operand(x: Any, d: Any, size: int, shape: tuple[int, ...]) -> Any:
    """``x`` (per example: a scalar or of ``shape``) as a batch-leading array of ``shape``."""
    aval = get_aval_of(x)
    if isinstance(d, NotMapped):
        if not aval.ndim:
            return x
        return broadcast(x, size, 0)
    x = moveaxis(x, d, 0)
    if aval.ndim == 1 and shape:
        x = lax.broadcast_in_dim(x, (size, *shape), (0,))
    return x


def _select_n_rule(args: Sequence[ArrayLike], dims: Sequence[Any]) -> Any:
    which, *cases = args
    wdim, *cdims = dims
    size = batch_size(args, dims)
    case_shape = next(
        (c.shape if isinstance(d, NotMapped) else c.shape[:d] + c.shape[d + 1 :])
        for c, d in ((get_aval_of(c), d) for c, d in zip(cases, cdims, strict=True))
    )
    if isinstance(wdim, NotMapped) and not get_aval_of(which).ndim:
        if all(d == cdims[0] for d in cdims) and not isinstance(cdims[0], NotMapped):
            return P.select_n_p.bind(which, *cases), cdims[0]
        cs = [bdim_at_front(c, d, size) for c, d in zip(cases, cdims, strict=True)]
        return P.select_n_p.bind(which, *cs), 0
    cs = [bdim_at_front(c, d, size) for c, d in zip(cases, cdims, strict=True)]
    w = _full_operand(which, wdim, size, case_shape)
    return P.select_n_p.bind(w, *cs), 0


register_batching(P.select_n_p, _select_n_rule)


def _clamp_rule(args: Sequence[ArrayLike], dims: Sequence[Any]) -> Any:
    lo, x, hi = args
    dlo, dx, dhi = dims
    size = batch_size(args, dims)
    xa = get_aval_of(x)
    shape = xa.shape if isinstance(dx, NotMapped) else xa.shape[:dx] + xa.shape[dx + 1 :]
    unbatched_bounds = isinstance(dlo, NotMapped) and isinstance(dhi, NotMapped)
    if unbatched_bounds and not get_aval_of(lo).ndim and not get_aval_of(hi).ndim:
        return P.clamp_p.bind(lo, x, hi), dx
    x = bdim_at_front(x, dx, size)
    lo = _full_operand(lo, dlo, size, shape)
    hi = _full_operand(hi, dhi, size, shape)
    return P.clamp_p.bind(lo, x, hi), 0


register_batching(P.clamp_p, _clamp_rule)
