"""tessela.lax's special functions compose with jit, vmap and grad."""

from __future__ import annotations

import numpy as np
import tessela as tx
import tessela.lax as lax


def test_polygamma_and_zeta_are_reexported() -> None:
    assert {"polygamma", "zeta", "digamma"} <= set(lax.__all__)


def test_jit_of_vmap_of_grad_of_digamma_is_trigamma() -> None:
    x = np.linspace(0.5, 4.0, 6, dtype=np.float32)
    got = tx.jit(tx.vmap(tx.grad(lax.digamma)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(lax.polygamma(1.0, x)), rtol=1e-5)


def test_grad_of_zeta_in_q_is_minus_x_zeta_of_x_plus_one() -> None:
    x, q = np.float32(3.0), np.float32(1.5)
    got = tx.jit(tx.grad(lax.zeta, argnums=1))(x, q)
    want = -3.0 * float(lax.zeta(np.float32(4.0), q))
    np.testing.assert_allclose(float(got), want, rtol=1e-6)
