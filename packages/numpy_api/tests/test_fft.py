"""tessela_numpy.fft against JAX's golden results and NumPy's transforms."""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import numpy as np
import pytest
import tessela_numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering import jit

sys.path.insert(0, str(pathlib.Path(__file__).parent / "golden"))
from fft_cases import CASES, inputs

GOLDEN = np.load(pathlib.Path(__file__).parent / "golden" / "fft_golden.npz")
small = st.floats(-2, 2, width=32, allow_subnormal=False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name: str) -> None:
    fn, _, kwargs = CASES[name]
    got = getattr(tnp.fft, fn)(*inputs(name), **kwargs)
    want = GOLDEN[name]
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=2e-5)


@settings(max_examples=20, deadline=None)
@given(
    hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), elements=small),
    st.data(),
)
def test_transforms_match_numpy(x: np.ndarray, data: Any) -> None:
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = data.draw(st.none() | st.integers(1, 7))
    norm = data.draw(st.sampled_from([None, "backward", "ortho", "forward"]))
    for name in ("fft", "ifft", "rfft", "ihfft"):
        want = getattr(np.fft, name)(x.astype(np.float64), n, axis, norm)
        got = getattr(tnp.fft, name)(x, n, axis, norm)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
    spectrum = np.fft.rfft(x.astype(np.float64), axis=axis)
    m = data.draw(st.integers(1, 8))
    for name in ("irfft", "hfft"):
        want = getattr(np.fft, name)(spectrum, m, axis, norm)
        got = getattr(tnp.fft, name)(spectrum.astype(np.complex64), m, axis, norm)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
    # The n-D forms over every axis, and their round trip under jit.
    np.testing.assert_allclose(np.asarray(tnp.fft.fftn(x)), np.fft.fftn(x), rtol=1e-4, atol=1e-4)
    back = jit(lambda v: tnp.fft.irfftn(tnp.fft.rfftn(v), s=v.shape))(x)
    np.testing.assert_allclose(np.asarray(back), x, rtol=1e-4, atol=1e-4)


def test_shifts_and_frequencies() -> None:
    x = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(np.asarray(tnp.fft.fftshift(x)), np.fft.fftshift(x))
    np.testing.assert_array_equal(
        np.asarray(tnp.fft.ifftshift(x, axes=(1,))), np.fft.ifftshift(x, axes=(1,))
    )
    np.testing.assert_allclose(np.asarray(tnp.fft.fftfreq(8, 0.1)), np.fft.fftfreq(8, 0.1))
    assert tnp.fft.rfftfreq(5, dtype=np.float32).shape == (3,)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tnp.fft.fft(np.ones(4), norm="sideways"), "Invalid norm value"),
        (lambda: tnp.fft.fft(np.ones(4), n=0), "Invalid number of FFT data points"),
        (lambda: tnp.fft.fftn(np.ones((2, 2)), axes=(0, 0)), "does not support repeated axes"),
        (lambda: tnp.fft.fftn(np.ones((2, 2)), s=(2,), axes=(0, 1)), "different lengths"),
        (lambda: tnp.fft.fft2(np.ones((2, 2, 2)), axes=(0,)), "exactly 2 axes"),
    ],
)
def test_errors_name_the_argument(call: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
