"""JVP and transpose of ``sharding_constraint``: the same constraint on tangents and cotangents."""

from __future__ import annotations

import numpy as np
from tessela_autodiff import grad, jvp, linear_transpose
from tessela_tracer import lax, make_jaxpr
from tessela_tracer.primitives import sharding_constraint_p
from tessela_tracer.sharding import (
    AbstractMesh,
    NamedSharding,
    PartitionSpec,
    use_abstract_mesh,
    with_sharding_constraint,
)

P = PartitionSpec
MESH = AbstractMesh((4, 2), ("x", "y"))
SPEC = P(None, "y")


def _specs(jaxpr: object) -> list[PartitionSpec]:
    eqns = jaxpr.eqns  # type: ignore[attr-defined]
    return [e.params["sharding"].spec for e in eqns if e.primitive is sharding_constraint_p]


def test_jvp_constrains_the_tangent_too() -> None:
    x = np.ones((8, 4), np.float32)
    f = lambda a: with_sharding_constraint(lax.mul(a, a), SPEC)  # noqa: E731
    with use_abstract_mesh(MESH):
        jaxpr = make_jaxpr(lambda p, t: jvp(f, (p,), (t,)))(x, x)
    assert _specs(jaxpr) == [SPEC, SPEC]


def test_grad_transposes_to_the_same_constraint() -> None:
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    f = lambda a: lax.reduce_sum(with_sharding_constraint(lax.mul(a, a), SPEC), (0, 1))  # noqa: E731
    with use_abstract_mesh(MESH):
        jaxpr = make_jaxpr(grad(f))(x)
    assert _specs(jaxpr)[-1] == SPEC
    sharding = NamedSharding(MESH, SPEC)
    with use_abstract_mesh(MESH):
        t_jaxpr = make_jaxpr(
            lambda ct: linear_transpose(lambda a: with_sharding_constraint(a, sharding), x)(ct)
        )(x)
    assert _specs(t_jaxpr) and set(_specs(t_jaxpr)) == {SPEC}
