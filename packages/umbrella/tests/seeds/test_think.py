"""More examples of "Quickstart: How to think in JAX" (``004_6b97d79d98ab5523.txt``),
imports swapped, with the output the seed shows.

Examples tested elsewhere (``packages/umbrella/tests/seeds/test_quickstart.py``), not
repeated here:

- "JAX vs. NumPy": ``linspace``/``sin``/``cos`` values and ``type(x_np)`` /
  ``type(x_jnp)`` (``test_linspace_plot_values``; the seed's ``jaxlib._jax.ArrayImpl``
  is the library's own concrete class, ``tessela.Array`` here); the item-assignment
  TypeError and ``x.at[0].set(10)`` (``test_immutable_arrays_and_at_set``).
- "Array creation" and "Array devices and sharding": ``isinstance(x, jax.Array)``,
  ``x.devices()`` and ``x.sharding`` (``test_array_devices_and_sharding``).
- "Just-in-time compilation with jax.jit": ``np.allclose(norm(X), norm_compiled(X))``
  (``test_norm_jit_matches_eager``); ``get_negatives`` eager and its
  NonConcreteBooleanIndexError under jit (``test_boolean_mask_eager_and_under_jit``).
- "JIT mechanics: tracing and static variables": the tracers printed inside ``f`` and
  no print on the second call (``test_tracers_printed_inside_jit``); the jaxpr text
  (``test_make_jaxpr_text``); ``f(1, True)``'s TracerBoolConversionError and the
  ``static_argnums`` results (``test_control_flow_on_traced_value_and_static_argnums``).
- "Taking derivatives with jax.grad": ``grad(sum_logistic)``, the finite differences,
  ``grad(jit(grad(jit(grad(sum_logistic)))))(1.0)`` and ``jacobian(jnp.exp)``
  (``test_grad_finite_differences_and_nesting``); the Hessian from
  ``jacfwd(jacrev(...))`` (``test_hessian_from_jacfwd_of_jacrev``).
- "Auto-vectorization with jax.vmap()": the three batchings agree
  (``test_vmap_matches_naive_and_manual_batching``).
- "Pseudorandom numbers": the key, its reuse and three draws (``test_random_keys``).
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela.numpy as jnp
from tessela import jit, random, vmap

# Examples that cannot apply here, with the reason.
NOT_APPLICABLE = [
    (
        "'Installation': pip install jax / pip install -U \"jax[cuda12]\"",
        "shell commands installing JAX itself",
    ),
    (
        "'JAX vs. NumPy': plt.plot(x_jnp, y_jnp)",
        "matplotlib, an external library; the plotted values are tested in "
        "test_quickstart.py::test_linspace_plot_values",
    ),
]


# 004 -- "JAX vs. NumPy" (NumPy: mutable arrays)
def test_jax_vs_numpy_mutable_numpy_array(capsys: pytest.CaptureFixture[str]) -> None:
    x = np.arange(10)
    x[0] = 10
    print(x)
    assert capsys.readouterr().out == "[10  1  2  3  4  5  6  7  8  9]\n"


def norm(X):
    X = X - X.mean(0)
    return X / X.std(0)


# 004 -- "Just-in-time compilation with jax.jit" (%timeit of norm and norm_compiled;
# timings are not asserted, only that the timed statements run)
def test_just_in_time_compilation_timeit() -> None:
    norm_compiled = jit(norm)
    np.random.seed(1701)
    X = jnp.array(np.random.rand(10000, 10))
    for _ in range(3):
        norm(X).block_until_ready()
        norm_compiled(X).block_until_ready()


# 004 -- "Auto-vectorization with jax.vmap()" (the printed labels and the %timeit
# statements; timings are not asserted, only that the timed statements run)
def test_auto_vectorization_with_vmap_timeit(capsys: pytest.CaptureFixture[str]) -> None:
    key = random.key(1701)
    key1, key2 = random.split(key)
    mat = random.normal(key1, (150, 100))
    batched_x = random.normal(key2, (10, 100))

    def apply_matrix(x):
        return jnp.dot(mat, x)

    def naively_batched_apply_matrix(v_batched):
        return jnp.stack([apply_matrix(v) for v in v_batched])

    print("Naively batched")
    naively_batched_apply_matrix(batched_x).block_until_ready()

    @jit
    def batched_apply_matrix(batched_x):
        return jnp.dot(batched_x, mat.T)

    np.testing.assert_allclose(
        naively_batched_apply_matrix(batched_x),
        batched_apply_matrix(batched_x),
        atol=1e-4,
        rtol=1e-4,
    )
    print("Manually batched")
    batched_apply_matrix(batched_x).block_until_ready()

    @jit
    def vmap_batched_apply_matrix(batched_x):
        return vmap(apply_matrix)(batched_x)

    np.testing.assert_allclose(
        naively_batched_apply_matrix(batched_x),
        vmap_batched_apply_matrix(batched_x),
        atol=1e-4,
        rtol=1e-4,
    )
    print("Auto-vectorized with vmap")
    vmap_batched_apply_matrix(batched_x).block_until_ready()
    assert capsys.readouterr().out == (
        "Naively batched\nManually batched\nAuto-vectorized with vmap\n"
    )
