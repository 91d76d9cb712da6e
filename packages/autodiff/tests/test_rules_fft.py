"""Derivatives of ``fft`` against central differences (float64) and the transpose identities."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _checks import check_grads
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_autodiff import grad, linear_transpose, vjp
from tessela_tracer import lax

pytestmark = pytest.mark.usefixtures("x64_module")


def _parts(y: Any) -> Any:
    """A complex result as one real array: real parts, then imaginary parts."""
    return lax.concatenate([lax.real(y), lax.imag(y)], 0)


def _case(kind: str, lengths: tuple[int, ...]) -> Any:
    if kind == "rfft":
        return lambda a: _parts(lax.fft(a, kind, lengths))
    if kind == "irfft":
        return lambda a, b: lax.fft(lax.complex(a, b), kind, lengths)
    return lambda a, b: _parts(lax.fft(lax.complex(a, b), kind, lengths))


@settings(max_examples=16, deadline=None)
@given(
    kind=st.sampled_from(["fft", "ifft", "rfft", "irfft"]),
    lengths=st.sampled_from([(4,), (5,), (1,), (2, 4), (3, 5), (2, 3)]),
    seed=st.integers(0, 1000),
)
def test_grads_match_finite_differences(kind: str, lengths: tuple[int, ...], seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = (2, *lengths)
    if kind == "irfft":
        shape = (2, *lengths[:-1], lengths[-1] // 2 + 1)
    args = [rng.uniform(-1, 1, shape) for _ in range(1 if kind == "rfft" else 2)]
    check_grads(_case(kind, lengths), args, seed=seed)


@pytest.mark.parametrize("kind", ["fft", "ifft", "rfft", "irfft"])
def test_transpose_is_the_adjoint_without_conjugation(kind: str) -> None:
    # <ct, f(x)> = <f^T(ct), x> with the bilinear (unconjugated) pairing.
    rng = np.random.default_rng(1)
    n = 6
    if kind == "rfft":
        x, ct = rng.standard_normal(n), rng.standard_normal(4) + 1j * rng.standard_normal(4)
    elif kind == "irfft":
        x = rng.standard_normal(4) + 1j * rng.standard_normal(4)
        x[0] = x[0].real
        x[-1] = x[-1].real
        ct = rng.standard_normal(n)
    else:
        x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        ct = rng.standard_normal(n) + 1j * rng.standard_normal(n)

    def f(v: Any) -> Any:
        return lax.fft(v, kind, (n,))

    (ft_ct,) = linear_transpose(f, x)(ct)
    lhs = np.sum(ct * np.asarray(f(x)))
    rhs = np.sum(np.asarray(ft_ct) * x)
    if kind in ("rfft", "irfft"):
        # Half-spectrum entries stand for conjugate pairs: compare real parts.
        lhs, rhs = lhs.real, rhs.real
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)


def test_grad_of_spectral_energy_matches_parseval() -> None:
    # sum |rfft(x)|^2 with doubled interior bins is n * sum x^2; its gradient 2 n x.
    x = np.random.default_rng(2).standard_normal((3, 8))

    def energy(v: Any) -> Any:
        y = lax.fft(v, "rfft", (8,))
        w = np.broadcast_to(np.array([1.0, 2, 2, 2, 1]), (3, 5))
        return lax.reduce_sum(lax.mul(lax.real(lax.mul(y, lax.conj(y))), w), (0, 1))

    np.testing.assert_allclose(np.asarray(grad(energy)(x)), 16 * x, rtol=1e-10)


def test_vjp_of_fft_is_the_same_transform() -> None:
    c = np.random.default_rng(3).standard_normal((2, 4)) + 0j
    ct = np.arange(8.0).reshape(2, 4) + 1j
    _, pull = vjp(lambda v: lax.fft(v, "fft", (4,)), c)
    (got,) = pull(ct)
    np.testing.assert_allclose(np.asarray(got), np.fft.fft(ct), rtol=1e-12, atol=1e-12)
