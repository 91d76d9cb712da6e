"""max/min of complex numbers order them lexicographically, as JAX and NumPy do.

XLA's own complex maximum does not, so every max/min lowering (elementwise,
reductions, cumulative, scatter, reduce_window) goes through one helper; NumPy
is the oracle (its complex max/min are lexicographic too).
"""

from __future__ import annotations

import numpy as np
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import lax

# Few distinct parts, so that real parts tie often and the imaginary part decides.
_parts = st.sampled_from([-2.0, -0.5, 0.0, 0.5, 3.0])
_complex = st.builds(complex, _parts, _parts)
_arrays = st.lists(_complex, min_size=2, max_size=8).map(lambda v: np.array(v, np.complex64))


@settings(max_examples=25, deadline=None)
@given(x=_arrays, data=st.data())
def test_max_and_min_match_numpy(x: np.ndarray, data: st.DataObject) -> None:
    y = np.array(data.draw(st.lists(_complex, min_size=len(x), max_size=len(x))), np.complex64)
    dx, dy = tl.device_put(x), tl.device_put(y)
    np.testing.assert_array_equal(np.asarray(lax.max(dx, dy)), np.maximum(x, y))
    np.testing.assert_array_equal(np.asarray(lax.min(dx, dy)), np.minimum(x, y))
    assert complex(np.asarray(lax.reduce_max(dx, (0,)))) == np.max(x)
    assert complex(np.asarray(lax.reduce_min(dx, (0,)))) == np.min(x)
    np.testing.assert_array_equal(np.asarray(lax.cummax(dx)), np.maximum.accumulate(x))
    np.testing.assert_array_equal(np.asarray(lax.cummin(dx)), np.minimum.accumulate(x))


@settings(max_examples=15, deadline=None)
@given(x=_arrays)
def test_jitted_max_against_a_constant_and_windows(x: np.ndarray) -> None:
    out = tl.jit(lambda a: lax.max(a, np.complex64(0.5 + 0j)))(tl.device_put(x))
    np.testing.assert_array_equal(np.asarray(out), np.maximum(x, np.complex64(0.5)))
    init = np.complex64(complex(-np.inf, 0))
    window = lax.reduce_window(tl.device_put(x), init, lax.max, (2,), (1,), "VALID")
    np.testing.assert_array_equal(np.asarray(window), np.maximum(x[:-1], x[1:]))
