"""Cases optax's own suite found in the tracer, with JAX 0.10.2's behaviour."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import dtypes, lax, make_jaxpr


@pytest.mark.parametrize("dtype", [dtypes.bfloat16, np.float16, np.int8, np.complex64])
def test_iota_accepts_every_numeric_dtype(dtype: object) -> None:
    closed = make_jaxpr(lambda: lax.iota(dtype, 4))()
    assert closed.out_avals[0].dtype == np.dtype(dtype) and closed.out_avals[0].shape == (4,)


def test_iota_refuses_bool() -> None:
    with pytest.raises(TypeError, match="iota does not accept dtype bool"):
        make_jaxpr(lambda: lax.iota(np.bool_, 4))()


def test_stop_gradient_maps_over_a_pytree() -> None:
    def f(x: object) -> object:
        return lax.stop_gradient({"a": x, "b": (x, None)})

    closed = make_jaxpr(f)(np.float32(1.0))
    assert [e.primitive.name for e in closed.eqns] == ["stop_gradient", "stop_gradient"]
    assert len(closed.out_avals) == 2
