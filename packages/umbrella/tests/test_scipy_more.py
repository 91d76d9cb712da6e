"""Invariants, derivatives and errors of the newer ``tessela.scipy`` functions.

Values are compared with JAX in ``test_scipy_more_golden.py``; here: identities
checked with hypothesis, gradients against central differences (float64), and
the errors JAX raises.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import scipy.special as scipy_special
import tessela as tx
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela.scipy import fft, interpolate, linalg, ndimage, optimize, signal, special, stats

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True)


@pytest.fixture
def x64() -> Iterator[None]:
    tx.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        tx.config.update("jax_enable_x64", False)


def _central(f: Callable[[float], Any], x: float, h: float = 1e-6) -> float:
    return (float(f(x + h)) - float(f(x - h))) / (2 * h)


@given(a=st.floats(0.1, 20.0), x=st.floats(0.0, 40.0))
@SETTINGS
def test_gammainc_and_gammaincc_sum_to_one(a: float, x: float) -> None:
    a32, x32 = np.float32(a), np.float32(x)
    total = float(special.gammainc(a32, x32)) + float(special.gammaincc(a32, x32))
    assert total == pytest.approx(1.0, abs=2e-6)


@given(a=st.floats(0.2, 10.0), b=st.floats(0.2, 10.0), x=st.floats(0.0, 1.0))
@SETTINGS
def test_betainc_reflection(a: float, b: float, x: float) -> None:
    f32 = np.float32
    lhs = float(special.betainc(f32(a), f32(b), f32(x)))
    rhs = 1.0 - float(special.betainc(f32(b), f32(a), f32(1.0) - f32(x)))
    assert lhs == pytest.approx(rhs, abs=5e-6)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize(
    ("name", "points"),
    [("expi", [-3.0, -0.4, 0.7, 3.0, 20.0]), ("i0", [-2.0, 0.5, 4.0]), ("i1", [-2.0, 0.5, 4.0]),
     ("i0e", [-2.0, 0.5, 4.0]), ("i1e", [-2.0, 0.5, 4.0]), ("exp1", [0.3, 1.5, 6.0]),
     ("erfcx", [-2.0, 0.5, 3.0, 30.0]), ("dawsn", [-1.0, 0.5, 4.0, 8.0])],
)  # fmt: skip
def test_grad_matches_central_differences(name: str, points: list[float]) -> None:
    fn = getattr(special, name)
    for x in points:
        got = float(tx.grad(fn)(np.float64(x)))
        assert got == pytest.approx(_central(lambda v: fn(np.float64(v)), x), rel=1e-6)


@pytest.mark.usefixtures("x64")
def test_expn_and_gammainc_grads_match_central_differences() -> None:
    for x in (0.3, 1.0, 4.0):
        got = float(tx.grad(lambda v: special.expn(np.float64(3), v))(np.float64(x)))
        want = _central(lambda v: special.expn(np.float64(3), np.float64(v)), x)
        assert got == pytest.approx(want, rel=1e-6)
    ga, gx = tx.grad(special.gammainc, argnums=(0, 1))(np.float64(2.5), np.float64(1.5))
    assert float(ga) == pytest.approx(
        _central(lambda a: special.gammainc(np.float64(a), np.float64(1.5)), 2.5), rel=1e-5
    )
    assert float(gx) == pytest.approx(
        _central(lambda x: special.gammainc(np.float64(2.5), np.float64(x)), 1.5), rel=1e-6
    )


@given(seed=st.integers(0, 2**16), n=st.integers(1, 5))
@SETTINGS
def test_lu_reconstructs_and_lu_solve_solves(seed: int, n: int) -> None:
    a = np.random.default_rng(seed).normal(size=(n, n)).astype(np.float32) + 3 * np.eye(
        n, dtype=np.float32
    )
    p, lower, upper = (np.asarray(m) for m in linalg.lu(a))
    np.testing.assert_allclose(p @ lower @ upper, a, atol=1e-5)
    b = np.arange(n, dtype=np.float32) + 1
    factors = linalg.lu_factor(a)
    np.testing.assert_allclose(a @ np.asarray(linalg.lu_solve(factors, b)), b, atol=2e-4)
    np.testing.assert_allclose(a.T @ np.asarray(linalg.lu_solve(factors, b, trans=1)), b, atol=2e-4)


@given(seed=st.integers(0, 2**16), scale=st.floats(0.01, 3.0))
@SETTINGS
def test_expm_of_a_and_minus_a_are_inverses(seed: int, scale: float) -> None:
    a = (np.random.default_rng(seed).normal(size=(3, 3)) * scale).astype(np.float32)
    e, e_inv = np.asarray(linalg.expm(a)), np.asarray(linalg.expm(-a))
    # float32 rounding grows with the condition of expm(a).
    tol = 1e-5 * np.linalg.norm(e) * np.linalg.norm(e_inv)
    np.testing.assert_allclose(e @ e_inv, np.eye(3), atol=tol)


def test_expm_of_a_diagonal_matrix_is_exp_of_its_diagonal() -> None:
    d = np.array([0.5, -1.0, 2.0], np.float32)
    np.testing.assert_allclose(np.diag(np.asarray(linalg.expm(np.diag(d)))), np.exp(d), rtol=1e-6)


def test_special_matrices_have_their_structure() -> None:
    t = np.asarray(linalg.toeplitz(np.arange(4.0), np.arange(10.0, 15.0)))
    assert all(len(set(np.diagonal(t, k))) == 1 for k in range(-3, 5))
    h = np.asarray(linalg.hankel(np.arange(3), np.arange(5, 9)))
    assert all(len(set(np.fliplr(h).diagonal(k))) == 1 for k in range(-2, 4))
    helm = np.asarray(linalg.helmert(5, full=True))
    np.testing.assert_allclose(helm @ helm.T, np.eye(5), atol=1e-6)
    had = np.asarray(linalg.hadamard(8))
    np.testing.assert_array_equal(had @ had.T, 8 * np.eye(8))


def test_stats_cdf_and_sf_are_complements() -> None:
    x = np.linspace(0.1, 6.0, 7, dtype=np.float32)
    for cdf, sf in [(stats.gamma.cdf, stats.gamma.sf), (stats.chi2.cdf, stats.chi2.sf)]:
        total = np.asarray(cdf(x, 2.5)) + np.asarray(sf(x, 2.5))
        np.testing.assert_allclose(total, 1.0, atol=2e-6)
    u = x / 7
    np.testing.assert_allclose(
        np.asarray(stats.beta.cdf(u, 2.0, 3.0)) + np.asarray(stats.beta.sf(u, 2.0, 3.0)),
        1.0,
        atol=2e-6,
    )


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: special.expi(np.complex64(1)), ValueError, "complex"),
        (lambda: special.betainc(1.0, 1.0, np.complex64(0.5)), ValueError, "complex"),
        (lambda: special.spence(np.arange(3)), TypeError, "not supported"),
        (lambda: special.bernoulli(-1), ValueError, "non-negative"),
        (lambda: special.loggamma(np.complex64(1)), NotImplementedError, "complex"),
        (lambda: linalg.hadamard(6), ValueError, "power of 2"),
        (lambda: linalg.dft(4, "bad"), ValueError, "scale"),
        (lambda: linalg.expm(np.ones(3)), ValueError, "square"),
        (lambda: linalg.lu_solve(linalg.lu_factor(np.eye(2)), np.ones(2), trans=3), ValueError,
         "trans"),
        (lambda: linalg.hankel(1.0), ValueError, "1-dimensional"),
        (lambda: linalg.leslie(np.ones(3), np.ones(3)), ValueError, "one less"),
        (lambda: stats.rankdata(np.ones(3), "bogus"), ValueError, "unknown method"),
        (lambda: stats.mode(np.ones(3), nan_policy="omit"), NotImplementedError, "omit"),
        (lambda: special.dawsn(np.complex64(1)), ValueError, "complex"),
        (lambda: special.bessel_jn(np.complex64(1), v=1), ValueError, "complex"),
        (lambda: fft.dct(np.ones(3), type=3), NotImplementedError, "type 2"),
        (lambda: interpolate.RegularGridInterpolator((np.arange(3.0),), np.ones(3), "cubic"),
         ValueError, "not defined"),
        (lambda: interpolate.RegularGridInterpolator((np.arange(3.0),), np.ones(3),
                                                     bounds_error=True), NotImplementedError, "JIT"),
        (lambda: fft.idctn(np.ones((2, 2)), norm="forward"), ValueError, "norm"),
        (lambda: signal.convolve(np.ones(3), np.ones(2), method="bogus"), ValueError, "method"),
        (lambda: signal.convolve(np.ones(3), np.ones((2, 2))), ValueError, "dimensions"),
        (lambda: signal.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap"),
         NotImplementedError, "fill"),
        (lambda: signal.detrend(np.ones(4), type="quadratic"), ValueError, "Trend type"),
        (lambda: optimize.minimize(lambda x: (x**2).sum(), np.ones(2), method="CG"), ValueError,
         "not recognized"),
        (lambda: optimize.minimize(lambda x, a: (x**2).sum(), np.ones(2), args=1, method="BFGS"),
         TypeError, "tuple"),
        (lambda: ndimage.map_coordinates(np.ones((2, 2)), [np.zeros(1)], 1), ValueError, "length"),
        (lambda: ndimage.map_coordinates(np.ones(3), [np.zeros(1)], 3), NotImplementedError,
         "order"),
    ],
)  # fmt: skip
def test_bad_input_raises_as_jax_does(call: Callable[[], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


@given(seed=st.integers(0, 2**16), n=st.integers(1, 6), m=st.integers(1, 4))
@SETTINGS
def test_convolve_matches_numpy_and_fft(seed: int, n: int, m: int) -> None:
    r = np.random.default_rng(seed)
    a, b = r.normal(size=n).astype(np.float32), r.normal(size=m).astype(np.float32)
    want = np.convolve(a, b)
    np.testing.assert_allclose(np.asarray(signal.convolve(a, b)), want, atol=1e-5)
    np.testing.assert_allclose(np.asarray(signal.fftconvolve(a, b)), want, atol=1e-5)
    np.testing.assert_allclose(np.asarray(signal.correlate(a, b)), np.correlate(a, b, "full"),
                               atol=1e-5)  # fmt: skip


def test_minimize_finds_the_minimum_of_a_quadratic_under_jit() -> None:
    target = np.array([1.0, -2.0, 0.5], np.float32)

    @tx.jit
    def solve(x0: Any) -> Any:
        return optimize.minimize(lambda x: ((x - target) ** 2).sum(), x0, method="BFGS")

    res = solve(np.zeros(3, np.float32))
    np.testing.assert_allclose(np.asarray(res.x), target, atol=1e-4)
    assert bool(res.success) and int(res.status) == 0


def test_map_coordinates_at_integer_points_reads_the_array() -> None:
    img = np.arange(12, dtype=np.float32).reshape(3, 4)
    rows, cols = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    for order in (0, 1):
        got = ndimage.map_coordinates(
            img, [rows.astype(np.float32), cols.astype(np.float32)], order
        )
        np.testing.assert_array_equal(np.asarray(got), img)


@given(seed=st.integers(0, 2**16), n=st.integers(1, 7))
@SETTINGS
def test_idct_inverts_dct(seed: int, n: int) -> None:
    x = np.random.default_rng(seed).normal(size=(3, n)).astype(np.float32)
    for norm in (None, "ortho"):
        back = np.asarray(fft.idct(fft.dct(x, norm=norm), norm=norm))
        np.testing.assert_allclose(back, x, atol=2e-5 * max(1, n))


def test_gaussian_kde_resamples_near_its_data_and_is_a_pytree() -> None:
    data = np.array([[0.0, 10.0, 20.0]], np.float32)
    kde = stats.gaussian_kde(data, bw_method=0.01)
    draws = np.asarray(kde.resample(tx.random.key(0), (50,)))
    assert draws.shape == (1, 50)
    assert np.all(np.min(np.abs(draws[0][:, None] - data[0][None, :]), axis=1) < 1.0)
    leaves, tree = tx.tree_util.tree_flatten(kde)
    assert len(leaves) == 5
    np.testing.assert_allclose(np.asarray(tx.tree_util.tree_unflatten(tree, leaves).pdf(5.0)),
                               np.asarray(kde.pdf(5.0)))  # fmt: skip
    with pytest.raises(NotImplementedError, match="integrate_box_1d"):
        kde.integrate_box([0.0], [1.0])


def test_bessel_jn_matches_scipy_and_wofz_matches_erfcx_on_the_imaginary_axis() -> None:
    z = np.array([5.0, 9.0, 12.0], np.float32)
    got = np.asarray(special.bessel_jn(z, v=2))
    want = np.stack([scipy_special.jv(k, z) for k in range(3)])
    np.testing.assert_allclose(got, want, atol=2e-5)
    y = np.array([0.5, 1.5, 3.0], np.float32)
    np.testing.assert_allclose(np.asarray(special.wofz(1j * y)).real,
                               np.asarray(special.erfcx(y)), rtol=1e-5)  # fmt: skip


@given(seed=st.integers(0, 2**16), n=st.integers(1, 5))
@SETTINGS
def test_convolution_matrix_convolves_and_inverses_invert(seed: int, n: int) -> None:
    r = np.random.default_rng(seed)
    a, v = r.normal(size=3).astype(np.float32), r.normal(size=n).astype(np.float32)
    for mode in ("full", "same", "valid"):
        mat = np.asarray(linalg.convolution_matrix(a, n, mode))
        np.testing.assert_allclose(mat @ v, np.convolve(a, v, mode), atol=1e-5)
    np.testing.assert_allclose(
        np.asarray(linalg.invpascal(n)) @ np.asarray(linalg.pascal(n)), np.eye(n), atol=1e-3
    )


def test_eager_expm_is_one_program_with_its_step_by_step_value(
    caplog: pytest.LogCaptureFixture,
) -> None:
    a = np.random.default_rng(5).standard_normal((3, 3)).astype(np.float32) / 3
    before = tx.config.read("jax_log_compiles")
    tx.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="tessela_lowering"):
            got = linalg.expm(a, max_squarings=11)  # a static value no other test uses
            linalg.expm(a, max_squarings=11)
    finally:
        tx.config.update("jax_log_compiles", before)
    assert caplog.text.count("Finished XLA compilation") == 1, caplog.text
    with tx.disable_jit():
        own = linalg.expm(a, max_squarings=11)
    np.testing.assert_allclose(np.asarray(got), np.asarray(own), rtol=1e-5, atol=1e-6)
