"""Donation that JAX 0.10.2 performs through transformations and closures is performed here too.

A donating jit under ``vmap`` or ``grad`` still donates its (primal) argument,
and an array that is both closed over and passed to a donating jit is donated:
each argument is deleted after the call, and the results are right.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp


def _double() -> object:
    return tx.jit(lambda a: a * 2, donate_argnums=0)


def test_donating_jit_under_vmap_donates() -> None:
    x = tnp.ones((4, 3))
    out = tx.vmap(_double())(x)
    assert x.is_deleted()
    np.testing.assert_array_equal(np.asarray(out), np.full((4, 3), 2.0, np.float32))


def test_donating_jit_under_grad_donates_the_primal() -> None:
    f = _double()
    x = tnp.arange(3.0)
    g = tx.grad(lambda a: (f(a) ** 2).sum())(x)
    assert x.is_deleted()
    np.testing.assert_allclose(np.asarray(g), 8 * np.arange(3.0))


def test_an_array_closed_over_and_donated_is_donated() -> None:
    x = tnp.ones((3,))
    out = tx.jit(lambda a: a + x, donate_argnums=0)(x)
    assert x.is_deleted()
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0, np.float32))
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)


def test_transformations_without_donation_keep_their_arguments() -> None:
    f = tx.jit(lambda a: a * 2)
    x = tnp.ones((2, 3))
    tx.vmap(f)(x)
    tx.grad(lambda a: f(a).sum())(x[0])
    assert not x.is_deleted()
