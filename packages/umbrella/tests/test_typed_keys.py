"""Typed PRNG keys are arrays with a key dtype, as in JAX 0.10.2.

``golden/key_cases.py`` runs the same cases through either implementation;
``golden/keys_golden.json`` holds JAX's results (``golden/generate.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela_prng
from _golden import cases_module, load_json
from tessela import random

key_cases = cases_module("key_cases")
GOLDEN: dict[str, Any] = load_json("keys_golden.json")
# Floats sampled under jit may differ from the eager bits in the last place.
CLOSE = {"jit_uniform", "jit_grad", "normal2", "checkpoint", "lax_map"}
# Known differences, asserted as they are: JAX's key arrays lack ``astype``
# (NotImplementedError); here ``astype`` is NumPy's and its conversion is refused
# with TypeError, as for ``jnp.sin(keys)``.
DIFFERENT = {"err_astype": "TypeError"}


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return key_cases.run(tx)


def test_every_case_is_in_the_golden_file(results: dict[str, Any]) -> None:
    assert GOLDEN["jax_version"] == "0.10.2"
    assert sorted(results) == sorted(k for k in GOLDEN if k != "jax_version")


@pytest.mark.parametrize("name", sorted(k for k in GOLDEN if k != "jax_version"))
def test_case_matches_jax(results: dict[str, Any], name: str) -> None:
    got, want = results[name], DIFFERENT.get(name, GOLDEN[name])
    if name in CLOSE:
        np.testing.assert_allclose(got, want, rtol=2e-6)
    elif name.startswith("err_"):
        # Every class JAX's error is an instance of, ours is too (one error class
        # may be both: mixing keys with other dtypes is JAX's ValueError where
        # dtypes are promoted and its TypeError in arithmetic).
        assert want != "no error" and set(want.split("|")) <= set(got.split("|"))
    else:
        assert got == want


def test_a_key_is_an_array_leaf_whose_bits_are_the_standalone_packages() -> None:
    k = random.key(7)
    assert isinstance(k, tx.Array) and k.shape == () and k.ndim == 0
    assert tx.tree_util.tree_leaves([k, {"a": k}]) == [k, k]
    std = tessela_prng.key(7)
    np.testing.assert_array_equal(
        np.asarray(random.key_data(random.split(k, 4))),
        np.asarray(tessela_prng.key_data(tessela_prng.split(std, 4))),
    )
    # tessela_prng keeps its own NumPy-only key type.
    assert type(std) is tessela_prng.KeyArray
    assert isinstance(tessela_prng.key_data(std), np.ndarray)


def test_keys_cross_jit_as_outputs_and_inputs_keeping_their_dtype() -> None:
    k = random.key(1)
    split = tx.jit(lambda k: random.split(k, 3))
    out = split(k)
    assert out.dtype == k.dtype and out.shape == (3,)
    again = tx.jit(lambda ks: ks[1:])(out)
    np.testing.assert_array_equal(
        np.asarray(random.key_data(again)), np.asarray(random.key_data(out))[1:]
    )


def test_raw_and_typed_keys_give_the_same_bits() -> None:
    raw, typed = random.PRNGKey(3), random.key(3)
    np.testing.assert_array_equal(
        np.asarray(random.uniform(raw, (4,))), np.asarray(random.uniform(typed, (4,)))
    )
    assert raw.dtype == np.uint32 and str(typed.dtype) == "key<fry>"
