"""reshape with ``dimensions`` (a transpose first) under vmap."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check
from tessela_batching import vmap
from tessela_tracer import lax

XS = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_reshape_with_dimensions_matches_the_loop(in_axis: int) -> None:
    check(lambda a: lax.reshape(a, (a.size,), dimensions=(1, 0)), in_axis, XS)


def test_reshape_with_dimensions_matches_numpy() -> None:
    # Each member is transposed, then flattened row-major.
    got = np.asarray(vmap(lambda a: lax.reshape(a, (12,), dimensions=(1, 0)))(XS))
    np.testing.assert_array_equal(got, np.stack([a.T.reshape(12) for a in XS]))
