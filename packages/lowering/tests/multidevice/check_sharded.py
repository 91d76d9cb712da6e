"""Sharded arrays on 8 CPU devices (run by ``test_multidevice.py`` with 8 devices)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from tessela_lowering import _flags
from tessela_lowering._array import device_put_impl
from tessela_lowering._sharded import hlo_sharding_of
from tessela_lowering._spmd import spec_from_hlo
from tessela_lowering.sharding import (
    IndivisibleError,
    Mesh,
    NamedSharding,
    PartitionSpec,
    SingleDeviceSharding,
    make_array_from_callback,
    make_array_from_single_device_arrays,
    make_mesh,
)
from tessela_lowering.spmd import ShardedArray, any_sharded, run_jaxpr
from tessela_tracer import config, lax, make_jaxpr

P = PartitionSpec
DEVS = tl.devices()


def test_eight_devices() -> None:
    assert len(DEVS) == 8


def _mesh_shapes() -> st.SearchStrategy[tuple[int, ...]]:
    return st.sampled_from([(8,), (2, 4), (4, 2), (2, 2, 2), (1, 8), (2, 1, 4)])


@st.composite
def _mesh_and_spec(draw: st.DrawFn) -> tuple[Mesh, PartitionSpec, tuple[int, ...]]:
    shape = draw(_mesh_shapes())
    names = ("a", "b", "c")[: len(shape)]
    perm = draw(st.permutations(range(8)))
    mesh = Mesh(np.array([DEVS[i] for i in perm]).reshape(shape), names)
    rank = draw(st.integers(1, 3))
    entries: list[object] = [None] * rank
    for name in names:
        where = draw(st.integers(-1, rank - 1))
        if where < 0:
            continue
        current = entries[where]
        entries[where] = name if current is None else (*np.atleast_1d(current).tolist(), name)
    spec = P(*entries)
    sizes = dict(zip(names, shape, strict=True))
    dims = []
    for d in range(rank):
        parts = int(np.prod([sizes[a] for a in spec.axes_of(d)]))
        dims.append(parts * draw(st.integers(1, 2)))
    return mesh, spec, tuple(dims)


@given(_mesh_and_spec())
def test_device_put_round_trips_over_random_meshes_and_specs(
    case: tuple[Mesh, PartitionSpec, tuple[int, ...]],
) -> None:
    mesh, spec, shape = case
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    sharding = NamedSharding(mesh, spec)
    x = tl.device_put(data, sharding)
    assert x.sharding == sharding
    np.testing.assert_array_equal(np.asarray(x), data)
    indices = sharding.devices_indices_map(shape)
    for shard in x.addressable_shards:
        np.testing.assert_array_equal(np.asarray(shard.data), data[shard.index])
        assert shard.index == indices[shard.device]
        assert shard.data.devices() == {shard.device}
    # An eager operation gives the single-device value.
    np.testing.assert_allclose(np.asarray(lax.sin(x)), np.sin(data), rtol=1e-6)


@given(_mesh_and_spec(), st.sampled_from(["add", "mul", "exp", "sum0", "max_last", "neg"]))
def test_eager_ops_equal_their_single_device_values(
    case: tuple[Mesh, PartitionSpec, tuple[int, ...]], op: str
) -> None:
    mesh, spec, shape = case
    rng = np.random.default_rng(0)
    data = rng.standard_normal(shape).astype(np.float32)
    x = tl.device_put(data, NamedSharding(mesh, spec))
    single = tl.device_put(data)
    fns = {
        "add": lambda a: lax.add(a, a),
        "mul": lambda a: lax.mul(a, np.float32(3)),
        "exp": lax.exp,
        "sum0": lambda a: lax.reduce_sum(a, (0,)),
        "max_last": lambda a: lax.reduce_max(a, (a.ndim - 1,)),
        "neg": lax.neg,
    }
    got, want = fns[op](x), fns[op](single)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    assert isinstance(got.sharding, NamedSharding) and got.sharding.mesh == mesh


def test_jit_on_sharded_arguments_gives_the_single_device_value() -> None:
    mesh = make_mesh((4, 2), ("x", "y"))
    data = np.arange(32, dtype=np.float32).reshape(8, 4)
    x = tl.device_put(data, NamedSharding(mesh, P("x", "y")))
    out = tl.jit(lambda a: lax.reduce_sum(lax.mul(a, a), (1,)))(x)
    np.testing.assert_allclose(np.asarray(out), (data * data).sum(1))
    # Partitioned over the mesh as JAX does: the result stays split along "x".
    assert any_sharded([out]) and out.sharding.spec == P("x")
    assert {s.device for s in out.addressable_shards} == set(mesh.devices.flat)


def test_pytrees_split_leaf_by_leaf_and_sharded_arrays_move() -> None:
    mesh = make_mesh((8,), ("x",))
    tree = {"w": np.ones((8, 2), np.float32), "b": [np.zeros(8, np.float32)]}
    out = tl.device_put(tree, NamedSharding(mesh, P("x")))
    assert out["w"].sharding.spec == P("x") and out["b"][0].shape == (8,)
    again = tl.device_put(out["w"], NamedSharding(mesh, P("x")))
    assert again is out["w"]
    moved = tl.device_put(out["w"], NamedSharding(mesh, P()))
    assert moved.is_fully_replicated and not out["w"].is_fully_replicated
    one = tl.device_put(out["w"], SingleDeviceSharding(DEVS[5]))
    assert one.devices() == {DEVS[5]} and one.committed
    np.testing.assert_array_equal(np.asarray(one), np.ones((8, 2)))


def test_operands_on_different_meshes_are_a_value_error() -> None:
    a = tl.device_put(np.ones(4, np.float32), NamedSharding(make_mesh((4,), ("x",)), P("x")))
    other = Mesh(np.array(DEVS[4:]), ("x",))
    b = tl.device_put(np.ones(4, np.float32), NamedSharding(other, P("x")))
    with pytest.raises(ValueError, match=r"incompatible devices.*argument 0.*argument 1"):
        lax.add(a, b)
    # A value committed to a device outside the mesh does not join a computation over it;
    # an uncommitted one is replicated over it.
    one = tl.device_put(np.ones(4, np.float32), DEVS[6])
    with pytest.raises(ValueError, match=r"device ids \[6\].*leave a value\s+uncommitted"):
        lax.add(a, one)
    np.testing.assert_array_equal(np.asarray(lax.add(a, tl.device_put(np.ones(4, np.float32)))), 2)


def test_indivisible_and_unknown_axis_errors_name_the_fix() -> None:
    mesh = make_mesh((4, 2), ("x", "y"))
    with pytest.raises(IndivisibleError, match=r"shape \(6,\).*pad"):
        tl.device_put(np.ones(6, np.float32), NamedSharding(mesh, P("x")))
    with pytest.raises(ValueError, match="not found in mesh"):
        NamedSharding(mesh, P("z"))
    with pytest.raises(ValueError, match="at most 1 entries"):
        tl.device_put(np.ones(4, np.float32), NamedSharding(mesh, P("x", "y")))


def test_make_array_from_single_device_arrays_checks_its_parts() -> None:
    mesh = make_mesh((8,), ("x",))
    sharding = NamedSharding(mesh, P("x"))
    parts = [tl.device_put(np.full(2, i, np.float32), d) for i, d in enumerate(DEVS)]
    x = make_array_from_single_device_arrays((16,), sharding, parts[::-1])
    np.testing.assert_array_equal(np.asarray(x), np.repeat(np.arange(8.0), 2))
    with pytest.raises(ValueError, match="one array per device"):
        make_array_from_single_device_arrays((16,), sharding, parts[:7])
    with pytest.raises(ValueError, match="shard shape"):
        make_array_from_single_device_arrays((8,), sharding, parts)


def test_make_array_from_callback_asks_each_device_for_its_part() -> None:
    mesh = make_mesh((2, 4), ("x", "y"))
    seen: list[tuple[slice, ...]] = []
    data = np.arange(16, dtype=np.int32).reshape(4, 4)

    def part(index: tuple[slice, ...]) -> np.ndarray:
        seen.append(index)
        return data[index]

    x = make_array_from_callback((4, 4), NamedSharding(mesh, P("y", "x")), part)
    assert len(seen) == 8 and x.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(x), data)


def test_delete_and_block_until_ready() -> None:
    x = tl.device_put(np.ones(8, np.float32), NamedSharding(make_mesh((8,), ("x",)), P("x")))
    assert x.block_until_ready() is x and not x.is_deleted()
    y = x.copy()
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)
    np.testing.assert_array_equal(np.asarray(y), np.ones(8))
    assert y.sharding == NamedSharding(make_mesh((8,), ("x",)), P("x"))


def test_jit_binds_to_the_partitioned_path_for_sharded_arguments() -> None:
    # What jit does with sharded arguments once it routes them through jit_p
    # (tessela_lowering.spmd.any_sharded): XLA partitions the whole program.
    mesh = make_mesh((4, 2), ("x", "y"))
    data = np.arange(32, dtype=np.float32).reshape(8, 4)
    x = tl.device_put(data, NamedSharding(mesh, P("x", "y")))
    assert any_sharded([1.0, x]) and not any_sharded([data])
    closed = make_jaxpr(lambda a: lax.reduce_sum(lax.mul(a, a), (1,)))(data)
    (out,) = run_jaxpr(closed, [x])
    np.testing.assert_allclose(np.asarray(out), (data * data).sum(1))
    assert out.sharding == NamedSharding(mesh, P("x"))


def test_device_put_to_a_sharding_inside_a_transformation() -> None:
    # grad binds device_put_p on concrete primals: the eager implementation splits them.
    sharding = NamedSharding(make_mesh((8,), ("x",)), P("x"))
    data = np.arange(8.0, dtype=np.float32)
    out = device_put_impl(data, devices=(sharding,), srcs=(None,), copy_semantics=(None,))
    assert out[0].sharding == sharding
    np.testing.assert_array_equal(np.asarray(out[0]), data)
    np.testing.assert_array_equal(
        np.asarray(tl.jit(lambda a: tl.device_put(a, sharding))(data)), data
    )


@given(_mesh_and_spec())
def test_xla_layouts_read_back_as_the_same_partition_spec(
    case: tuple[Mesh, PartitionSpec, tuple[int, ...]],
) -> None:
    mesh, spec, shape = case
    hlo = hlo_sharding_of(NamedSharding(mesh, spec), len(shape))
    back = spec_from_hlo(hlo, mesh, len(shape))
    # The same device -> block map (an axis of size one may be named or not).

    def blocks(s: PartitionSpec) -> dict[object, tuple[tuple[int, int, int], ...]]:
        index = NamedSharding(mesh, s).devices_indices_map(shape)
        return {d: tuple(i.indices(n) for i, n in zip(ix, shape, strict=True))
                for d, ix in index.items()}  # fmt: skip

    assert blocks(back) == blocks(spec)


def _pair(mesh: Mesh, spec: PartitionSpec) -> tuple[np.ndarray, tl.Array, tl.Array]:
    data = np.arange(128, dtype=np.float32).reshape(8, 16)
    s = NamedSharding(mesh, spec)
    return data, tl.device_put(data, s), tl.device_put(data + 1, s)


def test_jit_on_sharded_arguments_takes_the_fast_path_as_the_full_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, a, b = _pair(make_mesh((8,), ("x",)), P("x"))
    traces: list[int] = []
    f = tl.jit(lambda u, v: traces.append(1) or (lax.add(lax.mul(u, np.float32(2)), v), u))
    first = f(a, b)
    assert len(f._fast) == 1  # the full call filled the fast path
    second = f(a, b)
    assert len(traces) == 1 and len(f._fast) == 1
    monkeypatch.setattr(_flags.state, "fast", False)
    full = f(a, b)
    for got in (first, second):
        for x, want in zip(got, full, strict=True):
            assert type(x) is ShardedArray and x.sharding == want.sharding
            np.testing.assert_array_equal(np.asarray(x), np.asarray(want))


def test_jit_result_specs_have_one_entry_per_dimension_over_explicit_axes() -> None:
    # As JAX 0.10.2: P('x', None) over make_mesh's Explicit axes, P('x',) over Auto ones.
    add = tl.jit(lambda u, v: lax.add(lax.mul(u, np.float32(2)), v))
    _, a, b = _pair(make_mesh((8,), ("x",)), P("x"))
    for _ in range(2):  # the full path, then the fast one
        assert repr(add(a, b).sharding.spec) == "P('x', None)"
    assert repr(tl.jit(lambda u: lax.reduce_sum(u, (0,)))(a).sharding.spec) == "P(None,)"
    assert repr(tl.jit(lambda u: lax.reduce_sum(u, (0, 1)))(a).sharding.spec) == "P()"
    assert repr(lax.add(a, b).sharding.spec) == "P('x', None)"
    _, a, b = _pair(Mesh(np.array(DEVS), ("x",)), P("x"))
    for _ in range(2):
        assert repr(add(a, b).sharding.spec) == "P('x',)"


def test_the_fast_path_on_sharded_arguments_keeps_jit_semantics() -> None:
    mesh = make_mesh((8,), ("x",))
    data, a, b = _pair(mesh, P("x"))
    traces: list[int] = []
    f = tl.jit(lambda u, v: traces.append(1) or lax.add(u, v))
    f(a, b)
    f(a, b)
    # Another sharding is another executable; a weak type traces again.
    c = tl.device_put(data, NamedSharding(mesh, P(None, "x")))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(a, c)), 2 * data)
    assert len(traces) == 1
    weak = tl.device_put(2.0, NamedSharding(mesh, P()))
    assert weak.aval.weak_type and f(weak, weak).aval.weak_type
    assert len(traces) == 2
    config.update("jax_enable_x64", True)
    try:
        wide = tl.device_put(data.astype(np.float64), NamedSharding(mesh, P("x")))
        assert f(wide, wide).dtype == np.float64 and f(wide, wide).dtype == np.float64
    finally:
        config.update("jax_enable_x64", False)
    assert len(traces) == 3 and f(a, b).dtype == np.float32 and len(traces) == 3
    # A deleted argument is the full path's error, on every call.
    errors = []
    b.delete()
    for _ in range(2):
        with pytest.raises(Exception) as info:
            f(a, b)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    # A committed argument outside the mesh stays an error after a fast call.
    small = Mesh(np.array(DEVS[:4]), ("x",))
    _, p, q = _pair(small, P("x"))
    f(p, q)
    f(p, q)
    off = tl.device_put(data + 1, DEVS[6])
    for _ in range(2):
        with pytest.raises(ValueError, match="incompatible devices"):
            f(p, off)


def test_persistent_cache_keeps_one_executable_per_device(tmp_path: Path) -> None:
    # An executable is bound to its device: one compiled for device 0 must not
    # serve a call on device 3 (jaxlib rejects the buffer).
    before = [config.read(n) for n in _CACHE_FLAGS]
    config.update("jax_compilation_cache_dir", str(tmp_path))
    config.update("jax_persistent_cache_min_compile_time_secs", 0)
    try:
        host = np.linspace(0, 1, 7, dtype=np.float32)
        f = tl.jit(lambda a: lax.sin(a) * 3.0)
        for device in (tl.devices()[0], tl.devices()[3]):
            tl.clear_caches()
            x = tl.device_put(host, device)
            for out in (lax.sin(x), f(x)):
                assert out.devices() == {device}
            np.testing.assert_allclose(np.asarray(f(x)), np.sin(host) * 3.0, rtol=1e-6)
        assert len(list(tmp_path.iterdir())) == 4  # eager sin and f, on each device
    finally:
        for name, value in zip(_CACHE_FLAGS, before, strict=True):
            config.update(name, value)


_CACHE_FLAGS = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs")
