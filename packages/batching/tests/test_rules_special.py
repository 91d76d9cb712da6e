"""The special-function family (incomplete gamma and beta, Bessel): vmap equals a Python loop."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering as tl
from helpers import check
from tessela_batching import vmap
from tessela_tracer import lax

rng = np.random.default_rng(7)


def pos(*shape: int) -> np.ndarray:
    return rng.uniform(0.2, 8.0, shape).astype(np.float32)


BINARY = [lax.igamma, lax.igammac, lax.igamma_grad_a, lax.random_gamma_grad]


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 0), (0, 1)])
def test_binary(op, in_axes) -> None:
    a = pos(3) if in_axes[0] is None else pos(3, 3)
    x = pos(3) if in_axes[1] is None else pos(3, 3)
    check(op, in_axes, a, x)


@pytest.mark.parametrize("op", [lax.bessel_i0e, lax.bessel_i1e])
@pytest.mark.parametrize("axis", [0, 1])
def test_unary(op, axis) -> None:
    check(op, axis, rng.uniform(-20, 20, (4, 5)).astype(np.float32))


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (None, 0, None), (1, None, 0)])
def test_betainc(in_axes) -> None:
    a, b = (pos(3) if ax is None else pos(3, 3) for ax in in_axes[:2])
    x = rng.uniform(0, 1, (3,) if in_axes[2] is None else (3, 3)).astype(np.float32)
    check(lax.betainc, in_axes, a, b, x)


def test_scalar_operand_broadcasts_against_the_batch() -> None:
    x = pos(5)
    got = vmap(lambda x: lax.igamma(np.float32(2.0), x))(x)
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(lax.igamma(np.full(5, 2.0, np.float32), x)), rtol=1e-5
    )


def test_vmap_under_jit_equals_eager() -> None:
    a, x = pos(4, 2), pos(4, 2)
    f = vmap(lambda a, x: lax.betainc(a, x, np.float32(0.25)))
    np.testing.assert_allclose(np.asarray(tl.jit(f)(a, x)), np.asarray(f(a, x)), rtol=1e-6)
