"""Every primitive with operands has a batching rule; checkpoint and device_put batch."""

from __future__ import annotations

import numpy as np
import tessela_lowering as tl
import tessela_tracer.primitives as P
from helpers import check
from hypothesis import given
from hypothesis import strategies as st
from tessela_batching import vmap
from tessela_batching._core import _batching_rules
from tessela_tracer import Primitive, checkpoint, lax, make_jaxpr

# Primitives that take no operands, so there is nothing to batch.
NO_OPERANDS = {P.iota_p}


def test_every_primitive_with_operands_has_a_batching_rule() -> None:
    prims = [v for k, v in vars(P).items() if k.endswith("_p") and isinstance(v, Primitive)]
    missing = sorted(p.name for p in prims if p not in _batching_rules and p not in NO_OPERANDS)
    assert missing == []


floats = st.floats(-3, 3, width=32)


@given(st.lists(floats, min_size=6, max_size=6), st.integers(0, 1))
def test_vmap_of_checkpoint_matches_a_loop(xs: list[float], axis: int) -> None:
    c = np.linspace(-1, 1, 3, dtype=np.float32)
    body = checkpoint(lambda x, y: lax.add(lax.mul(lax.sin(x), c), y))
    x = np.asarray(xs, np.float32).reshape(2, 3)
    check(body, (axis, None), x if axis == 0 else x.T.copy(), np.float32(0.5))


def test_vmap_of_checkpoint_keeps_the_remat_equation() -> None:
    f = vmap(checkpoint(lambda x: lax.mul(lax.sin(x), 2.0)))
    (eqn,) = make_jaxpr(f)(np.zeros(3, np.float32)).eqns
    assert eqn.primitive is P.remat_p
    assert eqn.params["jaxpr"].invars[0].aval.shape == (3,)


def test_nested_vmap_of_checkpoint() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = vmap(vmap(checkpoint(lambda v: lax.mul(lax.cos(v), v))))(x)
    np.testing.assert_allclose(np.asarray(out), np.cos(x) * x, rtol=1e-6)


def test_vmap_of_device_put_keeps_the_batch_axis() -> None:
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = vmap(lambda v: lax.mul(tl.device_put(v), 2.0), in_axes=1)(x)
    np.testing.assert_array_equal(np.asarray(out), 2 * x.T)
    jaxpr = make_jaxpr(vmap(lambda v: tl.device_put(v)))(x)
    assert jaxpr.eqns[0].primitive is P.device_put_p
