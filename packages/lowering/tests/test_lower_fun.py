"""``lower_fun``: a primitive lowered through a Python function of existing ones."""

from __future__ import annotations

from typing import Any

import numpy as np
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import ShapedArray, lax
from tessela_tracer.extend import Primitive, register_abstract_eval

# softplus through log1p(exp(x)), with a parameter.
scaled_softplus_p = Primitive("test_scaled_softplus")
register_abstract_eval(scaled_softplus_p, lambda x, *, scale: x)
tl.register_lowering(
    scaled_softplus_p,
    tl.lower_fun(lambda x, *, scale: lax.mul(lax.log1p(lax.exp(x)), np.float32(scale))),
)

# Two results, and a non-scalar constant the lowering closes over.
_WEIGHTS = np.array([1.0, -2.0, 0.5], np.float32)
split_weighted_p = Primitive("test_split_weighted", multiple_results=True)
register_abstract_eval(
    split_weighted_p, lambda x: [ShapedArray(x.shape, x.dtype), ShapedArray(x.shape, x.dtype)]
)
tl.register_lowering(
    split_weighted_p,
    tl.lower_fun(lambda x: (lax.mul(x, _WEIGHTS), lax.neg(x)), multiple_results=True),
)


def _softplus(x: Any, scale: float) -> Any:
    return np.float32(scale) * np.log1p(np.exp(x))


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.floats(-20, 20, width=32), min_size=1, max_size=6),
    st.sampled_from([0.5, 1.0, 3.0]),
)
def test_jit_and_eager_match_numpy(values: list[float], scale: float) -> None:
    x = np.asarray(values, np.float32)
    want = _softplus(x, scale)
    jitted = tl.jit(lambda v: scaled_softplus_p.bind(v, scale=scale))(x)
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=2e-6, atol=1e-6)
    eager = scaled_softplus_p.bind(tl.device_put(x), scale=scale)
    np.testing.assert_allclose(np.asarray(eager), want, rtol=2e-6, atol=1e-6)


def test_multiple_results_and_closed_over_constants() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    a, b = tl.jit(lambda v: split_weighted_p.bind(v))(x)
    np.testing.assert_array_equal(np.asarray(a), x * _WEIGHTS)
    np.testing.assert_array_equal(np.asarray(b), -x)


def test_lowered_text_uses_the_existing_primitives() -> None:
    text = tl.jit(lambda v: scaled_softplus_p.bind(v, scale=2.0)).lower(np.float32(1.0)).as_text()
    assert "stablehlo.exponential" in text and "stablehlo.log_plus_one" in text
