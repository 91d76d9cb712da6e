"""``fft`` compiled and eager against ``numpy.fft`` (float32/complex64 tolerances)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_tracer import lax

shapes = st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple)


def _data(seed: int, shape: tuple[int, ...], complex_: bool, dtype: Any = np.float32) -> Any:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if complex_:
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype if not complex_ else np.result_type(dtype, np.complex64))


def _close(got: Any, want: Any, n: int, eps: float = 1e-6) -> None:
    got = np.asarray(got)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=0, atol=8 * eps * np.sqrt(n) * scale)


def _expected(kind: str, x: np.ndarray, lengths: tuple[int, ...]) -> np.ndarray:
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if kind == "fft":
        return np.fft.fftn(x, axes=axes)
    if kind == "ifft":
        return np.fft.ifftn(x, axes=axes)
    if kind == "rfft":
        return np.fft.rfftn(x, axes=axes)
    return np.fft.irfftn(x, s=lengths, axes=axes)


@settings(max_examples=15)
@given(
    shape=shapes,
    k=st.integers(1, 3),
    kind=st.sampled_from(["fft", "ifft", "rfft", "irfft"]),
    jit=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_matches_numpy(shape: tuple[int, ...], k: int, kind: str, jit: bool, seed: int) -> None:
    k = min(k, len(shape))
    lengths = shape[len(shape) - k :]
    x = _data(seed, shape, complex_=kind != "rfft")
    if kind == "irfft":
        # The input holds the half spectrum of the last axis.
        x = x[..., : lengths[-1] // 2 + 1]
    fn = (
        (lambda v: lax.fft(v, kind, lengths))
        if not jit
        else tl.jit(lambda v: lax.fft(v, kind, lengths))
    )
    got = fn(x)
    want = _expected(kind, x, lengths)
    assert got.shape == want.shape
    assert got.dtype == (np.float32 if kind == "irfft" else np.complex64)
    _close(got, want, int(np.prod(lengths)))


@pytest.mark.parametrize("kind", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.usefixtures("x64")
def test_float64_under_x64(kind: str) -> None:
    x = _data(3, (2, 4, 6), complex_=kind != "rfft", dtype=np.float64)
    if kind == "irfft":
        x = x[..., :4]
    got = tl.jit(lambda v: lax.fft(v, kind, (4, 6)))(x)
    assert got.dtype == (np.float64 if kind == "irfft" else np.complex128)
    _close(got, _expected(kind, x, (4, 6)), 24, eps=1e-15)


def test_round_trips() -> None:
    x = _data(0, (3, 5, 8), complex_=False)
    spec = lax.fft(x, lax.FftType.RFFT, (5, 8))
    _close(lax.fft(spec, lax.FftType.IRFFT, (5, 8)), x, 40)
    c = _data(1, (4, 6), complex_=True)
    _close(lax.fft(lax.fft(c, "fft", (4, 6)), "ifft", (4, 6)), c, 24)


def test_integer_input_and_empty_lengths() -> None:
    i = np.arange(8, dtype=np.int32)
    _close(lax.fft(i, "rfft", (8,)), np.fft.rfft(i), 8)
    out = lax.fft(i, "fft", ())
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(out), i.astype(np.complex64))


def test_lowered_text_has_one_stablehlo_fft() -> None:
    text = (
        tl.jit(lambda v: lax.fft(v, "irfft", (3, 8)))
        .lower(np.zeros((2, 3, 5), np.complex64))
        .as_text()
    )
    assert text.count("stablehlo.fft") == 1
    assert "type =  IRFFT" in text or "IRFFT" in text
