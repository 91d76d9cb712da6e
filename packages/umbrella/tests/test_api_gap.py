"""The JAX names added to close the API gap, against ``golden/api_golden.npz`` (JAX 0.10.2).

``golden/api_cases.py`` runs the same cases through either implementation;
``golden/generate.py`` wrote the reference side. Also the errors JAX
raises for bad input.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from _golden import cases_module, load_npz
from tessela.scipy import linalg as sl

api_cases = cases_module("api_cases")
GOLDEN = load_npz("api_golden.npz")


@pytest.fixture(scope="module")
def results() -> dict[str, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return api_cases.run(tx)


def test_every_case_is_in_the_golden_file(results: dict[str, np.ndarray]) -> None:
    assert sorted(results) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_case_matches_jax(results: dict[str, np.ndarray], name: str) -> None:
    want, got = GOLDEN[name], results[name]
    assert got.shape == want.shape, name
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_new_names_are_exported() -> None:
    for name in ("shape", "ndim", "size", "integer", "floating", "inexact", "complexfloating",
                 "iscomplexobj", "isrealobj", "append", "broadcast_shapes", "isneginf",
                 "bool", "copy", "tril_indices", "bitwise_count", "block", "isscalar"):  # fmt: skip
        assert name in tnp.__all__ and hasattr(tnp, name), name
    for name in ("typeof", "enable_x64", "flatten_util", "custom_derivatives"):
        assert name in tx.__all__, name
    assert "broadcast_shapes" in tx.lax.__all__ and "add_p" in tx.lax.__all__


def test_lax_primitives_are_the_ones_lax_functions_bind() -> None:
    jaxpr = tx.make_jaxpr(lambda x: tx.lax.add(x, x))(1.0)
    assert jaxpr.jaxpr.eqns[0].primitive is tx.lax.add_p


def test_bad_input_raises_as_jax() -> None:
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tnp.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tx.lax.broadcast_shapes((2,), (3,))
    with pytest.raises(TypeError, match="At least one shape"):
        tx.lax.broadcast_shapes()
    with pytest.raises(ValueError, match="not well defined for complex"):
        tnp.isposinf(tnp.ones(2, tnp.complex64))
    with pytest.raises(ValueError, match="does not allow tuples"):
        tnp.block((tnp.ones(1), tnp.ones(1)))
    with pytest.raises(ValueError, match="Mismatched list depths"):
        tnp.block([[tnp.ones(1)], tnp.ones(1)])
    with pytest.raises(ValueError, match="at least two-dimensional"):
        tnp.matrix_transpose(tnp.ones(3))
    with pytest.raises(ValueError, match="axis was not set"):
        tnp.cumulative_sum(tnp.ones((2, 2)))
    with pytest.raises(ValueError, match="only 2-D inputs"):
        tnp.tril_indices_from(tnp.ones(3))
    with pytest.raises(ValueError, match="nonnegative"):
        tnp.diag_indices(-1)
    with pytest.raises(ValueError, match="Invalid 'trans'"):
        sl.solve_triangular(np.eye(2), np.ones(2), trans=3)
    with pytest.raises(ValueError, match="assume_a"):
        sl.solve(np.eye(2), np.ones(2), assume_a="banded")
    with pytest.raises(NotImplementedError, match="b=None"):
        sl.eigh(np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        sl.block_diag(np.ones((1, 1, 1)))
    with pytest.raises(NotImplementedError, match="inplace=False"):
        tnp.fill_diagonal(tnp.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="one-dimensional"):
        tnp.vander(tnp.ones((2, 2)))
    with pytest.raises(ValueError, match="invalid entry"):
        tnp.ravel_multi_index((np.array([2]), np.array([0])), (2, 3))
    with pytest.raises(ValueError, match="invalid mode"):
        tnp.ravel_multi_index((np.array([1]), np.array([0])), (2, 3), mode="bad")
    with pytest.raises(TypeError, match="only int indices"):
        tnp.ravel_multi_index((np.array([1.0]), np.array([0])), (2, 3), mode="clip", dtype="int32")
    with pytest.raises(ValueError, match="non-negative"):
        tnp.resize(tnp.ones(2), (-1, 2))
    with pytest.raises(ValueError, match="start="):
        tnp.rollaxis(tnp.ones((2, 3)), 0, 5)
    with pytest.raises(TypeError, match="dtype"):
        _, unravel = tx.flatten_util.ravel_pytree((1.0, tnp.arange(2)))
        unravel(tnp.ones(3, tnp.int32))


def test_shape_queries_warn_on_lists_and_read_tracers() -> None:
    with pytest.warns(DeprecationWarning, match="shape requires ndarray or scalar"):
        assert tnp.shape([1, 2]) == (2,)
    seen = []
    tx.jit(lambda v: seen.append((tnp.shape(v), tnp.ndim(v), tnp.size(v, 0))) or v)(
        tnp.ones((3, 2))
    )
    assert seen == [((3, 2), 2, 3)]


def test_enable_x64_restores_the_flag_after_an_error() -> None:
    with pytest.raises(RuntimeError), tx.enable_x64(True):
        assert tx.enable_x64.value is True
        raise RuntimeError
    assert tx.enable_x64.value is False
    assert tx.config.read("jax_enable_x64") is False


def test_core_names_are_the_tracers_objects() -> None:
    assert type(tx.typeof(1.0)) is tx.core.ShapedArray
    assert tx.core.max_dim(2, 5) == 5 and tx.core.min_dim(2, 5) == 2
    seen = []

    @tx.jit
    def f(x: object) -> object:
        with tx.core.eval_context():
            seen.append(isinstance(tnp.cos(0.0), tx.core.Tracer))
        seen.append(isinstance(x, tx.core.Tracer))
        return x

    f(1.0)
    assert seen == [False, True]


def test_numpy_objects_are_numpys_own_as_in_jax() -> None:
    assert tnp.s_ is np.s_ and tnp.index_exp is np.index_exp
    assert tnp.ComplexWarning is np.exceptions.ComplexWarning
    assert tnp.integer is np.integer and tnp.floating is np.floating
