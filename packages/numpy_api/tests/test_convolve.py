"""convolve and correlate against NumPy, eagerly and under jit."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering import jit

small = st.floats(-3, 3, width=32, allow_subnormal=False)


@settings(max_examples=30, deadline=None)
@given(
    hnp.arrays(np.float32, st.integers(1, 7), elements=small),
    hnp.arrays(np.float32, st.integers(1, 7), elements=small),
    st.sampled_from(["full", "same", "valid"]),
    st.sampled_from(["convolve", "correlate"]),
)
def test_matches_numpy_in_every_mode(a: np.ndarray, v: np.ndarray, mode: str, op: str) -> None:
    want = getattr(np, op)(a.astype(np.float64), v.astype(np.float64), mode)
    fun = getattr(tnp, op)
    got = fun(a, v, mode)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    staged = jit(lambda x, y: fun(x, y, mode))(a, v)
    np.testing.assert_allclose(np.asarray(staged), np.asarray(got), rtol=1e-6, atol=1e-6)


def test_complex_correlate_conjugates_v_and_ints_become_float() -> None:
    a = np.array([1 + 2j, 3 - 1j, 0.5j], np.complex64)
    v = np.array([2 - 1j, 1j], np.complex64)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(
            np.asarray(tnp.correlate(a, v, mode)), np.correlate(a, v, mode), rtol=1e-6
        )
        np.testing.assert_allclose(
            np.asarray(tnp.correlate(v, a, mode)), np.correlate(v, a, mode), rtol=1e-6
        )
    out = tnp.convolve(np.arange(4), np.arange(3))
    assert out.dtype == np.float32
    assert out.tolist() == np.convolve(np.arange(4), np.arange(3)).tolist()
    wide = tnp.convolve(np.arange(4), np.arange(3), preferred_element_type=np.int32)
    assert wide.dtype == np.int32


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((np.ones((2, 2)), np.ones(2)), "only support 1-dimensional"),
        ((np.ones(0), np.ones(2)), "cannot be empty"),
        ((np.ones(3), np.ones(2), "middle"), "mode must be one of"),
    ],
)
def test_errors_name_the_problem(args: tuple[object, ...], match: str) -> None:
    for fun in (tnp.convolve, tnp.correlate):
        with pytest.raises(ValueError, match=match):
            fun(*args)
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        tnp.convolve([1.0, 2.0], np.ones(2))
