"""vmap of stack, unstack, split and tile agrees with a Python loop, at every batch axis."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import check
from tessela_tracer import lax

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
Y = -np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_with_batched_and_unbatched_operands(in_axis: int, axis: int) -> None:
    check(lambda a, b: lax.stack([a, b, a], axis), (in_axis, None), X, np.take(Y, 0, in_axis))
    check(lambda a, b: lax.stack([a, b], axis), (in_axis, in_axis), X, Y)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_unstack_and_split(in_axis: int, axis: int) -> None:
    def pieces(a: Any) -> Any:
        n = a.shape[axis]
        return [*lax.unstack(a, axis), *lax.split(a, (1, n - 1, 0), axis)]

    check(pieces, (in_axis,), X)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_tile(in_axis: int) -> None:
    check(lambda a: lax.tile(a, (2, 3)), (in_axis,), X)
    check(lambda a: lax.tile(a, (0, 1)), (in_axis,), X)
