"""tessela.shard_map on 8 CPU devices: values, transformations, specs and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from hypothesis import given, settings
from hypothesis import strategies as st
from tessela.experimental import mesh_utils
from tessela.sharding import Mesh, NamedSharding
from tessela.sharding import PartitionSpec as P

lax = tx.lax
MESH = tx.make_mesh((4, 2), ("x", "y"))
DATA = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)


def test_eight_devices_and_create_device_mesh() -> None:
    assert tx.device_count() == 8
    grid = mesh_utils.create_device_mesh((2, 4))
    assert grid.shape == (2, 4) and Mesh(grid, ("a", "b")).size == 8


def _all_paths(f: Any, *args: Any) -> list[np.ndarray]:
    """The value eagerly (on the devices), under jit and under vmap of a batch of one."""
    eager = f(*args)
    jitted = tx.jit(f)(*args)
    batched = tx.vmap(f)(*(np.asarray(a)[None] for a in args))
    flat = [tx.tree_util.tree_leaves(v) for v in (eager, jitted)]
    out = [np.asarray(x) for x in flat[0]]
    for x, y, z in zip(flat[0], flat[1], tx.tree_util.tree_leaves(batched), strict=True):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(z)[0], np.asarray(x), rtol=1e-5, atol=1e-6)
    return out


@settings(deadline=None, max_examples=20, database=None)
@given(
    st.sampled_from([((8,), ("a",)), ((4, 2), ("a", "b")), ((2, 2, 2), ("a", "b", "c"))]),
    st.sampled_from(["psum", "pmax", "pmin", "pmean"]),
    st.data(),
)
def test_reductions_over_random_meshes_equal_numpy(mesh_def: Any, op: str, data: Any) -> None:
    shape, names = mesh_def
    mesh = tx.make_mesh(shape, names)
    axes = tuple(data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True)))
    x = np.random.default_rng(len(axes)).standard_normal((8, 3)).astype(np.float32)
    fn = {"psum": lax.psum, "pmax": lax.pmax, "pmin": lax.pmin, "pmean": lax.pmean}[op]
    f = tx.shard_map(lambda a: fn(a, axes), mesh=mesh, in_specs=P(names), out_specs=P(names))
    (got,) = _all_paths(f, x)
    blocks = x.reshape(*shape, 1, 3)
    reduce = {"psum": np.sum, "pmax": np.max, "pmin": np.min, "pmean": np.mean}[op]
    summed = reduce(blocks, axis=tuple(names.index(a) for a in axes), keepdims=True)
    np.testing.assert_allclose(got, np.broadcast_to(summed, blocks.shape).reshape(8, 3), rtol=1e-5)


def test_all_gather_and_axis_index_equal_numpy() -> None:
    gather = tx.shard_map(lambda a: lax.all_gather(a, "x"), mesh=MESH, in_specs=P("x"),
                          out_specs=P())  # fmt: skip
    (got,) = _all_paths(gather, DATA)
    np.testing.assert_array_equal(got, DATA.reshape(4, 2, 4))
    where = tx.shard_map(
        lambda a: a * 0 + 10 * lax.axis_index("x") + lax.axis_index("y"),
        mesh=MESH, in_specs=P("x", "y"), out_specs=P("x", "y"),
    )  # fmt: skip
    (got,) = _all_paths(where, DATA)
    want = (10 * np.arange(4)[:, None] + np.arange(2)).repeat(2, 0).repeat(2, 1)
    np.testing.assert_array_equal(got, want)


def test_every_sharded_computation_equals_its_single_device_value() -> None:
    w = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)

    def layer(a: Any, b: Any) -> Any:
        return lax.psum(tnp.tanh(a @ b), "y")

    f = tx.shard_map(layer, mesh=MESH, in_specs=(P("x", "y"), P("y")), out_specs=P("x"))
    (got,) = _all_paths(f, DATA, w)
    np.testing.assert_allclose(got, np.tanh(DATA[:, :2] @ w[:2]) + np.tanh(DATA[:, 2:] @ w[2:]),
                               rtol=1e-5)  # fmt: skip


def test_grad_through_shard_map_equals_the_single_device_gradient() -> None:
    def loss_sharded(a: Any) -> Any:
        f = tx.shard_map(lambda b: lax.psum((tnp.sin(b) ** 2).sum(), ("x", "y")), mesh=MESH,
                         in_specs=P("x", "y"), out_specs=P())  # fmt: skip
        return f(a)

    def loss(a: Any) -> Any:
        return (tnp.sin(a) ** 2).sum()

    np.testing.assert_allclose(tx.grad(loss_sharded)(DATA), tx.grad(loss)(DATA), rtol=1e-5)
    np.testing.assert_allclose(tx.jit(tx.grad(loss_sharded))(DATA), tx.grad(loss)(DATA),
                               rtol=1e-5)  # fmt: skip
    per_example = tx.vmap(tx.grad(loss_sharded))(np.stack([DATA, -DATA]))
    np.testing.assert_allclose(per_example[1], tx.grad(loss)(-DATA), rtol=1e-5)


def test_inferred_in_specs_decorator_form_and_current_mesh() -> None:
    placed = tx.device_put(DATA, NamedSharding(MESH, P("x")))

    @tx.shard_map(mesh=MESH, out_specs=P("x"))
    def double(a: Any) -> Any:
        assert a.shape == (2, 4)
        return a * 2

    out = double(placed)
    assert out.sharding == NamedSharding(MESH, P("x"))
    np.testing.assert_allclose(out, DATA * 2)
    with tx.set_mesh(MESH):
        f = tx.shard_map(lambda a: lax.psum(a, "y"), in_specs=P(None, "y"), out_specs=P())
        np.testing.assert_allclose(f(DATA), DATA[:, :2] + DATA[:, 2:], rtol=1e-5)


def test_pytree_arguments_and_outputs() -> None:
    f = tx.shard_map(
        lambda d: {"s": lax.psum(d["a"], "x"), "t": (d["b"] * 2,)},
        mesh=MESH, in_specs=({"a": P("x"), "b": P(None, "y")},), out_specs={"s": P(), "t": (P(None, "y"),)},
    )  # fmt: skip
    out = f({"a": DATA, "b": DATA})
    np.testing.assert_allclose(out["s"], DATA.reshape(4, 2, 4).sum(0), rtol=1e-5)
    np.testing.assert_allclose(out["t"][0], DATA * 2)


def test_bad_specs_are_value_errors_naming_the_fix() -> None:
    f = tx.shard_map(lambda a: a, mesh=MESH, in_specs=P("x"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"does not divide it evenly.*pad"):
        f(np.ones(6, np.float32))
    g = tx.shard_map(lambda a: a, mesh=MESH, in_specs=P("z"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"'z'.*use one of the mesh's axis names"):
        g(np.ones(8, np.float32))
    h = tx.shard_map(lambda a, b: a, mesh=MESH, in_specs=(P("x"),), out_specs=P("x"))
    with pytest.raises(ValueError, match="one PartitionSpec per argument"):
        h(np.ones(8, np.float32), np.ones(8, np.float32))
    with pytest.raises(ValueError, match="needs a mesh"):
        tx.shard_map(lambda a: a, in_specs=P(), out_specs=P())(np.ones(2, np.float32))


def test_grad_through_device_put_to_a_sharding() -> None:
    # MESH's axes are Explicit (make_mesh's default): as in JAX 0.10.2, eager
    # grad seeds the sharded output over the mesh in context, so it needs one.
    sharding = NamedSharding(MESH, P("x"))

    def loss(a: Any) -> Any:
        return (tx.device_put(a, sharding) ** 2).sum()

    with pytest.raises(ValueError, match="set_mesh"):
        tx.grad(loss)(DATA)
    with tx.set_mesh(MESH):
        g = tx.grad(loss)(DATA)
    np.testing.assert_allclose(g, 2 * DATA, rtol=1e-6)
    assert isinstance(tx.device_put(DATA, sharding), tx.Array)
    assert isinstance(tx.devices()[0], tx.Device)
