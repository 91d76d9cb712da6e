"""``tessela_numpy.linalg.eig`` and ``eigvals``: NumPy's eigenvalues, JAX's complex results.

JAX's own values are compared in the umbrella's ``test_linalg_more_golden.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (runs the operations)
import tessela_numpy as tnp

RNG = np.random.default_rng(5)


def _sorted(w: np.ndarray) -> np.ndarray:
    """Sorted by rounded real, then imaginary part (conjugate pairs differ in the last bits)."""
    return w[np.lexsort((np.round(w.imag, 3), np.round(w.real, 3)))]


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_matches_numpy_and_is_always_complex(dtype: type) -> None:
    a = RNG.normal(size=(2, 4, 4)).astype(dtype)
    res = tnp.linalg.eig(a)
    assert res._fields == ("eigenvalues", "eigenvectors")
    w, v = np.asarray(res.eigenvalues), np.asarray(res.eigenvectors)
    assert w.dtype == v.dtype == np.complex64
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-4)
    for m, wm in zip(a, w, strict=True):
        np.testing.assert_allclose(_sorted(wm), _sorted(np.linalg.eigvals(m)), atol=1e-4)
    np.testing.assert_allclose(np.asarray(tnp.linalg.eigvals(a)), w, atol=1e-5)


def test_integers_are_promoted_and_bad_shapes_rejected() -> None:
    w = np.asarray(tnp.linalg.eigvals(np.array([[2, 0], [0, 3]])))
    assert w.dtype == np.complex64 and sorted(w.real.tolist()) == [2.0, 3.0]
    with pytest.raises(ValueError, match="square"):
        tnp.linalg.eig(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError):
        tnp.linalg.eigvals([[1.0, 0.0], [0.0, 1.0]])
