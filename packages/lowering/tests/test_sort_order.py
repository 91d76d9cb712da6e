"""The sort comparator's order, and complex sin/cos, against NumPy (eagerly and under jit).

JAX's comparator sorts lexicographically over the first ``num_keys`` operands;
a complex key by its real part, then its imaginary part; a float key with
-0.0 equal to 0.0 and every NaN equal to every other and after +inf. NumPy's
``lexsort`` (stable, NaNs last, -0.0 == 0.0) gives the same permutation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import lax

N = 8  # one length, so that each dtype/num_keys combination compiles once
PARTS = [-1.5, -0.0, 0.0, 1.0, np.inf, -np.inf, np.nan, -np.nan]
_part = st.sampled_from(PARTS)
_floats = st.lists(_part, min_size=N, max_size=N)
_complexes = st.lists(st.builds(complex, _part, _part), min_size=N, max_size=N)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _keys(a: np.ndarray) -> list[np.ndarray]:
    """``a``'s sort keys, most significant first."""
    return [a.real, a.imag] if a.dtype.kind == "c" else [a]


@settings(max_examples=40, deadline=None)
@given(
    st.one_of(_floats.map(lambda v: np.array(v, np.float32)), _complexes.map(np.complex64)),
    _floats.map(lambda v: np.array(v, np.float32)),
    st.integers(1, 2),
    st.booleans(),
)
def test_multi_operand_sort_is_lexicographic_like_numpy(
    first: np.ndarray, second: np.ndarray, num_keys: int, under_jit: bool
) -> None:
    first = np.asarray(first)
    iota = np.arange(N, dtype=np.int32)

    def run(a: Any, b: Any, i: Any) -> Any:
        return lax.sort((a, b, i), num_keys=num_keys, is_stable=True)

    fn = tl.jit(run) if under_jit else run
    got_a, got_b, got_i = (np.asarray(o) for o in fn(first, second, iota))
    keys = _keys(first) + (_keys(second) if num_keys == 2 else [])
    want = np.lexsort(keys[::-1])
    np.testing.assert_array_equal(got_i, want)
    # The operands move as a unit, bit for bit (NaN signs and payloads included).
    np.testing.assert_array_equal(_bits(got_a), _bits(first[want]))
    np.testing.assert_array_equal(_bits(got_b), _bits(second[want]))


def test_complex_sort_along_axis_0_of_a_matrix() -> None:
    x = np.array([[2 + 1j, 1j], [1 - 1j, np.nan], [1 + 0j, -0.0 + 2j]], np.complex64)
    got = np.asarray(lax.sort(tl.device_put(x), dimension=0))
    want = np.sort(x, axis=0, kind="stable")  # no r + nan j entries: NumPy's order is JAX's
    np.testing.assert_array_equal(_bits(got.view(np.float32)), _bits(want.view(np.float32)))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.builds(
            complex,
            st.floats(-20, 20, width=32, allow_subnormal=False),
            st.floats(-20, 20, width=32, allow_subnormal=False),
        ),
        min_size=N,
        max_size=N,
    )
)
def test_complex_sin_cos_close_to_numpy(values: list[complex]) -> None:
    x = np.array(values, np.complex64)
    x[0] = complex(0.0, x[0].imag)  # the real part zero: sin's real part, cos's imaginary part 0
    for op, ref in ((lax.sin, np.sin), (lax.cos, np.cos)):
        got = np.asarray(tl.jit(op)(x))
        want = ref(x.astype(np.complex128))
        scale = np.maximum(np.abs(want), 1e-30)
        np.testing.assert_array_less(np.abs(got - want) / scale, 2e-6)
    assert np.asarray(lax.sin(tl.device_put(x)))[0].real == 0.0
    assert np.asarray(lax.cos(tl.device_put(x)))[0].imag == 0.0
