"""The examples of "Quickstart: How to think in JAX", with the seed's output."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as jnp
import tessela_lowering
from tessela import grad, jacfwd, jacobian, jacrev, jit, make_jaxpr, random, vmap
from tessela.errors import NonConcreteBooleanIndexError, TracerBoolConversionError


def test_linspace_plot_values() -> None:
    x_jnp = jnp.linspace(0, 10, 1000)
    y_jnp = 2 * jnp.sin(x_jnp) * jnp.cos(x_jnp)
    x_np = np.linspace(0, 10, 1000)
    np.testing.assert_allclose(np.asarray(y_jnp), 2 * np.sin(x_np) * np.cos(x_np), atol=1e-5)
    assert type(x_np) is np.ndarray and type(x_jnp) is tessela_lowering.Array


def test_immutable_arrays_and_at_set(capsys: pytest.CaptureFixture[str]) -> None:
    x = jnp.arange(10)
    with pytest.raises(TypeError, match=r"immutable and do not support in-place item assignment"):
        x[0] = 10
    y = x.at[0].set(10)
    print(x)
    print(y)
    assert capsys.readouterr().out == "[0 1 2 3 4 5 6 7 8 9]\n[10  1  2  3  4  5  6  7  8  9]\n"


def test_array_devices_and_sharding() -> None:
    x = jnp.arange(5)
    assert isinstance(x, tx.Array)
    assert repr(x.devices()) == "{CpuDevice(id=0)}"
    assert (
        repr(x.sharding)
        == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=unpinned_host)"
    )


def norm(X):
    X = X - X.mean(0)
    return X / X.std(0)


def test_norm_jit_matches_eager() -> None:
    np.random.seed(1701)
    X = jnp.array(np.random.rand(10000, 10))
    assert np.allclose(norm(X), jit(norm)(X), atol=1e-6)


def test_boolean_mask_eager_and_under_jit() -> None:
    def get_negatives(x):
        return x[x < 0]

    values = np.array([0.3, -0.10570311, 1.2, -0.59403396, -0.8680282, 0.5, -0.23489487])
    x = jnp.array(values)
    assert repr(get_negatives(x)) == (
        "Array([-0.10570311, -0.59403396, -0.8680282 , -0.23489487], dtype=float32)"
    )
    with pytest.raises(NonConcreteBooleanIndexError) as info:
        jit(get_negatives)(jnp.array(np.random.randn(10)))
    assert str(info.value).startswith(
        "Array boolean indices must be concrete; got bool[10]\n\n"
        "See https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError"
    )


def test_tracers_printed_inside_jit(capsys: pytest.CaptureFixture[str]) -> None:
    @jit
    def f(x, y):
        print("Running f():")
        print(f"  x = {x}")
        print(f"  y = {y}")
        result = jnp.dot(x + 1, y + 1)
        print(f"  result = {result}")
        return result

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=4)
    out = f(x, y)
    assert capsys.readouterr().out == (
        "Running f():\n  x = JitTracer<float32[3,4]>\n  y = JitTracer<float32[4]>\n"
        "  result = JitTracer<float32[3]>\n"
    )
    np.testing.assert_allclose(np.asarray(out), (x + 1) @ (y + 1), rtol=1e-5)
    f(rng.normal(size=(3, 4)), rng.normal(size=4))
    assert capsys.readouterr().out == ""


def test_make_jaxpr_text() -> None:
    def f(x, y):
        return jnp.dot(x + 1, y + 1)

    x, y = np.random.randn(3, 4), np.random.randn(4)
    assert str(make_jaxpr(f)(x, y)) == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[3,4] = add a 1.0:f32[]\n"
        "    d:f32[4] = add b 1.0:f32[]\n"
        "    e:f32[3] = dot_general[\n"
        "      dimension_numbers=(([1], [0]), ([], []))\n"
        "      preferred_element_type=float32\n"
        "    ] c d\n"
        "  in (e,) }"
    )


def test_control_flow_on_traced_value_and_static_argnums() -> None:
    @jit
    def f(x, neg):
        return -x if neg else x

    with pytest.raises(TracerBoolConversionError) as info:
        f(1, True)
    message = str(info.value)
    assert message.startswith(
        "Attempted boolean conversion of traced array with shape bool[].\n"
        "The error occurred while tracing the function f at "
    )
    assert (
        "for jit. This concrete value was not available in Python because it depends on " in message
    )
    assert "the value of the argument neg." in message

    @partial(jit, static_argnums=(1,))
    def g(x, neg):
        return -x if neg else x

    assert repr(g(1, True)) == "Array(-1, dtype=int32, weak_type=True)"
    assert repr(g(1, False)) == "Array(1, dtype=int32, weak_type=True)"


def sum_logistic(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))


def test_grad_finite_differences_and_nesting(capsys: pytest.CaptureFixture[str]) -> None:
    x_small = jnp.arange(3.0)
    print(grad(sum_logistic)(x_small))

    def first_finite_differences(f, x, eps=1e-3):
        return jnp.array([(f(x + eps * v) - f(x - eps * v)) / (2 * eps) for v in jnp.eye(len(x))])

    fd = first_finite_differences(sum_logistic, x_small)
    print(grad(jit(grad(jit(grad(sum_logistic)))))(1.0))
    print(jacobian(jnp.exp)(x_small))
    out = capsys.readouterr().out
    assert out == (
        "[0.25       0.19661197 0.10499357]\n"
        "-0.0353256\n"
        "[[1.        0.        0.       ]\n"
        " [0.        2.7182817 0.       ]\n"
        " [0.        0.        7.389056 ]]\n"
    )
    np.testing.assert_allclose(np.asarray(fd), [0.24998187, 0.1965761, 0.10502338], atol=2e-4)


def test_hessian_from_jacfwd_of_jacrev(capsys: pytest.CaptureFixture[str]) -> None:
    def hessian(fun):
        return jit(jacfwd(jacrev(fun)))

    print(hessian(sum_logistic)(jnp.arange(3.0)))
    assert capsys.readouterr().out == (
        "[[-0.         -0.         -0.        ]\n"
        " [-0.         -0.09085776 -0.        ]\n"
        " [-0.         -0.         -0.07996249]]\n"
    )


def test_vmap_matches_naive_and_manual_batching() -> None:
    key = random.key(1701)
    key1, key2 = random.split(key)
    mat = random.normal(key1, (150, 100))
    batched_x = random.normal(key2, (10, 100))

    def apply_matrix(x):
        return jnp.dot(mat, x)

    def naively_batched_apply_matrix(v_batched):
        return jnp.stack([apply_matrix(v) for v in v_batched])

    @jit
    def batched_apply_matrix(batched_x):
        return jnp.dot(batched_x, mat.T)

    @jit
    def vmap_batched_apply_matrix(batched_x):
        return vmap(apply_matrix)(batched_x)

    naive = naively_batched_apply_matrix(batched_x)
    np.testing.assert_allclose(naive, batched_apply_matrix(batched_x), atol=1e-4, rtol=1e-4)
    np.testing.assert_allclose(naive, vmap_batched_apply_matrix(batched_x), atol=1e-4, rtol=1e-4)


def test_random_keys(capsys: pytest.CaptureFixture[str]) -> None:
    key = random.key(43)
    print(key)
    print(random.normal(key))
    print(random.normal(key))
    for i in range(3):
        new_key, subkey = random.split(key)
        del key
        val = random.normal(subkey)
        del subkey
        print(f"draw {i}: {val}")
        key = new_key  # noqa: F841
    assert capsys.readouterr().out == (
        "Array((), dtype=key<fry>) overlaying:\n[ 0 43]\n0.07520543\n0.07520543\n"
        "draw 0: -1.9133632183074951\ndraw 1: -1.4749839305877686\ndraw 2: -0.36703771352767944\n"
    )
