"""vmap of ``sharding_constraint``: the batch axis is left to the partitioner."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_batching import vmap
from tessela_tracer import make_jaxpr
from tessela_tracer.primitives import sharding_constraint_p
from tessela_tracer.sharding import (
    AbstractMesh,
    PartitionSpec,
    use_abstract_mesh,
    with_sharding_constraint,
)

P = PartitionSpec
MESH = AbstractMesh((4, 2), ("x", "y"))


@pytest.mark.parametrize(
    ("axis", "spec", "want", "dims"),
    [
        (0, P("x", P.UNCONSTRAINED), P(P.UNCONSTRAINED, "x", P.UNCONSTRAINED), {0, 2}),
        (1, P("x"), P("x", P.UNCONSTRAINED), {1}),
        (2, P("x"), P("x", None, P.UNCONSTRAINED), {2}),
    ],
)
def test_the_batch_axis_is_unconstrained(
    axis: int, spec: PartitionSpec, want: PartitionSpec, dims: set[int]
) -> None:
    shape = [8, 4]
    shape.insert(axis, 2)
    x = np.arange(64, dtype=np.float32).reshape(shape)
    f = vmap(lambda a: with_sharding_constraint(a, spec), in_axes=axis, out_axes=axis)
    with use_abstract_mesh(MESH):
        jaxpr = make_jaxpr(f)(x)
    (eqn,) = [e for e in jaxpr.eqns if e.primitive is sharding_constraint_p]
    assert eqn.params["sharding"].spec == want
    assert eqn.params["unconstrained_dims"] == frozenset(dims)
    assert jaxpr.out_avals[0].shape == tuple(shape)
