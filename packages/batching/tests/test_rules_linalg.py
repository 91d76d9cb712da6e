"""vmap of the linear-algebra primitives agrees with a Python loop, at every batch axis."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest
from helpers import check
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_batching import vmap
from tessela_tracer import lax, make_jaxpr
from tessela_tracer import primitives as P

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4, 4)).astype(np.float32)
SPD = (A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4, dtype=np.float32)).astype(np.float32)
TRI = (np.tril(A) + 4 * np.eye(4, dtype=np.float32)).astype(np.float32)
B = RNG.standard_normal((3, 4, 2)).astype(np.float32)
TALL = RNG.standard_normal((3, 5, 3)).astype(np.float32)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_cholesky(in_axis: int) -> None:
    check(lax.linalg.cholesky, (in_axis,), np.moveaxis(SPD, 0, in_axis), rtol=1e-4)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_lu(in_axis: int) -> None:
    check(lax.linalg.lu, (in_axis,), np.moveaxis(TALL, 0, in_axis), rtol=1e-4)


def check_tall_and_wide(f: Any, in_axis: int) -> None:
    """``check`` on the tall matrices and on their transposes, batched at ``in_axis``."""
    check(f, (in_axis,), np.moveaxis(TALL, 0, in_axis), rtol=1e-4)
    check(f, (in_axis,), np.moveaxis(np.swapaxes(TALL, -1, -2), 0, in_axis), rtol=1e-4)


@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("in_axis", [0, 2])
def test_qr(in_axis: int, full: bool) -> None:
    check_tall_and_wide(partial(lax.linalg.qr, full_matrices=full), in_axis)


def test_nested_vmap_maps_two_batch_axes() -> None:
    x = np.stack([SPD, SPD[::-1]])
    got = vmap(vmap(lax.linalg.cholesky))(x)
    np.testing.assert_allclose(np.asarray(got), np.linalg.cholesky(x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("axes", [(0, 0), (None, 0), (None, 1), (None, 2), (0, None), (1, 2)])
def test_triangular_solve(left_side: bool, transpose_a: bool, axes: tuple[Any, Any]) -> None:
    def f(a: Any, b: Any) -> Any:
        return lax.linalg.triangular_solve(
            a, b, left_side=left_side, lower=True, transpose_a=transpose_a
        )

    rhs = B if left_side else np.swapaxes(B, -1, -2)
    a_ax, b_ax = axes
    a = TRI[0] if a_ax is None else np.moveaxis(TRI, 0, a_ax)
    b = rhs[0] if b_ax is None else np.moveaxis(rhs, 0, b_ax)
    check(f, axes, a, b, rtol=1e-4)


def test_unbatched_matrix_solves_every_member_at_once() -> None:
    def f(b: Any) -> Any:
        return lax.linalg.triangular_solve(TRI[0], b, left_side=True, lower=True)

    closed = make_jaxpr(vmap(f))(B)
    solves = [e for e in closed.eqns if e.primitive is P.triangular_solve_p]
    assert len(solves) == 1
    assert solves[0].invars[0].aval.shape == (4, 4)
    assert solves[0].invars[1].aval.shape == (4, 6)


@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_eigh(in_axis: int) -> None:
    check(lax.linalg.eigh, (in_axis,), np.moveaxis(A, 0, in_axis), rtol=1e-4)
    upper = lambda x: lax.linalg.eigh(x, lower=False, symmetrize_input=False)  # noqa: E731
    check(upper, (in_axis,), np.moveaxis(SPD, 0, in_axis), rtol=1e-4)


@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("in_axis", [0, 2])
def test_svd(in_axis: int, full: bool) -> None:
    check_tall_and_wide(partial(lax.linalg.svd, full_matrices=full), in_axis)
    values = lambda x: lax.linalg.svd(x, compute_uv=False)  # noqa: E731
    check(values, (in_axis,), np.moveaxis(TALL, 0, in_axis), rtol=1e-4)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    hnp.arrays(np.float32, (2, 3, 3, 3), elements=st.floats(-1, 1, width=32, allow_subnormal=False))
)
def test_nested_vmap_of_eigh_and_svd_matches_a_loop(x: np.ndarray) -> None:
    def f(m: Any) -> Any:
        _, w = lax.linalg.eigh(m)
        return w, lax.linalg.svd(m, compute_uv=False)

    w, s = (np.asarray(o) for o in vmap(vmap(f))(x))
    for i in range(2):
        for j in range(3):
            wi, si = (np.asarray(o) for o in f(x[i, j]))
            np.testing.assert_array_equal(w[i, j], wi)
            np.testing.assert_array_equal(s[i, j], si)
