"""The 64-bit fraction behind ``gumbel(mode="highest")``, in 32-bit integers only."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_prng._continuous import _safe_int_to_float


def _reference(v: int) -> np.float32:
    # Keep the 24 bits from the leading one on (truncating), then scale exactly.
    shift = max(v.bit_length() - 24, 0)
    return np.float32((v >> shift) * 2.0 ** (shift - 64))


words = st.one_of(
    st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2**23 - 1, 2**23, 2**24, 2**31, 2**32 - 1])
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(words, words), min_size=1, max_size=16))
def test_fraction_truncates_to_24_bits_exactly(pairs: list[tuple[int, int]]) -> None:
    hi = np.array([h for h, _ in pairs], np.uint32)
    lo = np.array([v for _, v in pairs], np.uint32)
    got = _safe_int_to_float(np, hi, lo)
    want = np.array([_reference((h << 32) | v) for h, v in pairs], np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
