"""reshape with ``dimensions``: the operand is transposed before the reshape."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering as tl
from tessela_tracer import lax

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("dims", [(0, 1, 2), (2, 1, 0), (1, 0, 2), (2, 0, 1)])
def test_eager_and_jit_match_numpy(dims: tuple[int, int, int]) -> None:
    want = np.transpose(X, dims).reshape(4, 6)
    np.testing.assert_array_equal(np.asarray(lax.reshape(X, (4, 6), dimensions=dims)), want)
    jitted = tl.jit(lambda a: lax.reshape(a, (4, 6), dimensions=dims))(X)
    np.testing.assert_array_equal(np.asarray(jitted), want)
