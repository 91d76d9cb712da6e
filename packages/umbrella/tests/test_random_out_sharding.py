"""``out_sharding=`` of ``tessela.random``'s samplers and ``typeof(x).sharding``, as JAX 0.10.2.

``golden/random_sharding_cases.py`` runs the same cases through either
implementation (``optax.tree_utils.tree_random_like``'s call among them);
``golden/random_sharding_golden.json`` holds JAX's results
(``golden/generate.py``).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela_tracer.sharding as tracer_sharding
from _golden import cases_module, load_json
from tessela import random
from tessela.sharding import AbstractMesh, NamedSharding, PartitionSpec

random_sharding_cases = cases_module("random_sharding_cases")
GOLDEN: dict[str, Any] = load_json("random_sharding_golden.json")
SAMPLERS = sorted(random_sharding_cases.sampler_calls(tx))


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    """Every case's result here (each sampler compiled several ways: run once, at first use)."""
    out: dict[str, Any] = random_sharding_cases.run(tx)
    return out


@pytest.mark.parametrize("case", [k for k in sorted(GOLDEN) if k != "jax_version"])
def test_case_matches_jax(ours: dict[str, Any], case: str) -> None:
    want, got = GOLDEN[case], ours[case]
    if isinstance(want, str):
        assert got == want
        return
    leaves = (got, want) if case.startswith("tree_random_like/") else ([got], [want])
    assert len(leaves[0]) == len(leaves[1])
    for g, w in zip(*leaves, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6)


def test_every_sampler_jax_gives_out_sharding_takes_it() -> None:
    assert len(SAMPLERS) == 33
    for name in SAMPLERS:
        parameter = inspect.signature(getattr(random, name)).parameters["out_sharding"]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None


@pytest.mark.parametrize("name", SAMPLERS)
def test_empty_mesh_sharding_changes_nothing(ours: dict[str, Any], name: str) -> None:
    assert ours[f"{name}/typeof"] == ours[f"{name}/plain"] == ours[f"{name}/none"]


def test_sharding_types_are_the_tracers() -> None:
    assert tx.sharding.PartitionSpec is tracer_sharding.PartitionSpec is tx.P
    assert tx.sharding.NamedSharding is tracer_sharding.NamedSharding
    assert tx.sharding.AbstractMesh is tracer_sharding.AbstractMesh
    assert tx.sharding.AxisType is tracer_sharding.AxisType
    sharding = tx.typeof(tx.numpy.ones((2, 3))).sharding
    assert sharding == NamedSharding(AbstractMesh((), ()), PartitionSpec(None, None))
    assert isinstance(sharding, tx.sharding.Sharding) and sharding.memory_kind is None


def _mesh_of_two() -> Any:
    return tx.sharding.Mesh(np.array([tx.devices()[0]] * 2, dtype=object), ("x",))


def test_multi_device_sharding_of_a_traced_sample_is_refused() -> None:
    sharding = NamedSharding(_mesh_of_two(), PartitionSpec("x"))
    with pytest.raises(NotImplementedError, match="normal: out_sharding"):
        tx.jit(lambda k: random.normal(k, (4,), out_sharding=sharding))(random.key(0))


def test_a_wrong_sharding_fails_before_sampling() -> None:
    with pytest.raises(TypeError, match="`out_sharding` argument of uniform"):
        random.uniform(random.key(0), (2,), out_sharding="x")
    with pytest.raises(ValueError, match="not under a mesh context"):
        random.uniform(random.key(0), (2,), out_sharding=PartitionSpec())
    with pytest.raises(ValueError, match="current mesh"):
        random.uniform(
            random.key(0),
            (2,),
            out_sharding=NamedSharding(AbstractMesh((2,), ("x",)), PartitionSpec()),
        )
