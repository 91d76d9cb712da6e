"""Keys are not differentiable: random_wrap and random_unwrap have float0 tangents."""

from __future__ import annotations

import numpy as np
from tessela_autodiff import grad, jvp
from tessela_tracer import lax
from tessela_tracer.dtypes import float0
from tessela_tracer.extend import random_unwrap, random_wrap

KEY = np.array([3, 5], np.uint32)


def test_jvp_through_wrap_and_unwrap_gives_a_float0_tangent() -> None:
    primal, tangent = jvp(lambda d: random_unwrap(random_wrap(d)), (KEY,), (np.zeros(2, float0),))
    np.testing.assert_array_equal(np.asarray(primal), KEY)
    assert np.asarray(tangent).dtype == float0


def test_grad_of_a_function_taking_a_key_differentiates_the_other_argument() -> None:
    key = random_wrap(KEY)

    def f(x, k):
        words = lax.convert_element_type(random_unwrap(k), np.float32)
        return lax.reduce_sum(lax.mul(x, words), (0,))

    g = grad(f)(np.ones(2, np.float32), key)
    np.testing.assert_array_equal(np.asarray(g), [3.0, 5.0])
