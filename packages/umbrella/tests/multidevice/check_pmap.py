"""pmap on 8 CPU devices: values against NumPy and vmap, collectives, axes, static arguments."""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st


def test_psum_normalizes_over_the_devices() -> None:
    x = np.arange(24.0, dtype=np.float32).reshape(8, 3)
    y = tx.pmap(lambda a: a / tx.lax.psum(a.sum(), "i"), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(y), x / x.sum(), rtol=1e-6)
    assert {s.device for s in y.addressable_shards} == set(tx.devices())


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 8), in_axis=st.sampled_from([0, 1]), out_axis=st.sampled_from([0, 1]))
def test_pmap_equals_vmap(n: int, in_axis: int, out_axis: int) -> None:
    x = np.random.default_rng(n).normal(size=(n, 3) if in_axis == 0 else (3, n)).astype(np.float32)

    def f(a: object, b: object) -> object:
        return tnp.sin(a) * b + tnp.sum(a)

    want = tx.vmap(f, in_axes=(in_axis, None), out_axes=out_axis)(x, np.float32(2.0))
    got = tx.pmap(f, in_axes=(in_axis, None), out_axes=out_axis)(x, np.float32(2.0))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_static_arguments_out_axes_none_and_grad() -> None:
    x = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    g = tx.pmap(lambda a, k: a * k, static_broadcasted_argnums=1)
    np.testing.assert_allclose(np.asarray(g(x, 3)), x * 3)
    mean = tx.pmap(lambda a: tx.lax.pmean(a, "j"), "j", out_axes=None)(x)
    np.testing.assert_allclose(np.asarray(mean), x.mean(0), rtol=1e-6)
    dx = tx.grad(lambda a: tx.pmap(lambda b: (b**2).sum())(a).sum())(x)
    np.testing.assert_allclose(np.asarray(dx), 2 * x)


def test_donation_example_runs() -> None:
    def update_fn(params: object, grads: object) -> object:
        return params - 0.1 * grads

    p, gr = np.ones((8, 4), np.float32), np.full((8, 4), 2.0, np.float32)
    out = tx.pmap(update_fn, donate_argnums=(0, 1))(p, gr)
    np.testing.assert_allclose(np.asarray(out), p - 0.2)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="requires 9 logical devices, but only 8"):
        tx.pmap(lambda a: a)(np.ones((9, 2)))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        tx.pmap(lambda a, b: a + b)(np.ones((4, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="one entry per positional"):
        tx.pmap(lambda a, b: a + b, in_axes=(0,))(np.ones((4, 2)), np.ones((4, 2)))


def test_repeated_calls_reuse_the_trace() -> None:
    traces: list[int] = []

    def f(a: object, k: int) -> object:
        traces.append(k)
        return a * k

    g = tx.pmap(f, static_broadcasted_argnums=1)
    x = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    for k in (3, 3, 4, 3, 4):
        np.testing.assert_allclose(np.asarray(g(x, k)), x * k)
    assert traces == [3, 4]
    y = g(g(x, 3), 4)
    np.testing.assert_allclose(np.asarray(y), x * 12)
    assert traces == [3, 4]


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 4), st.booleans())
def test_calls_on_sharded_results_keep_their_values_and_layout(steps: int, broadcast: bool) -> None:
    # From the second call on sharded arrays of one layout, pmap runs the
    # compiled program bound to that layout: every call sees its own data.
    g = tx.pmap(lambda a, b: a * 2.0 + b, in_axes=(0, None if broadcast else 0))
    rng = np.random.default_rng(steps)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    b = rng.standard_normal(3 if broadcast else (8, 3)).astype(np.float32)
    x_dev, b_dev = g(x, b), (b if broadcast else g(b, b))
    expected_x = x * 2 + b
    expected_b = b if broadcast else b * 2 + b
    for _ in range(steps + 2):
        out = g(x_dev, b_dev)
        expected = expected_x * 2 + expected_b
        np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5)
        assert out.sharding == x_dev.sharding
        x_dev, expected_x = out, expected
