"""A collective whose axis no mapped computation provides cannot be lowered: JAX's NameError."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering as tl
import tessela_tracer as tt
from tessela_tracer import lax
from tessela_tracer.extend import axis_frame


@pytest.mark.parametrize(
    "collective",
    [
        lambda x: lax.psum(x, "i"),
        lambda x: lax.pmax(x, "i"),
        lambda x: lax.pmin(x, "i"),
        lambda x: lax.all_gather(x, "i"),
        lambda x: lax.axis_index("i"),
    ],
)
def test_an_unbound_collective_under_jit_raises_name_error(collective) -> None:
    with axis_frame("i", 2):
        closed = tt.make_jaxpr(collective)(np.float32(1))
    fun = tl.jit(lambda x: tt.eval_jaxpr(closed.jaxpr, closed.consts, x)[0])
    with pytest.raises(NameError, match="unbound axis name: 'i'"):
        fun(np.float32(1))
