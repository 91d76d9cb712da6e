"""Batching ``custom_lin`` (the linear part of a custom_vjp function that reverse mode stages).

The batched equation cannot be evaluated (only transposed), so these tests
stage it with ``make_jaxpr`` and call the bwd closure it carries, against a
Python loop over the unbatched bwd rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_tracer.primitives as P
from tessela_batching import vmap
from tessela_tracer import ShapedArray, lax, make_jaxpr
from tessela_tracer.extend import NamedCallable

F = np.float32
RNG = np.random.RandomState(1)


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(F)


def _bwd(res: list[Any], cts: list[Any]) -> list[Any]:
    """Transpose of t -> (res * t, sum(t)): one cotangent for the one tangent."""
    (r,), (ct_prod, ct_sum) = res, cts
    if ct_prod is None and ct_sum is None:
        return [None]
    total = lax.mul(r, ct_prod) if ct_prod is not None else lax.mul(r, F(0))
    if ct_sum is not None:
        total = lax.add(total, lax.broadcast_in_dim(ct_sum, (3,), ()))
    return [total]


def _lin(r: Any, t: Any) -> Any:
    out_avals = (ShapedArray((3,), np.dtype(F)), ShapedArray((), np.dtype(F)))
    return P.custom_lin_p.bind(
        r, t, num_res=1, bwd=NamedCallable(_bwd, "bwd"),
        out_avals=NamedCallable(lambda: out_avals, "out_avals"), symbolic_zeros=True,
    )  # fmt: skip


def _eqn(in_axes: Any, r: np.ndarray, t: np.ndarray) -> Any:
    jaxpr = make_jaxpr(vmap(_lin, in_axes=in_axes))(r, t)
    (eqn,) = [e for e in jaxpr.eqns if e.primitive is P.custom_lin_p]
    return eqn


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0), (1, 0)])
def test_batched_custom_lin_is_a_custom_lin_batched_at_axis_0(in_axes: Any) -> None:
    r = _x(3, 4) if in_axes[0] == 1 else _x(4, 3) if in_axes[0] == 0 else _x(3)
    t = _x(4, 3) if in_axes[1] == 0 else _x(3)
    eqn = _eqn(in_axes, r, t)
    assert [a.shape for a in eqn.params["out_avals"]()] == [(4, 3), (4,)]
    assert [v.aval.shape for v in eqn.outvars] == [(4, 3), (4,)]
    # every tangent operand is batched at axis 0; an unbatched residual stays unbatched
    assert eqn.invars[1].aval.shape == (4, 3)
    assert eqn.invars[0].aval.shape == ((3,) if in_axes[0] is None else (4, 3))
    assert (eqn.params["num_res"], str(eqn.params["bwd"])) == (1, "bwd")


@pytest.mark.parametrize("res_batched", [True, False])
def test_batched_bwd_equals_a_loop_of_bwd(res_batched: bool) -> None:
    r = _x(4, 3) if res_batched else _x(3)
    eqn = _eqn((0 if res_batched else None, 0), r, _x(4, 3))
    ct_prod, ct_sum = _x(4, 3), _x(4)
    (got,) = eqn.params["bwd"]([r], [ct_prod, ct_sum])
    for i in range(4):
        ri = r[i] if res_batched else r
        (want,) = _bwd([ri], [ct_prod[i], ct_sum[i]])
        np.testing.assert_allclose(np.asarray(got)[i], np.asarray(want), rtol=1e-6)


def test_batched_bwd_keeps_symbolic_zero_cotangents() -> None:
    r = _x(4, 3)
    eqn = _eqn((0, 0), r, _x(4, 3))
    assert eqn.params["bwd"]([r], [None, None]) == [None]
    (got,) = eqn.params["bwd"]([r], [None, _x(4)])
    assert np.asarray(got).shape == (4, 3)
