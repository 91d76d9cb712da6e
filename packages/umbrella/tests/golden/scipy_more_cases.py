"""More ``jax.scipy`` cases compared with the reference: special functions, linalg, stats, ...

Shared by ``generate.py`` (run under the reference implementation) and
``test_scipy_more_golden.py``. :func:`cases` takes a namespace holding the
implementation's ``lax``, ``scipy`` (with its submodules), ``grad`` and
``vmap``, and returns arrays keyed ``"<module>|<case>"``. Inputs come from
fixed NumPy generators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

F32 = np.float32


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def run(ns: Any) -> dict[str, np.ndarray]:
    """Every case's output, keyed by name, as host arrays."""
    return {k: np.asarray(v) for k, v in cases(ns).items()}


def cases(ns: Any) -> dict[str, Any]:
    """Every case's output, keyed by name (traceable: no host conversion)."""
    out: dict[str, Any] = {}
    _lax_special(out, ns.lax, ns.grad, ns.vmap)
    _special(out, ns.scipy.special, ns.grad, ns.vmap)
    _linalg(out, ns.scipy.linalg, ns.grad)
    _stats(out, ns.scipy.stats, ns.grad, ns.vmap)
    _signal_optimize_ndimage(out, ns.scipy)
    _fft_integrate_cluster(out, ns.scipy)
    _interpolate(out, ns.scipy)
    _kde(out, ns.scipy.stats.gaussian_kde)
    _faddeeva_bessel(out, ns.scipy.special, ns.grad)
    _more_matrices(out, ns.scipy.linalg)
    return out


def _lax_special(out: dict[str, Any], lax: Any, grad: Any, vmap: Any) -> None:
    r = _rng(1)
    a = np.concatenate([[0.5, 1.0, 3.0, 0.01, 25.0], r.uniform(0.1, 15.0, 11)]).astype(F32)
    x = np.concatenate([[0.2, 1.0, 30.0, 0.5, 20.0], r.uniform(0.0, 20.0, 11)]).astype(F32)
    for name in ["igamma", "igammac", "igamma_grad_a", "random_gamma_grad"]:
        out[f"lax|{name}"] = getattr(lax, name)(a, x)
    u = r.uniform(0.0, 1.0, 16).astype(F32)
    out["lax|betainc"] = lax.betainc(a, x[::-1] + F32(0.5), u)
    out["lax|bessel_i0e"] = lax.bessel_i0e(x - F32(10))
    out["lax|bessel_i1e"] = lax.bessel_i1e(x - F32(10))
    out["lax|grad_igamma"] = vmap(grad(lax.igamma, argnums=(0, 1)))(a[:8] + 0.5, x[:8] + 0.5)
    out["lax|grad_betainc_x"] = vmap(grad(lax.betainc, argnums=2))(a[:8], a[8:], u[:8])
    out["lax|grad_i0e"] = vmap(grad(lax.bessel_i0e))(x - F32(10))
    out["lax|grad_i1e"] = vmap(grad(lax.bessel_i1e))(x - F32(10))


def _special(out: dict[str, Any], special: Any, grad: Any, vmap: Any) -> None:
    r = _rng(2)
    real = np.concatenate([[-3.0, -0.5, 0.0, 0.3, 1.0, 2.5, 5.0, 12.0, 40.0, 80.0],
                           r.uniform(-10, 10, 6)]).astype(F32)  # fmt: skip
    pos = np.concatenate([[0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 9.0], r.uniform(0, 20, 8)])
    pos = pos.astype(F32)
    for name in ["i0", "i0e", "i1", "i1e", "expi", "exp1", "loggamma", "spence"]:
        out[f"special|{name}"] = getattr(special, name)(real)
    shape = np.array([[0.5], [1.0], [4.0]], F32)
    out["special|gammainc"] = special.gammainc(shape, pos)
    out["special|gammaincc"] = special.gammaincc(shape, pos)
    out["special|gammainc_int"] = special.gammainc(2, np.arange(5))
    grid = np.linspace(0.0, 1.0, 11, dtype=F32)
    out["special|betainc"] = special.betainc(np.array([[0.5], [2.0]], F32), F32(3.0), grid)
    n = np.array([[0.0], [1.0], [2.0], [3.0], [7.0]], F32)
    out["special|expn"] = special.expn(n, pos[1:9])
    out["special|bernoulli"] = special.bernoulli(12)
    out["special|bernoulli_small"] = special.bernoulli(1)
    for name in ["expi", "i0", "i1", "i0e", "i1e"]:
        out[f"grad|{name}"] = vmap(grad(getattr(special, name)))(pos[1:] + F32(0.1))
    out["grad|gammainc"] = vmap(grad(special.gammainc, argnums=(0, 1)))(pos[1:9], pos[8:] + 1)
    out["grad|expn"] = vmap(grad(lambda x: special.expn(F32(2.0), x)))(pos[1:9])
    wide = np.array([-30.0, -5.0, -1.0, -0.1, 0.0, 0.3, 1.0, 3.0, 3.3, 5.0, 6.3, 9.0, 9.5, 12.0,
                     100.0], F32)  # fmt: skip
    for name in ["erfcx", "dawsn"]:
        out[f"special|{name}"] = getattr(special, name)(wide)
        out[f"grad|{name}"] = vmap(grad(getattr(special, name)))(wide)
    out["special|erfcx_f16"] = special.erfcx(wide.astype(np.float16))


def _linalg(out: dict[str, Any], linalg: Any, grad: Any) -> None:
    r = _rng(3)
    a = r.normal(size=(4, 4)).astype(F32)
    b = r.normal(size=(4, 2)).astype(F32)
    lu, piv = linalg.lu_factor(a)
    out["linalg|lu_factor_lu"], out["linalg|lu_factor_piv"] = lu, piv
    for trans in (0, 1, 2):
        out[f"linalg|lu_solve_t{trans}"] = linalg.lu_solve((lu, piv), b, trans=trans)
    out["linalg|lu_solve_vec"] = linalg.lu_solve((lu, piv), b[:, 0])
    for i, part in enumerate(linalg.lu(a)):
        out[f"linalg|lu_{i}"] = part
    for i, part in enumerate(linalg.lu(a[:3], permute_l=True)):
        out[f"linalg|lu_wide_{i}"] = part
    out["linalg|lu_tall_u"] = linalg.lu(a[:, :3])[2]
    for scale in (0.05, 0.5, 2.0, 8.0):
        out[f"linalg|expm_{scale}"] = linalg.expm(a * F32(scale))
    out["linalg|expm_batched"] = linalg.expm(np.stack([a, a.T * F32(0.3)]))
    out["linalg|expm_triu"] = linalg.expm(np.triu(a), upper_triangular=True)
    out["linalg|expm_grad"] = grad(lambda m: linalg.expm(m).sum())(a * F32(0.3))
    u, pmat = linalg.polar(a)
    out["linalg|polar_u"], out["linalg|polar_p"] = u, pmat
    shifted = a[:3, :3] + np.eye(3, dtype=F32) * F32(4)
    out["linalg|sylvester"] = linalg.solve_sylvester(a, shifted, np.ones((4, 3), F32))
    d, e = r.normal(size=5).astype(F32), r.normal(size=4).astype(F32)
    out["linalg|eigh_tridiagonal"] = linalg.eigh_tridiagonal(d, e, eigvals_only=True)
    c = np.array([1, 2, 3], np.int32)
    rr = np.array([9, 4, 5, 6], np.int32)
    out["linalg|toeplitz"] = linalg.toeplitz(c, rr)
    out["linalg|toeplitz_sym"] = linalg.toeplitz(np.array([1.0, 2.0, 0.5], F32))
    out["linalg|toeplitz_batched"] = linalg.toeplitz(np.arange(6, dtype=F32).reshape(2, 3))
    out["linalg|hankel"] = linalg.hankel(c, rr)
    out["linalg|hankel_zeros"] = linalg.hankel(c)
    out["linalg|circulant"] = linalg.circulant(c)
    out["linalg|leslie"] = linalg.leslie(np.array([0.5, 1.0, 2.0], F32), np.array([0.2, 0.3], F32))
    out["linalg|companion"] = linalg.companion(np.array([2.0, -3.0, 1.0, 5.0], F32))
    out["linalg|fiedler"] = linalg.fiedler(np.array([1.0, 4.0, 12.0], F32))
    out["linalg|hilbert"] = linalg.hilbert(4)
    for kind in ("symmetric", "lower", "upper"):
        out[f"linalg|pascal_{kind}"] = linalg.pascal(5, kind)
    out["linalg|helmert"] = linalg.helmert(5)
    out["linalg|helmert_full"] = linalg.helmert(4, full=True)
    out["linalg|hadamard"] = linalg.hadamard(8)
    out["linalg|hadamard_f32"] = linalg.hadamard(4, dtype=F32)
    for scale in (None, "sqrtn", "n"):
        out[f"linalg|dft_{scale}"] = linalg.dft(4, scale)


def _stats(out: dict[str, Any], stats: Any, grad: Any, vmap: Any) -> None:
    r = _rng(4)
    x = np.concatenate([[-1.0, 0.0, 0.5, 1.0, 2.5, 7.0], r.uniform(0, 10, 6)]).astype(F32)
    shape = np.array([[0.5], [2.0], [5.0]], F32)
    for method in ["cdf", "logcdf", "sf", "logsf"]:
        out[f"stats|gamma.{method}"] = getattr(stats.gamma, method)(x, shape, 0.5, 1.5)
        out[f"stats|chi2.{method}"] = getattr(stats.chi2, method)(x, shape * 2, 0.0, 1.0)
        u = x / F32(10)
        out[f"stats|beta.{method}"] = getattr(stats.beta, method)(u, shape, F32(2.5), 0.0, 1.0)
    ks = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 10.0], F32)
    out["stats|poisson.cdf"] = stats.poisson.cdf(ks, np.array([[0.5], [4.0]], F32))
    mus = np.array([0.0, 0.3, 2.0, 9.5, 30.0, 150.0], F32)
    out["stats|poisson.entropy"] = stats.poisson.entropy(mus)
    z = np.linspace(-3, 3, 13, dtype=F32)
    for method in ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]:
        fn = getattr(stats.truncnorm, method)
        out[f"stats|truncnorm.{method}"] = fn(
            z,
            np.array([[-1.0], [0.5], [-9.0]], F32),
            np.array([[1.5], [4.0], [-2.0]], F32),
            0.2,
            1.3,
        )
    out["stats|vonmises.logpdf"] = stats.vonmises.logpdf(z, np.array([[0.5], [4.0]], F32))
    out["stats|vonmises.pdf"] = stats.vonmises.pdf(z, F32(2.0))
    out["stats|vonmises.bad"] = stats.vonmises.logpdf(z[:3], F32(-1.0))
    for method in ["logpdf", "pdf", "cdf"]:
        fn = getattr(stats.gennorm, method)
        out[f"stats|gennorm.{method}"] = fn(z, np.array([[0.5], [2.0], [8.0]], F32))
    data = r.normal(size=(5, 4)).astype(F32)
    out["stats|sem"] = stats.sem(data)
    out["stats|sem_all"] = stats.sem(data, axis=None, ddof=0)
    ints = np.array([[1, 2, 2, 3], [4, 4, 1, 1], [0, 5, 5, 5]], np.int32)
    res = stats.mode(ints, axis=1)
    out["stats|mode"], out["stats|mode_count"] = res.mode, res.count
    out["stats|mode_none"] = stats.mode(ints, axis=None).mode
    ties = np.array([3.0, 1.0, 3.0, 2.0, 1.0, 3.0], F32)
    for method in ["average", "min", "max", "dense", "ordinal"]:
        out[f"stats|rankdata_{method}"] = stats.rankdata(ties, method)
    out["stats|rankdata_axis"] = stats.rankdata(ints, axis=1)
    out["stats|rankdata_nan"] = stats.rankdata(np.array([1.0, np.nan], F32))
    out["stats|grad_gamma_cdf"] = vmap(grad(stats.gamma.cdf), in_axes=(0, None))(
        x[1:] + F32(1.5), F32(2.0)
    )
    out["stats|grad_truncnorm"] = vmap(grad(stats.truncnorm.logpdf), in_axes=(0, None, None))(
        z[2:-2], F32(-2.5), F32(2.5)
    )


def _rosen(x: Any) -> Any:
    return ((1.0 - x[:-1]) ** 2 + 100.0 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def _signal_optimize_ndimage(out: dict[str, Any], scipy: Any) -> None:
    r = _rng(5)
    a, b = r.normal(size=7).astype(F32), r.normal(size=3).astype(F32)
    m1, m2 = r.normal(size=(5, 4)).astype(F32), r.normal(size=(2, 3)).astype(F32)
    signal = scipy.signal
    for mode in ("full", "same", "valid"):
        out[f"signal|convolve_{mode}"] = signal.convolve(a, b, mode)
        out[f"signal|convolve_swap_{mode}"] = signal.convolve(b, a, mode)
        out[f"signal|correlate_{mode}"] = signal.correlate(a, b, mode)
        out[f"signal|fftconvolve_{mode}"] = signal.fftconvolve(a, b, mode)
        out[f"signal|convolve2d_{mode}"] = signal.convolve2d(m1, m2, mode)
        out[f"signal|correlate2d_{mode}"] = signal.correlate2d(m1, m2, mode)
        out[f"signal|correlate2d_swap_{mode}"] = signal.correlate2d(m2, m1, mode)
        out[f"signal|fftconvolve2d_{mode}"] = signal.fftconvolve(m1, m2, mode)
    out["signal|convolve_fft_method"] = signal.convolve(a, b, method="fft")
    out["signal|fftconvolve_axes"] = signal.fftconvolve(m1, np.ones((5, 2), F32), axes=1)
    out["signal|detrend"] = signal.detrend(m1, axis=0)
    out["signal|detrend_bp"] = signal.detrend(np.arange(10, dtype=F32) ** 2, bp=[4])
    out["signal|detrend_constant"] = signal.detrend(m1, type="constant")
    res = scipy.optimize.minimize(_rosen, np.array([-1.2, 1.0, 0.5], F32), method="BFGS")
    for field in ("x", "success", "status", "fun", "jac", "nfev", "njev", "nit"):
        out[f"optimize|rosen_{field}"] = getattr(res, field)
    quad = scipy.optimize.minimize(
        lambda x, c: ((x - c) ** 2).sum() + (x**4).sum(), np.ones(3, F32),
        args=(F32(2.0),), method="bfgs", options={"maxiter": 5},
    )  # fmt: skip
    out["optimize|quartic_x"], out["optimize|quartic_hess_inv"] = quad.x, quad.hess_inv
    out["optimize|quartic_status"] = quad.status
    img = np.arange(20, dtype=F32).reshape(4, 5)
    coords = [np.array([-1.2, 0.0, 0.5, 2.7, 3.9, 5.5], F32),
              np.array([0.2, -0.7, 4.5, 1.5, 3.2, 6.1], F32)]  # fmt: skip
    for order in (0, 1):
        for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
            key = f"ndimage|order{order}_{mode}"
            out[key] = scipy.ndimage.map_coordinates(img, coords, order, mode, cval=-1.0)
            out[key + "_int"] = scipy.ndimage.map_coordinates(
                img.astype(np.int32), coords, order, mode
            )


def _fft_integrate_cluster(out: dict[str, Any], scipy: Any) -> None:
    r = _rng(6)
    x = r.normal(size=(4, 5)).astype(F32)
    cube = r.normal(size=(2, 3, 4)).astype(F32)
    fft = scipy.fft
    for norm in (None, "ortho"):
        out[f"fft|dct_{norm}"] = fft.dct(x, norm=norm)
        out[f"fft|dct_axis0_n6_{norm}"] = fft.dct(x, axis=0, n=6, norm=norm)
        out[f"fft|idct_{norm}"] = fft.idct(x, norm=norm)
        out[f"fft|idct_n3_{norm}"] = fft.idct(x, n=3, norm=norm)
        out[f"fft|dctn_{norm}"] = fft.dctn(x, norm=norm)
        out[f"fft|dctn_s_{norm}"] = fft.dctn(x, s=(3, 6), norm=norm)
        out[f"fft|dctn_3d_{norm}"] = fft.dctn(cube, norm=norm)
        out[f"fft|idctn_{norm}"] = fft.idctn(x, norm=norm)
    out["fft|dct_complex"] = fft.dct(x + 1j * x[::-1])
    out["integrate|trapezoid_dx"] = scipy.integrate.trapezoid(x, dx=0.5)
    out["integrate|trapezoid_x"] = scipy.integrate.trapezoid(x, x=np.arange(4, dtype=F32), axis=0)
    code, dist = scipy.cluster.vq.vq(x, x[:2])
    out["cluster|vq_code"], out["cluster|vq_dist"] = code, dist
    code, dist = scipy.cluster.vq.vq(x[:, 0], np.array([0.0, 1.0], F32))
    out["cluster|vq1_code"], out["cluster|vq1_dist"] = code, dist


def _interpolate(out: dict[str, Any], scipy: Any) -> None:
    interp = scipy.interpolate.RegularGridInterpolator
    grid = (np.array([0.0, 1.0, 2.5, 4.0], F32), np.array([-1.0, 0.0, 1.0], F32))
    values = np.arange(12, dtype=F32).reshape(4, 3) ** 1.5
    pts = np.array([[0.5, -0.5], [2.0, 0.9], [4.5, 0.0], [-1.0, 2.0], [1.0, 0.0]], F32)
    for method in ("linear", "nearest"):
        out[f"interpolate|{method}"] = interp(grid, values, method=method)(pts)
        out[f"interpolate|{method}_extrapolate"] = interp(grid, values, method, False, None)(pts)
        out[f"interpolate|{method}_fill"] = interp(grid, values, method, fill_value=-1.0)(pts)
    out["interpolate|trailing"] = interp(grid, np.stack([values, -values], -1))(pts)
    coords = (np.array([0.5, 1.5], F32), np.array([0.0, 0.5], F32))
    out["interpolate|tuple"] = interp(grid, values)(coords)
    out["interpolate|one_axis"] = interp(grid[:1], values)(np.array([0.2, 3.0], F32))


def _kde(out: dict[str, Any], kde: Any) -> None:
    r = _rng(7)
    d1, d2 = r.normal(size=20).astype(F32), r.normal(size=(2, 15)).astype(F32)
    weights = r.uniform(0.1, 1.0, 15).astype(F32)
    pts = np.linspace(-2, 2, 5, dtype=F32)
    for bw in (None, "silverman", 0.5):
        k = kde(d1, bw)
        out[f"kde|evaluate_{bw}"], out[f"kde|logpdf_{bw}"] = k.evaluate(pts), k.logpdf(pts)
        out[f"kde|box_{bw}"], out[f"kde|covariance_{bw}"] = (
            k.integrate_box_1d(-1.0, 0.5),
            k.covariance,
        )
    k2 = kde(d2, weights=weights)
    out["kde|weighted_2d"] = k2(r.normal(size=(2, 4)).astype(F32))
    out["kde|neff"] = k2.neff
    out["kde|integrate_gaussian"] = k2.integrate_gaussian(np.zeros(2, F32), np.eye(2, dtype=F32))
    out["kde|integrate_kde"] = k2.integrate_kde(kde(d2[:, :7]))


def _faddeeva_bessel(out: dict[str, Any], special: Any, grad: Any) -> None:
    z = np.array([0.0, 1 + 1j, -2 + 0.5j, 3 - 2j, -1 - 1j, 0.3j, 10 + 10j], np.complex64)
    out["special|wofz"] = special.wofz(z)
    out["special|wofz_real"] = special.wofz(np.array([0.5, -1.0], F32))
    out["special|erfcx_complex"] = special.erfcx(z)
    out["grad|wofz_real_part"] = grad(lambda v: special.wofz(v).real)(np.complex64(1 + 1j))
    out["special|bessel_jn"] = special.bessel_jn(np.array([0.5, 1.0, 5.0, 12.0], F32), v=3)
    out["special|bessel_jn_2d"] = special.bessel_jn(np.array([[0.5, 2.0], [3.0, 4.0]], F32), v=2)


def _more_matrices(out: dict[str, Any], linalg: Any) -> None:
    coefs = np.array([2.0, -3.0, 1.0, 5.0, 0.5, 2.0], F32)
    out["linalg|fiedler_companion"] = linalg.fiedler_companion(coefs)
    out["linalg|fiedler_companion_2"] = linalg.fiedler_companion(coefs[:2])
    out["linalg|fiedler_companion_batched"] = linalg.fiedler_companion(
        np.array([[1.0, 2.0, 3.0], [2.0, 0.0, 1.0]], F32)
    )
    for mode in ("full", "same", "valid"):
        out[f"linalg|convolution_matrix_{mode}"] = linalg.convolution_matrix(coefs[:3], 4, mode)
        out[f"linalg|convolution_matrix_int_{mode}"] = linalg.convolution_matrix(
            np.arange(1, 6, dtype=np.int32), 2, mode
        )
    out["linalg|invhilbert"] = linalg.invhilbert(4)
    for kind in ("symmetric", "lower", "upper"):
        out[f"linalg|invpascal_{kind}"] = linalg.invpascal(4, kind)
