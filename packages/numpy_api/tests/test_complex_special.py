"""Special values of complex element-wise functions: the array API standard's, not XLA's kernels'.

Each row is one bullet of the standard's "Special Cases" (array API 2024.12) that
the XLA kernel (and so JAX 0.10.2) gets wrong: the input ``a + b j`` and the
expected real and imaginary parts, ``None`` where the standard leaves the sign
of a zero or infinity unspecified (the magnitude is still checked).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from tessela_tracer import config, lax, make_jaxpr

INF, NAN, PI = np.inf, np.nan, np.pi

# (function, a, b, expected real, expected imaginary, sign of real fixed, sign of imag fixed)
CASES = [
    ("cosh", 0.0, INF, NAN, 0.0, True, False),
    ("cosh", 0.0, NAN, NAN, 0.0, True, False),
    ("cosh", INF, INF, INF, NAN, False, True),
    ("cosh", INF, NAN, INF, NAN, True, True),
    ("sinh", 0.0, INF, 0.0, NAN, False, True),
    ("sinh", 0.0, NAN, 0.0, NAN, False, True),
    ("sinh", INF, INF, INF, NAN, False, True),
    ("sinh", INF, NAN, INF, NAN, False, True),
    ("tanh", 0.0, INF, 0.0, NAN, True, True),
    ("tanh", 0.0, NAN, 0.0, NAN, True, True),
    ("tanh", INF, 1.2806811310955692e38, 1.0, 0.0, True, True),
    ("tanh", INF, 3.0, 1.0, 0.0, True, True),
    ("expm1", INF, INF, INF, NAN, False, True),
    ("expm1", INF, NAN, INF, NAN, False, True),
    ("expm1", -INF, INF, -1.0, 0.0, True, False),
    ("expm1", -INF, NAN, -1.0, 0.0, True, False),
    ("log", INF, NAN, INF, NAN, True, True),
    ("log", -INF, NAN, INF, NAN, True, True),
    ("log", NAN, INF, INF, NAN, True, True),
    ("log1p", INF, NAN, INF, NAN, True, True),
    ("log1p", -INF, NAN, INF, NAN, True, True),
    ("log1p", NAN, INF, INF, NAN, True, True),
    ("atanh", 0.0, NAN, 0.0, NAN, True, True),
    ("atanh", 2.5, NAN, NAN, NAN, True, True),
    ("atanh", INF, NAN, 0.0, NAN, True, True),
    ("atanh", NAN, NAN, NAN, NAN, True, True),
    ("atanh", NAN, 3.0, NAN, NAN, True, True),
    ("asinh", NAN, 0.0, NAN, 0.0, True, True),
    ("acos", 0.0, NAN, PI / 2, NAN, True, True),
    ("acos", -0.0, NAN, PI / 2, NAN, True, True),
    ("acosh", 0.0, NAN, NAN, PI / 2, True, False),
    ("sign", -0.0, 0.0, 0.0, 0.0, True, True),
    ("sign", 0.0, -0.0, 0.0, 0.0, True, True),
    ("sign", -0.0, -0.0, 0.0, 0.0, True, True),
]


@pytest.fixture(params=["complex64", "complex128"])
def cdtype(request: pytest.FixtureRequest) -> Iterator[np.dtype[Any]]:
    before = config.read("jax_enable_x64")
    config.update("jax_enable_x64", request.param == "complex128")
    try:
        yield np.dtype(request.param)
    finally:
        config.update("jax_enable_x64", before)


def _same(got: float, want: float, signed: bool) -> bool:
    if np.isnan(want):
        return bool(np.isnan(got))
    if signed:
        return got == want and np.signbit(got) == np.signbit(want)
    return abs(got) == abs(want)


def _close(got: float, want: float, signed: bool) -> bool:
    if np.isnan(want) or np.isinf(want) or want == 0:
        return _same(got, want, signed)
    return bool(np.isclose(abs(got) if not signed else got, want, rtol=1e-6))


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c[0]}({c[1]}{c[2]:+}j)".replace("+-", "-") for c in CASES]
)
def test_standard_special_value(case: tuple[Any, ...], cdtype: np.dtype[Any]) -> None:
    name, a, b, want_re, want_im, signed_re, signed_im = case
    z = np.array([complex(a, b)], cdtype)
    got = complex(np.asarray(getattr(tnp, name)(z))[0])
    assert _close(got.real, want_re, signed_re), (name, z, got)
    assert _close(got.imag, want_im, signed_im), (name, z, got)


def test_conjugate_inputs_follow_symmetry() -> None:
    # f(conj(z)) == conj(f(z)) holds at the special values too.
    z = np.array([complex(0.0, -INF), complex(INF, -INF), complex(-INF, -NAN)], np.complex64)
    got = np.asarray(tnp.cosh(z))
    assert np.isnan(got.real[0]) and got.imag[0] == 0
    assert np.isinf(got.real[1]) and np.isnan(got.imag[1])
    got = np.asarray(tnp.expm1(np.array([complex(-INF, -INF)], np.complex64)))
    assert got.real[0] == -1 and got.imag[0] == 0 and np.signbit(got.imag[0])


@pytest.mark.parametrize(
    ("name", "kernel"),
    [
        ("cosh", lax.cosh),
        ("sinh", lax.sinh),
        ("tanh", lax.tanh),
        ("expm1", lax.expm1),
        ("log", lax.log),
        ("log1p", lax.log1p),
        ("arctanh", lax.atanh),
        ("arcsinh", lax.asinh),
        ("arccos", lax.acos),
        ("arccosh", lax.acosh),
        ("sign", lax.sign),
    ],
)
def test_other_values_are_the_kernels(name: str, kernel: Callable[[Any], Any]) -> None:
    rng = np.random.default_rng(0)
    parts = rng.standard_normal((2, 16)).astype(np.float32) * 3
    z = (parts[0] + 1j * parts[1]).astype(np.complex64)
    z[:4] = [complex(INF, NAN), complex(NAN, 2.0), complex(1.0, INF), complex(-INF, -2.0)]
    got = np.asarray(getattr(tnp, name)(z))
    want = np.asarray(kernel(z))
    assert got.tobytes()[32:] == want.tobytes()[32:]  # past the four special inputs
    # Real inputs still bind the kernel alone.
    jaxpr = str(make_jaxpr(getattr(tnp, name))(np.ones(3, np.float32)))
    assert "select_n" not in jaxpr
