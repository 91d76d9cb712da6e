"""Composed ``jax.lax`` names, dot algorithms, composites, tokens and ordered effects against
JAX's outputs in ``golden/lax_other_golden.npz``.

``golden/lax_other_cases.py`` runs conv_general_dilated_patches/_local,
ragged_dot(_general), broadcast_like, shape_as_value, the dot algorithm
presets, composite, platform_dependent, tokens through jit, and programs whose
ordered ``debug.print``/``debug.callback`` calls sit in loops, conds, scans and
nested jits (their printed lines, in order) through either library;
``golden/generate.py`` wrote JAX's side.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from _golden import allclose, cases_module, golden_tests, load_npz
from tessela import lax

lax_other_cases = cases_module("lax_other_cases")
GOLDEN = load_npz("lax_other_golden.npz")


def _compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
    if want.dtype.kind == "U":
        assert got.tolist() == want.tolist()
        return
    allclose(1e-5, 1e-5)(name, got, want)


test_every_case_was_recorded, test_matches_jax = golden_tests(
    lambda: lax_other_cases.run(tx), GOLDEN, _compare
)


def test_primitives_under_jax_names() -> None:
    assert lax.create_token_p.name == "create_token" and lax.after_all_p.name == "after_all"
    assert lax.copy_p.name == "copy"
    assert lax.linear_solve_p.name == "custom_linear_solve"
    assert lax.ppermute_p.name == "ppermute" and lax.all_to_all_p.name == "all_to_all"


def test_composite_lowers_to_a_stablehlo_composite() -> None:
    @functools.partial(lax.composite, name="my.tangent", version=2)
    def tangent(x, *, k=1, tag="t"):  # type: ignore[no-untyped-def]
        return tnp.sin(x) / tnp.cos(x) * k

    text = tx.jit(lambda x: tangent(x, k=3, tag="u")).lower(1.0).as_text()
    assert 'stablehlo.composite "my.tangent"' in text
    assert 'composite_attributes = {k = 3 : i64, tag = "u"}' in text
    assert "version = 2 : i32" in text
    with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
        tx.grad(tangent)(1.0)
    with pytest.raises(NotImplementedError, match="Batching rule for 'composite'"):
        tx.vmap(tangent)(tnp.ones(3))


def test_bad_inputs_raise_as_jax() -> None:
    with pytest.raises(ValueError, match="not supported by dot_general on CPU"):
        lax.dot(tnp.ones((2, 2)), tnp.ones((2, 2)), precision=lax.DotAlgorithmPreset.TF32_TF32_F32)
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        lax.broadcast_like(tnp.ones(3), tnp.ones((3, 2)))
    with pytest.raises(NotImplementedError, match="group_offset"):
        lax.ragged_dot(tnp.ones((2, 2)), tnp.ones((1, 2, 2)), tnp.array([2]), group_offset=1)
    with pytest.raises(ValueError, match="Use 'cuda' or 'rocm'"):
        lax.platform_dependent(1.0, gpu=tnp.sin)
    with pytest.raises(NotImplementedError, match="platform_index"):
        tx.jit(lambda x: lax.platform_dependent(x, tpu=tnp.sin))(1.0)
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        lax.after_all(tnp.ones(2))
