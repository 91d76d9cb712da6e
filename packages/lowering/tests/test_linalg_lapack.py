"""eigh and svd compiled through jaxlib's LAPACK kernels, checked by their defining properties.

JAX's own values are compared in ``test_golden.py``; here random matrices drawn
by hypothesis must satisfy the decomposition identities and agree with NumPy's
eigenvalues and singular values, eagerly and under ``jit``, with leading batch
axes, for real and complex dtypes.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_lowering import _rules_linalg, _xla
from tessela_tracer import lax

settings.register_profile("lapack", max_examples=10, deadline=None, derandomize=True)
# Normal floats only: XLA flushes subnormals to zero, LAPACK does not.
ELEMS = st.floats(-1.0, 1.0, width=32, allow_subnormal=False)


def _matrices(shape: tuple[int, ...]) -> Any:
    return hnp.arrays(np.float32, shape, elements=ELEMS)


def _H(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _eye_like(x: np.ndarray) -> np.ndarray:
    return np.broadcast_to(np.eye(x.shape[-1]), x.shape)


_eigh = tl.jit(lax.linalg.eigh)
_svd = tl.jit(lax.linalg.svd, static_argnames=("full_matrices", "compute_uv", "algorithm"))


@settings(settings.get_profile("lapack"))
@given(_matrices((3, 4, 4)))
def test_eigh_reconstructs_is_orthonormal_and_matches_numpy(a: np.ndarray) -> None:
    sym = (a + np.swapaxes(a, -1, -2)) / 2
    v, w = (np.asarray(o) for o in _eigh(a))
    assert w.dtype == np.float32 and v.shape == a.shape
    np.testing.assert_allclose(_H(v) @ v, _eye_like(v), atol=1e-5)
    np.testing.assert_allclose((v * w[..., None, :]) @ _H(v), sym, atol=1e-5)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), atol=1e-5)
    assert (np.diff(w, axis=-1) >= 0).all()


def test_eigh_complex_lower_and_upper_read_one_triangle() -> None:
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))).astype(np.complex64)
    herm = (a + _H(a)) / 2
    for lower in (True, False):
        tri = np.tril(herm) if lower else np.triu(herm)
        junk = np.triu(a, 1) if lower else np.tril(a, -1)  # the triangle that must not be read
        v, w = lax.linalg.eigh(tri + junk, lower=lower, symmetrize_input=False)
        v, w = np.asarray(v), np.asarray(w)
        assert (v.dtype, w.dtype) == (np.complex64, np.float32)
        np.testing.assert_allclose((v * w[..., None, :]) @ _H(v), herm, atol=2e-5)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(herm), atol=2e-5)


@pytest.mark.usefixtures("x64")
def test_float64_matches_numpy_closely() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 5))
    _, w = lax.linalg.eigh(a)
    assert np.asarray(w).dtype == np.float64
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh((a + a.T) / 2), atol=1e-12)
    s = lax.linalg.svd(a + 1j * a.T, compute_uv=False)
    assert np.asarray(s).dtype == np.float64
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a + 1j * a.T)[1], atol=1e-12)


@settings(settings.get_profile("lapack"))
@given(_matrices((2, 5, 3)), st.booleans(), st.sampled_from([None, lax.linalg.SvdAlgorithm.QR]))
def test_svd_reconstructs_is_orthonormal_and_matches_numpy(
    a: np.ndarray, wide: bool, algorithm: Any
) -> None:
    x = np.swapaxes(a, -1, -2) if wide else a
    m, n = x.shape[-2:]
    k = min(m, n)
    u, s, vt = (np.asarray(o) for o in _svd(x, full_matrices=True, algorithm=algorithm))
    assert (u.shape, s.shape, vt.shape) == ((2, m, m), (2, k), (2, n, n))
    np.testing.assert_allclose(_H(u) @ u, _eye_like(u), atol=1e-5)
    np.testing.assert_allclose(vt @ _H(vt), _eye_like(vt), atol=1e-5)
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vt[..., :k, :], x, atol=1e-5)
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), atol=1e-5)
    ur, sr, vtr = (np.asarray(o) for o in _svd(x, full_matrices=False, algorithm=algorithm))
    assert (ur.shape, vtr.shape) == ((2, m, k), (2, k, n))
    np.testing.assert_allclose((ur * sr[..., None, :]) @ vtr, x, atol=1e-5)
    only = np.asarray(_svd(x, compute_uv=False, algorithm=algorithm))
    np.testing.assert_allclose(only, s, atol=1e-5)


def test_svd_complex() -> None:
    rng = np.random.default_rng(2)
    x = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(np.complex64)
    u, s, vt = (np.asarray(o) for o in lax.linalg.svd(x, full_matrices=False))
    assert (u.dtype, s.dtype, vt.dtype) == (np.complex64, np.float32, np.complex64)
    np.testing.assert_allclose((u * s) @ vt, x, atol=1e-5)
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), atol=1e-5)


def test_svd_of_matrices_with_a_zero_dimension() -> None:
    u, s, vt = _svd(np.zeros((2, 0, 3), np.float32), full_matrices=True)
    assert (u.shape, s.shape, vt.shape) == ((2, 0, 0), (2, 0), (2, 3, 3))
    np.testing.assert_array_equal(np.asarray(vt), np.broadcast_to(np.eye(3), (2, 3, 3)))
    u, s, vt = _svd(np.zeros((4, 0), np.float32), full_matrices=False)
    assert (u.shape, s.shape, vt.shape) == ((4, 0), (0,), (0, 0))


def test_failures_give_nan_matrices_only_where_lapack_failed() -> None:
    good = np.diag(np.arange(1, 4, dtype=np.float32))
    bad = np.full((3, 3), np.nan, np.float32)
    v, w = (np.asarray(o) for o in _eigh(np.stack([good, bad])))
    np.testing.assert_allclose(w[0], [1, 2, 3])
    assert np.isnan(w[1]).all() and np.isnan(v[1]).all()
    u, s, vt = (np.asarray(o) for o in _svd(np.stack([good, bad]), full_matrices=True))
    np.testing.assert_allclose(s[0], [3, 2, 1])
    assert np.isnan(s[1]).all() and np.isnan(u[1]).all() and np.isnan(vt[1]).all()


def test_eager_matches_jit() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 4, 4)).astype(np.float32)
    for eager, jitted in zip(lax.linalg.eigh(a), _eigh(a), strict=True):
        np.testing.assert_array_equal(np.asarray(eager), np.asarray(jitted))
    for eager, jitted in zip(lax.linalg.svd(a), _svd(a), strict=True):
        np.testing.assert_array_equal(np.asarray(eager), np.asarray(jitted))


def test_unsupported_options_raise_as_jax_does_on_cpu() -> None:
    x = np.eye(4, dtype=np.float32)
    with pytest.raises(NotImplementedError, match="subset_by_index"):
        tl.jit(lambda x: lax.linalg.eigh(x, subset_by_index=(1, 3)))(x)
    with pytest.raises(NotImplementedError, match="subset_by_index"):
        tl.jit(lambda x: lax.linalg.svd(x, full_matrices=False, subset_by_index=(0, 2)))(x)
    with pytest.raises(NotImplementedError, match="JACOBI is not supported on CPU"):
        _svd(x, algorithm=lax.linalg.SvdAlgorithm.JACOBI)
    with pytest.raises(NotImplementedError, match="JACOBI"):
        lax.linalg.eigh(x, implementation=lax.linalg.EighImplementation.JACOBI)
    with pytest.raises(NotImplementedError, match="convert the operand to float32"):
        lax.linalg.eigh(x.astype(np.float16))
    # Everything: the same as no subset.
    _, w = tl.jit(lambda x: lax.linalg.eigh(x, subset_by_index=(0, 4)))(x)
    np.testing.assert_allclose(np.asarray(w), np.ones(4))


@pytest.mark.parametrize("rule", [_rules_linalg._eigh_lowering, _rules_linalg._svd_lowering])
def test_other_platforms_raise_naming_the_platform_and_primitive(rule: Any) -> None:
    ctx = SimpleNamespace(platform="cuda")
    name = "eigh" if rule is _rules_linalg._eigh_lowering else "svd"
    with pytest.raises(NotImplementedError, match=f"The {name} primitive .* platform 'cuda'"):
        rule(ctx, None, subset_by_index=None, algorithm=None, **(
            {"lower": True, "sort_eigenvalues": True} if name == "eigh"
            else {"full_matrices": True, "compute_uv": True}
        ))  # fmt: skip


def test_lapack_targets_register_once_from_many_threads() -> None:
    results: list[list[str]] = []
    threads = [
        threading.Thread(target=lambda: results.append(_xla.register_lapack_targets()))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(r == results[0] for r in results)
    assert {"lapack_ssyevd_ffi", "lapack_zheevd_ffi", "lapack_dgesdd_ffi"} <= set(results[0])
    assert "lapack_cgesvd_ffi" in results[0]
