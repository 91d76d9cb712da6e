"""vmap of ``fft`` against a Python loop, and the jaxpr it stages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import check
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_batching import vmap
from tessela_tracer import lax, make_jaxpr
from tessela_tracer.primitives import fft_p, transpose_p

KINDS = {"fft": (3, 4), "ifft": (4,), "rfft": (3, 4), "irfft": (3, 6)}


def _operand(kind: str, rng: np.random.Generator, axis: int) -> np.ndarray:
    shape = [3, 4]
    shape.insert(axis, 2)
    x = rng.standard_normal(shape)
    if kind != "rfft":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(np.complex64 if kind != "rfft" else np.float32)


@settings(max_examples=12)
@given(kind=st.sampled_from(sorted(KINDS)), axis=st.integers(0, 2), seed=st.integers(0, 999))
def test_fft_vmap_matches_loop(kind: str, axis: int, seed: int) -> None:
    x = _operand(kind, np.random.default_rng(seed), axis)
    check(lambda v: lax.fft(v, kind, KINDS[kind]), axis, x, rtol=1e-4)


def test_nested_vmap_of_fft() -> None:
    x = np.arange(2 * 3 * 8, dtype=np.float32).reshape(2, 3, 8)
    out = vmap(vmap(lambda v: lax.fft(v, "rfft", (8,)), 1), 0)(x.transpose(0, 2, 1))
    np.testing.assert_allclose(np.asarray(out), np.fft.rfft(x), rtol=1e-4, atol=1e-4)


def _eqns(jaxpr: Any) -> list[Any]:
    out = []
    for e in jaxpr.eqns:
        out.append(e)
        if "jaxpr" in e.params:
            out += _eqns(e.params["jaxpr"])
    return out


@pytest.mark.parametrize("axis", [0, 2])
def test_batch_axis_moves_to_the_front(axis: int) -> None:
    x = np.zeros((4, 8, 5) if axis == 2 else (5, 4, 8), np.complex64)
    jaxpr = make_jaxpr(vmap(lambda v: lax.fft(v, "fft", (4, 8)), in_axes=axis))(x)
    eqns = _eqns(jaxpr)
    (fft,) = [e for e in eqns if e.primitive is fft_p]
    assert fft.invars[0].aval.shape == (5, 4, 8)
    assert [e.primitive for e in eqns].count(transpose_p) == (1 if axis else 0)
    assert jaxpr.out_avals[0].shape == (5, 4, 8)
