"""sharding_constraint_p, with_sharding_constraint, reshard and jit's shardings, staged abstractly."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import jit, lax, make_jaxpr
from tessela_tracer.primitives import sharding_constraint_p
from tessela_tracer.sharding import (
    AbstractMesh,
    AxisType,
    NamedSharding,
    PartitionSpec,
    context_mesh,
    get_abstract_mesh,
    reshard,
    use_abstract_mesh,
    with_sharding_constraint,
)

P = PartitionSpec
MESH = AbstractMesh((4, 2), ("x", "y"))
X = np.ones((8, 4), np.float32)


def _constraints(jaxpr: object) -> list[object]:
    return [e for e in jaxpr.eqns if e.primitive is sharding_constraint_p]  # type: ignore[attr-defined]


def test_a_spec_refers_to_the_mesh_in_context() -> None:
    with use_abstract_mesh(MESH):
        assert context_mesh() is MESH and get_abstract_mesh() is MESH
        jaxpr = make_jaxpr(lambda a: with_sharding_constraint(a, P("x", P.UNCONSTRAINED)))(X)
    (eqn,) = _constraints(jaxpr)
    assert eqn.params["sharding"] == NamedSharding(MESH, P("x", P.UNCONSTRAINED))
    assert eqn.params["unconstrained_dims"] == frozenset({1})
    assert eqn.params["context_mesh"] == MESH and eqn.params["layout"] is None
    assert "sharding_constraint[" in str(jaxpr)
    assert context_mesh() is None


def test_pytrees_take_a_prefix_and_none_leaves_a_leaf_alone() -> None:
    with use_abstract_mesh(MESH):
        jaxpr = make_jaxpr(lambda t: with_sharding_constraint(t, {"a": P("x"), "b": None}))(
            {"a": X, "b": X}
        )
        assert len(_constraints(jaxpr)) == 1
        jaxpr = make_jaxpr(lambda t: with_sharding_constraint(t, P("y")))([X, X])
        assert len(_constraints(jaxpr)) == 2


def test_errors_name_the_fix() -> None:
    with pytest.raises(RuntimeError, match="requires a non-empty mesh in context"):
        with_sharding_constraint(X, P("x"))
    with use_abstract_mesh(MESH), pytest.raises(ValueError, match="rank at least 3"):
        make_jaxpr(lambda a: with_sharding_constraint(a, P("x", "y", None)))(X)
    with (
        pytest.raises(ValueError, match="Expected mesh of type `AbstractMesh`"),
        use_abstract_mesh("mesh"),  # type: ignore[arg-type]
    ):
        pass


def test_reshard_needs_explicit_axes_and_writes_the_spec_out() -> None:
    explicit = AbstractMesh((4, 2), ("x", "y"), (AxisType.Explicit,) * 2)
    with use_abstract_mesh(explicit):
        jaxpr = make_jaxpr(lambda a: reshard(a, P("y")))(X)
    (eqn,) = _constraints(jaxpr)
    assert eqn.params["sharding"].spec == P("y", None)
    with use_abstract_mesh(MESH), pytest.raises(ValueError, match="type Auto or Manual"):
        make_jaxpr(lambda a: reshard(a, P("x")))(X)


def test_jit_shardings_nest_as_constraints_on_inputs_and_outputs() -> None:
    with use_abstract_mesh(MESH):
        f = jit(lambda a, b: (lax.add(a, b), a), in_shardings=(P("x"), None),
                out_shardings=P(None, "y"))  # fmt: skip
        jaxpr = make_jaxpr(f)(X, X)
    inner = jaxpr.eqns[0].params["jaxpr"].jaxpr
    specs = [e.params["sharding"].spec for e in _constraints(inner)]
    assert specs == [P("x"), P(None, "y"), P(None, "y")]
    assert f.in_shardings == (P("x"), None) and f.out_shardings == P(None, "y")


def test_jit_sharding_options_are_checked_as_jax_does() -> None:
    with pytest.raises(TypeError, match="leaf specifications are expected"):
        jit(lambda a: a, in_shardings=3)
    f = jit(lambda a, b: a, in_shardings=(P("x"),))
    with use_abstract_mesh(MESH), pytest.raises(ValueError, match="wrong length: got a tuple"):
        make_jaxpr(f)(X, X)
    g = jit(lambda a: a, in_shardings=P("x"))
    with use_abstract_mesh(MESH), pytest.raises(ValueError, match="does not support kwargs"):
        make_jaxpr(lambda a: g(a=a))(X)
    h = jit(lambda a: a, out_shardings=(P("x"), P("x")))
    with use_abstract_mesh(MESH), pytest.raises(ValueError, match="pjit out_shardings"):
        make_jaxpr(h)(X)
    with pytest.raises(RuntimeError, match="jit requires a non-empty mesh"):
        make_jaxpr(g)(X)
