"""The Quickstart's "Auto-vectorization with vmap" example, imports swapped."""

from __future__ import annotations

import numpy as np
import tessela_numpy as jnp
from tessela_batching import vmap
from tessela_lowering import jit


def assert_close(actual, desired):
    """The example's check: equal to within 1e-4, absolutely and relatively."""
    np.testing.assert_allclose(actual, desired, atol=1e-4, rtol=1e-4)


def test_quickstart_auto_vectorized_with_vmap(capsys):
    rs = np.random.default_rng(1701)
    mat = rs.standard_normal((150, 100)).astype(np.float32)
    batched_x = rs.standard_normal((10, 100)).astype(np.float32)

    def apply_matrix(x):
        return jnp.dot(mat, x)

    def naively_batched_apply_matrix(v_batched):
        return jnp.stack([apply_matrix(v) for v in v_batched])

    @jit
    def batched_apply_matrix(batched_x):
        return jnp.dot(batched_x, mat.T)

    assert_close(naively_batched_apply_matrix(batched_x), batched_apply_matrix(batched_x))

    @jit
    def vmap_batched_apply_matrix(batched_x):
        return vmap(apply_matrix)(batched_x)

    assert_close(naively_batched_apply_matrix(batched_x), vmap_batched_apply_matrix(batched_x))
    print("Auto-vectorized with vmap")
    assert capsys.readouterr().out == "Auto-vectorized with vmap\n"
