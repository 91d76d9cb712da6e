"""Wrong results that real clients' suites found, kept as regression tests.

Each case passes on JAX 0.10.2 and gave a different result on Tessela when
found. A case whose fix belongs to another package stays ``xfail(strict=True)``
naming the owner, so that the fix flips it to a failure here and the marker is
removed with the fix.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("fill", "dtype", "want_dtype", "weak"),
    [(-29, None, "int32", True), (2.5, None, "float32", True), (-29, tnp.int8, "int8", False)],
)
def test_full_of_empty_shape_is_an_array(
    fill: float, dtype: object, want_dtype: str, weak: bool
) -> None:
    out = tnp.full((), fill, dtype=dtype)
    assert isinstance(out, tx.Array)
    assert (str(out.dtype), out.weak_type, float(out)) == (want_dtype, weak, float(fill))


def test_full_of_nonempty_shape_is_an_array() -> None:
    out = tnp.full((1,), -29)
    assert isinstance(out, tx.Array)
    assert (str(out.dtype), out.weak_type) == ("int32", True)
    np.testing.assert_array_equal(np.asarray(out), [-29])


def test_a_tracer_is_an_array_instance() -> None:
    seen: list[bool] = []
    tx.jit(lambda x: seen.append(isinstance(x, tx.Array)) or x)(tnp.ones(2))
    assert seen == [True]


def test_full_like_accepts_a_shape_dtype_struct() -> None:
    out = tnp.full_like(tx.ShapeDtypeStruct((2, 3), np.float32), 1.5)
    assert out.shape == (2, 3) and str(out.dtype) == "float32"
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 1.5, np.float32))


def test_loops_promote_weak_carries_as_jax() -> None:
    out = tx.lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0)
    assert (str(out.dtype), out.weak_type, float(out)) == ("float32", False, 3.0)
    out = tx.lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)
    assert (str(out.dtype), float(out)) == ("float32", 1.5)


@given(lo=st.integers(-3, 3), n=st.integers(0, 5), unroll=st.sampled_from([1, 2, 3, True]))
@settings(max_examples=15, deadline=None)
def test_fori_loop_unroll_matches_the_python_loop(lo: int, n: int, unroll: int | bool) -> None:
    out = tx.lax.fori_loop(lo, lo + n, lambda i, c: c * 2 + i, 1, unroll=unroll)
    want = 1
    for i in range(lo, lo + n):
        want = want * 2 + i
    assert int(out) == want


def test_cond_without_operands_runs_under_jit() -> None:
    f = tx.jit(lambda p: tx.lax.cond(p, lambda: tnp.float32(1), lambda: tnp.float32(2)))
    assert (float(f(True)), float(f(False))) == (1.0, 2.0)


@pytest.mark.parametrize("jit", [False, True])
def test_vmap_over_no_examples_gathers_nothing(jit: bool) -> None:
    # optax's hungarian_algorithm under vmap of a (0, n, m) batch: JAX returns empty results.
    def f(x: object) -> object:
        return tnp.take(x, tnp.array([0, 2])) + x[1:][tnp.argmax(x)]

    g = tx.jit(tx.vmap(f)) if jit else tx.vmap(f)
    out = g(tnp.zeros((0, 4)))
    assert out.shape == (0, 2) and str(out.dtype) == "float32"
