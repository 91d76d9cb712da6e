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
    Mesh,
    NamedSharding,
    PartitionSpec,
    SingleDeviceSharding,
    auto_axes,
    get_abstract_mesh,
    make_mesh,
    make_single_device_sharding,
    reshard,
    set_mesh,
    use_abstract_mesh,
)
from tessela_lowering.spmd import any_sharded
from tessela_tracer import eval_jaxpr, get_aval, lax, make_jaxpr
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


@st.composite
def _mesh_spec_shape(draw: st.DrawFn) -> tuple[Mesh, PartitionSpec, tuple[int, ...]]:
    # A 1-D or 2-D mesh over the 8 devices (in a random order), a spec over its
    # axes for a rank-1..3 array, and a shape each split dimension divides.
    sizes = draw(st.sampled_from([(8,), (2, 4), (4, 2), (1, 8), (8, 1)]))
    names = ("a", "b")[: len(sizes)]
    types = draw(st.sampled_from([AxisType.Auto, AxisType.Explicit]))
    order = draw(st.permutations(range(8)))
    mesh = Mesh(np.array([DEVS[i] for i in order]).reshape(sizes), names, types)
    rank = draw(st.integers(1, 3))
    entries: list[list[str]] = [[] for _ in range(rank)]
    for name in draw(st.permutations(names)):
        where = draw(st.integers(-1, rank - 1))
        if where >= 0:
            entries[where].append(name)
    spec = P(*[None if not e else e[0] if len(e) == 1 else tuple(e) for e in entries])
    size_of = dict(zip(names, sizes, strict=True))
    shape = tuple(int(np.prod([size_of[a] for a in e])) * draw(st.integers(1, 3)) for e in entries)
    return mesh, spec, shape


@settings(max_examples=15, deadline=None)
@given(_mesh_spec_shape())
def test_random_meshes_and_specs_round_trip_and_compute_as_one_device(
    case: tuple[Mesh, PartitionSpec, tuple[int, ...]],
) -> None:
    mesh, spec, shape = case
    data = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    sharding = NamedSharding(mesh, spec)
    x = tl.device_put(data, sharding)
    np.testing.assert_array_equal(np.asarray(x), data)
    # Each shard is one block of the array: every dimension divided by the
    # product of the sizes of the mesh axes that split it.
    size_of = dict(zip(mesh.axis_names, mesh.axis_sizes, strict=True))
    block = tuple(
        n // int(np.prod([size_of[a] for a in spec.axes_of(d)])) for d, n in enumerate(shape)
    )
    assert sharding.shard_shape(shape) == block
    starts = set()
    for shard in x.addressable_shards:
        assert shard.data.shape == block
        np.testing.assert_array_equal(np.asarray(shard.data), data[shard.index])
        starts.add(tuple(i.start or 0 for i in shard.index))
    assert len(starts) == int(np.prod([n // b for n, b in zip(shape, block, strict=True)]))
    assert len(x.addressable_shards) == 8

    # A jitted elementwise computation and a reduction give the one-device value,
    # on the sharded array and with the sharding given as in_shardings.
    def f(a: object) -> object:
        return lax.reduce_sum(lax.mul(lax.sin(a), np.float32(2)), (0,))

    want = (np.sin(data) * 2).sum(0)
    for out in (tl.jit(f)(x), tl.jit(f, in_shardings=sharding)(data)):
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
        assert out.shape == want.shape


def test_auto_axes_with_an_abstract_values_sharding_keeps_the_layout() -> None:
    # typeof(x).sharding names no mesh in Tessela (its types carry none): as an
    # out_sharding it asks nothing, and the result reports the outer mesh's types.
    explicit = make_mesh((4, 2), ("x", "y"))
    with set_mesh(explicit):
        x = reshard(X, P("x", "y"))
        seen = []

        def f(a: object) -> object:
            seen.append(get_abstract_mesh().axis_types)
            return lax.dot_general(a, a, (((1,), (1,)), ((), ())))

        for g in (lambda a: auto_axes(f, out_sharding=get_aval(a).sharding)(a), tl.jit(
                lambda a: auto_axes(f, out_sharding=get_aval(a).sharding)(a))):  # fmt: skip
            out = g(x)
            assert out.sharding.mesh == explicit and len(out.sharding.spec) == 2
            np.testing.assert_allclose(np.asarray(out), X @ X.T)
    assert seen and all(t == (AxisType.Auto, AxisType.Auto) for t in seen)


def test_reshard_of_a_value_laid_out_alike_keeps_its_buffers() -> None:
    explicit = make_mesh((4, 2), ("x", "y"))
    x = tl.device_put(X, NamedSharding(AUTO, P("x")))
    out = reshard(x, NamedSharding(explicit, P("x")))
    assert out.sharding == NamedSharding(explicit, P("x", None))
    assert out._global is x._global  # re-described, not moved
    np.testing.assert_array_equal(np.asarray(out), X)
    moved = reshard(x, NamedSharding(explicit, P("y")))
    assert moved._global is not x._global
    np.testing.assert_array_equal(np.asarray(moved), X)
