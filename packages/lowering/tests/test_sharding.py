"""Meshes, partition specs and named shardings answer as JAX 0.10.2's (golden output)."""

from __future__ import annotations

import pickle

import _golden_scripts
import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from tessela_lowering.sharding import (
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    Sharding,
    get_abstract_mesh,
    get_mesh,
    make_mesh,
    set_mesh,
)
from tessela_lowering.spmd import ShardedArray
from tessela_tracer import lax


def test_queries_match_jax_golden_output() -> None:
    out = _golden_scripts.run("sharding_queries", devices=4, check=True)
    want = (_golden_scripts.GOLDEN / "sharding_queries.txt").read_text().splitlines()
    assert out.stdout.splitlines() == want


def test_partition_spec_is_a_hashable_picklable_value() -> None:
    p = PartitionSpec("x", None, ("a", "b"), unreduced={"u"})
    assert pickle.loads(pickle.dumps(p)) == p
    assert hash(p) == hash(PartitionSpec("x", None, ["a", "b"], unreduced=frozenset({"u"})))
    assert list(p) == ["x", None, ("a", "b")] and p.index(None) == 1 and p.count("x") == 1
    assert p != ("x", None, ("a", "b"))


def test_single_device_sharding_is_a_sharding() -> None:
    assert isinstance(tl.device_put(1.0).sharding, Sharding)


def test_set_mesh_is_a_context_and_restores_the_previous_mesh() -> None:
    assert get_mesh().empty and get_abstract_mesh().empty
    mesh = make_mesh((1,), ("x",))
    assert mesh.axis_types == (AxisType.Explicit,)
    with set_mesh(mesh) as m:
        assert m is mesh and get_mesh() is mesh
        assert get_abstract_mesh() == mesh.abstract_mesh
    assert get_mesh().empty
    with pytest.raises(TypeError, match="make_mesh"):
        set_mesh("x")  # type: ignore[arg-type]


def test_make_mesh_refuses_more_devices_than_there_are() -> None:
    with pytest.raises(ValueError, match="devices"):
        make_mesh((len(tl.devices()) + 1,), ("x",))


@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.data())
def test_devices_indices_map_tiles_the_array_exactly_once(sizes: list[int], data) -> None:
    """Each element of the array lands on every device of its replica group, once per group."""
    devs = np.empty(int(np.prod(sizes)), dtype=object)
    devs[:] = [object() for _ in range(devs.size)]
    names = tuple(f"a{i}" for i in range(len(sizes)))
    mesh = Mesh(devs.reshape(sizes), names)
    order = data.draw(st.permutations(names))
    split = data.draw(st.integers(0, len(names)))
    spec = PartitionSpec(tuple(order[:split]) or None)
    sharding = NamedSharding(mesh, spec)
    n = int(np.prod([mesh.shape[a] for a in order[:split]])) * 2
    counts = np.zeros((n, 3), int)
    for index in sharding.devices_indices_map((n, 3)).values():
        counts[index] += 1
    assert (counts == mesh.size // (n // 2)).all()
    assert sharding.is_fully_replicated == (n == 2)


def test_a_sharded_array_over_one_device_behaves_as_its_value() -> None:
    mesh = Mesh(np.array(tl.devices()[:1]), ("x",))
    x = tl.device_put(np.arange(4.0, dtype=np.float32), NamedSharding(mesh, PartitionSpec("x")))
    assert isinstance(x, ShardedArray) and x.sharding.spec == PartitionSpec("x")
    assert [s.index for s in x.addressable_shards] == [(slice(0, 4),)]
    y = lax.add(x, x)
    assert isinstance(y, ShardedArray) and y.sharding.mesh == mesh
    np.testing.assert_array_equal(np.asarray(y), [0.0, 2.0, 4.0, 6.0])
    np.testing.assert_array_equal(tl.jit(lambda a: lax.mul(a, a))(x), [0.0, 1.0, 4.0, 9.0])
