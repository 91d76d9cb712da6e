"""``copy_p`` (JAX's ``lax.copy_p``): the operand's values in a buffer of its own."""

from __future__ import annotations

import numpy as np
import tessela_lowering as tl
from tessela_tracer import lax
from tessela_tracer import primitives as P


def test_copy_returns_the_values_in_a_new_buffer() -> None:
    x = tl.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    want = np.asarray(x).copy()
    y = P.copy_p.bind(x)
    x.delete()
    assert x.is_deleted() and not y.is_deleted()
    np.testing.assert_array_equal(np.asarray(y), want)
    x = tl.device_put(want)
    z = tl.jit(lambda v: lax.mul(P.copy_p.bind(v), 2.0))(x)
    np.testing.assert_array_equal(np.asarray(z), 2 * np.asarray(x))
