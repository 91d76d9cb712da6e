"""jit with shardings, sharding constraints and reshard on 8 CPU devices (see test_multidevice.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela_lowering.sharding import (
    AbstractMesh,
    AxisType,
    NamedSharding,
    PartitionSpec,
    SingleDeviceSharding,
    get_abstract_mesh,
    make_mesh,
    make_single_device_sharding,
    reshard,
    set_mesh,
    use_abstract_mesh,
)
from tessela_lowering.spmd import any_sharded
from tessela_tracer import eval_jaxpr, lax, make_jaxpr
from tessela_tracer.lax import with_sharding_constraint

P = PartitionSpec
DEVS = tl.devices()
AUTO = make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
X = np.arange(32, dtype=np.float32).reshape(8, 4)


def _double(a: object) -> object:
    return lax.mul(a, np.float32(2))


def test_compiled_reports_input_and_output_shardings() -> None:
    s = NamedSharding(AUTO, P("x", "y"))
    f = tl.jit(lambda a, b: lax.add(a, b), in_shardings=(s, None),
               out_shardings=NamedSharding(AUTO, P(None, "y")))  # fmt: skip
    compiled = f.lower(X, X).compile()
    args, kwargs = compiled.input_shardings
    # The unannotated argument is laid out as the partitioner chose (as in JAX).
    assert args == (s, s) and kwargs == {}
    assert compiled.output_shardings == NamedSharding(AUTO, P(None, "y"))
    out = compiled(X, X)
    assert out.sharding.spec == P(None, "y")
    np.testing.assert_array_equal(np.asarray(out), 2 * X)
    plain = tl.jit(lambda a: a).lower(X).compile()
    assert plain.input_shardings == ((SingleDeviceSharding(DEVS[0]),), {})
    assert plain.output_shardings == SingleDeviceSharding(DEVS[0])


def test_uncommitted_arguments_move_and_committed_ones_must_match() -> None:
    s = NamedSharding(AUTO, P("x"))
    f = tl.jit(_double, in_shardings=s)
    out = f(tl.device_put(X))  # uncommitted: moved to the in_sharding
    assert out.sharding == s and any_sharded([out])
    np.testing.assert_array_equal(np.asarray(out), 2 * X)
    assert f(tl.device_put(X, s)).sharding == s
    with pytest.raises(ValueError, match="does not match the sharding on the respective arg"):
        f(tl.device_put(X, DEVS[3]))
    with pytest.raises(ValueError, match="does not match"):
        f(tl.device_put(X, NamedSharding(AUTO, P("y"))))


def test_donation_on_sharded_arguments() -> None:
    s = NamedSharding(AUTO, P("x"))
    x = tl.device_put(X, s)
    out = tl.jit(_double, donate_argnums=0)(x)  # no shardings given: donated all the same
    assert x.is_deleted() and out.sharding.spec == P("x")
    np.testing.assert_array_equal(np.asarray(out), 2 * X)
    y = tl.device_put(X, s)
    f = tl.jit(_double, in_shardings=s, out_shardings=s, donate_argnums=0)
    assert "tf.aliasing_output = 0" in f.lower(y).as_text()
    np.testing.assert_array_equal(np.asarray(f(y)), 2 * X)
    assert y.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        f(y)


def test_single_device_shardings_place_arguments_and_results() -> None:
    out = tl.jit(_double, out_shardings=SingleDeviceSharding(DEVS[2]))(X)
    assert out.sharding == SingleDeviceSharding(DEVS[2]) and out.committed
    out = tl.jit(_double, in_shardings=make_single_device_sharding(DEVS[5]))(X)
    assert out.devices() == {DEVS[5]}
    np.testing.assert_array_equal(np.asarray(out), 2 * X)
    with pytest.raises(ValueError, match="memory kind"):
        make_single_device_sharding(DEVS[0], memory_kind="pinned_host")


def test_shardings_nest_under_grad_and_vmap_as_constraints() -> None:
    with set_mesh(AUTO):
        f = tl.jit(_double, in_shardings=P("x"), out_shardings=P(None, "y"))
        jaxpr = make_jaxpr(f)(X)
        inner = jaxpr.eqns[0].params["jaxpr"].jaxpr
        specs = [
            e.params["sharding"].spec
            for e in inner.eqns
            if e.primitive.name == "sharding_constraint"
        ]
        assert specs == [P("x"), P(None, "y")]
        batched = tl.jit(lambda a: lax.reduce_sum(a, (0,)))(np.stack([X, X]))
        np.testing.assert_array_equal(np.asarray(batched), 2 * X)


def test_an_eager_jit_p_with_constraints_runs_over_their_mesh() -> None:
    # What eager grad or vmap of a jitted function with shardings binds: jit_p on
    # concrete, unsharded values, its body constrained.
    with set_mesh(AUTO):
        f = tl.jit(_double, in_shardings=P("x"), out_shardings=P(None, "y"))
        closed = make_jaxpr(f)(X)
    (out,) = eval_jaxpr(closed.jaxpr, closed.consts, X)
    assert out.sharding == NamedSharding(AUTO, P(None, "y"))
    np.testing.assert_array_equal(np.asarray(out), 2 * X)


def test_with_sharding_constraint_eagerly_and_under_jit() -> None:
    s = NamedSharding(AUTO, P(None, "y"))
    out = with_sharding_constraint(X, s)  # eagerly: moved there
    assert out.sharding == s
    with set_mesh(AUTO):
        tree = with_sharding_constraint({"a": X, "b": X}, {"a": P("x"), "b": None})
        assert tree["a"].sharding.spec == P("x") and not any_sharded([tree["b"]])
        out = tl.jit(lambda a: lax.add(with_sharding_constraint(_double(a), P("x")), a))(X)
    assert out.sharding.spec == P("x")
    np.testing.assert_array_equal(np.asarray(out), 3 * X)
    with pytest.raises(ValueError, match="rank at least 3"):
        with_sharding_constraint(X, NamedSharding(AUTO, P("x", "y", None)))


def test_reshard_and_the_abstract_mesh_in_context() -> None:
    explicit = make_mesh((4, 2), ("x", "y"))
    out = reshard(X, NamedSharding(explicit, P("y")))
    assert out.sharding.spec == P("y", None)
    np.testing.assert_array_equal(np.asarray(out), X)
    with pytest.raises(ValueError, match="type Auto or Manual"):
        reshard(X, NamedSharding(AUTO, P("x")))
    abstract = AbstractMesh((2,), ("a",))
    with use_abstract_mesh(abstract):
        assert get_abstract_mesh() == abstract
    assert get_abstract_mesh().empty
    with set_mesh(AUTO):
        assert get_abstract_mesh() == AUTO.abstract_mesh


@st.composite
def _specs(draw: st.DrawFn) -> tuple[PartitionSpec, PartitionSpec]:
    def one() -> PartitionSpec:
        first = draw(st.sampled_from([None, "x", "y", ("x", "y")]))
        used = set(np.atleast_1d(first).tolist()) if first else set()
        second = draw(st.sampled_from([None] + [a for a in ("x", "y") if a not in used]))
        return P(first, second)

    return one(), one()


@settings(max_examples=10, deadline=None)
@given(_specs())
def test_any_in_and_out_sharding_gives_the_single_device_value(
    specs: tuple[PartitionSpec, PartitionSpec],
) -> None:
    spec_in, spec_out = specs
    data = np.arange(64, dtype=np.float32).reshape(8, 8)
    f = tl.jit(lambda a: lax.sin(lax.add(a, lax.transpose(a, (1, 0)))),
               in_shardings=NamedSharding(AUTO, spec_in),
               out_shardings=NamedSharding(AUTO, spec_out))  # fmt: skip
    out = f(data)
    assert out.sharding == NamedSharding(AUTO, spec_out)
    np.testing.assert_allclose(np.asarray(out), np.sin(data + data.T), rtol=1e-6)


def test_jit_with_shardings_on_sharded_arguments_takes_the_fast_path() -> None:
    s = NamedSharding(AUTO, P("x"))
    out_s = NamedSharding(AUTO, P(None, "y"))
    f = tl.jit(lambda a, b: lax.add(a, _double(b)), in_shardings=(s, None), out_shardings=out_s)
    x, y = tl.device_put(X, s), tl.device_put(X + 1, NamedSharding(AUTO, P("y")))
    results = [f(x, y) for _ in range(3)]
    assert len(f._fast) == 1  # the first call filled it
    for out in results:
        assert out.sharding == out_s
        np.testing.assert_array_equal(np.asarray(out), X + 2 * (X + 1))
    # Under a mesh context, and with a mismatched committed argument, the full path decides.
    with set_mesh(AUTO):
        assert f(x, y).sharding == out_s
    with pytest.raises(ValueError, match="does not match"):
        f(tl.device_put(X, NamedSharding(AUTO, P("y"))), y)
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(x, y)
