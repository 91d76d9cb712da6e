"""The newer ``jax.lax`` names against JAX's outputs in ``golden/lax_more_golden.npz``.

``golden/lax_more_cases.py`` runs mulhi, reduce_xor, scatter_sub (with its
gradient and batching), scatter_apply, index_take, approx_max_k/approx_min_k,
empty and axis_size through either library; ``golden/generate.py``
wrote JAX's side.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from _golden import allclose, cases_module, golden_tests, load_npz
from tessela import lax

lax_more_cases = cases_module("lax_more_cases")
GOLDEN = load_npz("lax_more_golden.npz")


def _compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
    if name == "empty/shape_dtype":  # the platform's default integer
        got, want = got.astype(np.int64), want.astype(np.int64)
    allclose(1e-6, 1e-6)(name, got, want)


test_every_case_was_recorded, test_matches_jax = golden_tests(
    lambda: lax_more_cases.run(tx), GOLDEN, _compare
)


def test_primitives_under_jax_names() -> None:
    assert lax.mulhi_p.name == "mulhi" and lax.scatter_sub_p.name == "scatter-sub"
    text = str(tx.make_jaxpr(lax.mulhi)(np.uint32(3), np.uint32(5)))
    assert text == "{ lambda ; a:u32[] b:u32[]. let c:u32[] = mulhi a b in (c,) }"


def test_bad_inputs_raise_as_jax() -> None:
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.axis_size("i")
    with pytest.raises(ValueError, match="operand must be a floating type"):
        lax.approx_min_k(tnp.arange(3), 2)
    with pytest.raises(TypeError):
        lax.mulhi(tnp.ones(2), tnp.ones(2))  # JAX: mulhi takes integers only


def test_mulhi_has_a_zero_derivative() -> None:
    def f(x: tnp.ndarray) -> tnp.ndarray:
        hi = lax.mulhi(x.astype(tnp.int32), tnp.full((2,), 7, tnp.int32))
        return (x * hi.astype(x.dtype)).sum()

    np.testing.assert_array_equal(np.asarray(tx.grad(f)(tnp.array([3.0, 5.0]))), [0.0, 0.0])


def test_rng_bit_generator_batches_per_key_and_has_zero_derivatives() -> None:
    keys = tnp.asarray(np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint32))
    batched = tx.vmap(lambda k: lax.rng_bit_generator(k, (3,))[1])(keys)
    one_by_one = [np.asarray(lax.rng_bit_generator(k, (3,))[1]) for k in keys]
    np.testing.assert_array_equal(np.asarray(batched), np.stack(one_by_one))
    scalar = float(lax.rng_bit_generator(keys[0], ())[1])

    def scaled(x: tnp.ndarray) -> tnp.ndarray:
        return x * lax.rng_bit_generator(keys[0], ())[1].astype(tnp.float32)

    # d/dx (x * bits) is the bits: the bits themselves have a zero derivative.
    assert float(tx.grad(scaled)(1.0)) == np.float32(scalar)


def test_rng_bit_generator_and_rng_uniform_refuse_what_jax_refuses() -> None:
    key = tnp.zeros(4, tnp.uint32)
    with pytest.raises(TypeError, match="rng_bit_generator: unsupported dtype int32"):
        lax.rng_bit_generator(key, (3,), tnp.int32)
    with pytest.raises(TypeError, match="key must be uint32"):
        lax.rng_bit_generator(tnp.zeros(3, tnp.uint32), (3,))
    with pytest.raises(ValueError, match="must have identical dtypes"):
        lax.rng_uniform(0.0, tnp.int32(1), (2,))
    with pytest.raises(NotImplementedError, match="rng_uniform"):
        tx.grad(lambda a: lax.rng_uniform(a, 1.0, ()))(0.0)


def test_rng_uniform_stays_in_range() -> None:
    u = np.asarray(lax.rng_uniform(2.0, 3.0, (50,)))
    assert u.shape == (50,) and str(u.dtype) == "float32" and ((u >= 2.0) & (u < 3.0)).all()
