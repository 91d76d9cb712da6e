"""``roots`` against JAX 0.10.2 (golden/roots_cases.py, roots_golden.npz)."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from conftest import GOLDEN_DIR
from roots_cases import CASES
from tessela_lowering import jit
from tessela_tracer.errors import ConcretizationTypeError

GOLDEN = np.load(GOLDEN_DIR / "roots_golden.npz")


@pytest.mark.parametrize("name", sorted(CASES))
def test_roots_as_jax(name: str) -> None:
    coeffs, dtype, strip_zeros = CASES[name]
    got = np.sort_complex(np.asarray(tnp.roots(np.array(coeffs, dtype), strip_zeros=strip_zeros)))
    want = GOLDEN[name]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def test_roots_under_jit() -> None:
    p = np.array([0.0, 1.0, -3.0, 2.0], np.float32)
    with pytest.raises(ConcretizationTypeError, match="strip_zeros=False"):
        jit(tnp.roots)(p)
    got = np.asarray(jit(lambda c: tnp.roots(c, strip_zeros=False))(p))
    assert np.isnan(got[-1]) and np.allclose(np.sort_complex(got[:2]), [1.0, 2.0])
    with pytest.raises(ValueError, match="rank-1"):
        tnp.roots(np.ones((2, 2), np.float32))
