"""The per-device programs of shard_map on 8 CPU devices: collectives against NumPy."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from tessela_lowering.mesh_utils import create_device_mesh, create_hybrid_device_mesh
from tessela_lowering.sharding import Mesh, NamedSharding, PartitionSpec
from tessela_lowering.spmd import ShardedArray, local_aval, manual_mesh, shard_map_call
from tessela_tracer import ClosedJaxpr, ShapedArray, lax, trace_to_jaxpr
from tessela_tracer.extend import axis_frame

P = PartitionSpec
DEVS = tl.devices()


def _body(
    f: Callable[..., Any], mesh: Mesh, specs: list[PartitionSpec], xs: list[Any]
) -> ClosedJaxpr:
    avals = [ShapedArray(np.shape(x), np.asarray(x).dtype) for x in xs]
    local = [
        local_aval(a, mesh, s, f"argument {i}")
        for i, (a, s) in enumerate(zip(avals, specs, strict=True))
    ]
    with contextlib.ExitStack() as stack:
        for name, size in mesh.shape.items():
            stack.enter_context(axis_frame(name, size))
        return trace_to_jaxpr(lambda *a: [f(*a)], local)


def _run(
    f: Callable[..., Any], mesh: Mesh, i: PartitionSpec, o: PartitionSpec, x: np.ndarray
) -> np.ndarray:
    (out,) = shard_map_call(_body(f, mesh, [i], [x]), mesh, [i], [o], [x])
    assert isinstance(out, ShardedArray) and out.sharding == NamedSharding(mesh, o)
    return np.asarray(out)


MESH = Mesh(np.array(DEVS).reshape(4, 2), ("x", "y"))
DATA = np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32)
BLOCKS = DATA.reshape(4, 2, 2, 2).transpose(0, 2, 1, 3)  # [x, y, rows, cols]


def test_psum_pmax_pmin_over_one_and_two_axes_equal_numpy() -> None:
    spec = P("x", "y")
    got = _run(lambda a: lax.psum(a, "x"), MESH, spec, P(None, "y"), DATA)
    np.testing.assert_allclose(got, BLOCKS.sum(0).transpose(1, 0, 2).reshape(2, 4), rtol=1e-5)
    got = _run(lambda a: lax.pmax(a, ("x", "y")), MESH, spec, P(), DATA)
    np.testing.assert_allclose(got, BLOCKS.max((0, 1)))
    got = _run(lambda a: lax.pmin(a, "y"), MESH, spec, P("x"), DATA)
    np.testing.assert_allclose(got, BLOCKS.min(1).reshape(8, 2))
    got = _run(lambda a: lax.pmean(a, "x"), MESH, spec, P(None, "y"), DATA)
    np.testing.assert_allclose(got, BLOCKS.mean(0).transpose(1, 0, 2).reshape(2, 4), rtol=1e-5)


def test_all_gather_and_axis_index_equal_numpy() -> None:
    got = _run(lambda a: lax.all_gather(a, "x", tiled=True), MESH, P("x"), P(), DATA)
    np.testing.assert_array_equal(got, DATA)
    got = _run(lambda a: lax.all_gather(a, "y", axis=1), MESH, P(None, "y"), P(), DATA)
    np.testing.assert_array_equal(got, DATA.reshape(8, 2, 2))
    index = lambda a: lax.add(  # noqa: E731
        lax.mul(lax.convert_element_type(lax.axis_index("x"), np.float32), np.float32(10)),
        lax.convert_element_type(lax.axis_index("y"), np.float32),
    )
    got = _run(lambda a: lax.add(lax.mul(a, np.float32(0)), index(a)), MESH, P("x", "y"),
               P("x", "y"), DATA)  # fmt: skip
    want = (10 * np.arange(4)[:, None] + np.arange(2)[None, :]).repeat(2, 0).repeat(2, 1)
    np.testing.assert_array_equal(got, want)


@given(st.sampled_from([(8,), (4, 2), (2, 4), (2, 2, 2)]), st.data())
def test_psum_over_random_meshes_and_axes_equals_numpy(shape: tuple[int, ...], data: Any) -> None:
    names = ("a", "b", "c")[: len(shape)]
    mesh = Mesh(create_device_mesh(shape), names)
    axes = data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    x = np.arange(8 * 3, dtype=np.float32).reshape(8, 3)
    spec = P(names)  # dimension 0 split over every axis, first axis major
    got = _run(lambda a: lax.psum(a, tuple(axes)), mesh, spec, P(names), x)
    blocks = x.reshape(*shape, 8 // len(DEVS), 3)
    summed = blocks.sum(tuple(names.index(a) for a in axes), keepdims=True)
    want = np.broadcast_to(summed, blocks.shape).reshape(8, 3)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_a_collective_outside_shard_map_still_names_the_fix() -> None:
    assert manual_mesh() is None
    with pytest.raises(NameError, match="shard_map"), axis_frame("x", 4):
        tl.jit(lambda a: lax.psum(a, "x"))(np.ones(2, np.float32))


def test_indivisible_blocks_and_unknown_axes_are_value_errors() -> None:
    with pytest.raises(ValueError, match="does not divide it evenly"):
        local_aval(ShapedArray((6,), np.float32), MESH, P("x"), "argument 0")
    with pytest.raises(ValueError, match="does not have"):
        local_aval(ShapedArray((8,), np.float32), MESH, P("z"), "argument 0")


def test_create_device_mesh_keeps_the_device_order() -> None:
    grid = create_device_mesh((4, 2))
    assert grid.shape == (4, 2) and [d.id for d in grid.flat] == list(range(8))
    assert [d.id for d in create_device_mesh((2,), DEVS[2:4]).flat] == [2, 3]
    with pytest.raises(ValueError, match="must equal the product"):
        create_device_mesh((3,))
    with pytest.raises(ValueError, match="sequence of ints"):
        create_device_mesh(4)  # type: ignore[arg-type]
    hybrid = create_hybrid_device_mesh((4, 2), (1, 1), process_is_granule=True)
    assert hybrid.shape == (4, 2)
    with pytest.raises(ValueError, match="slice_index"):
        create_hybrid_device_mesh((4, 2), (1, 1))


def test_ppermute_psum_scatter_and_all_to_all_equal_numpy() -> None:
    shift = [(0, 1), (1, 2), (2, 3), (3, 0)]
    got = _run(lambda a: lax.ppermute(a, "x", shift), MESH, P("x", "y"), P("x", "y"), DATA)
    np.testing.assert_array_equal(got, np.roll(DATA, 2, axis=0))
    got = _run(lambda a: lax.psum_scatter(a, "x", scatter_dimension=1, tiled=True), MESH, P("x"),
               P(None, "x"), DATA)  # fmt: skip
    np.testing.assert_allclose(got, DATA.reshape(4, 2, 4).sum(0), rtol=1e-5)
    got = _run(lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True), MESH, P("x"), P(None, "x"), DATA)
    # Member j receives column j of every member's rows, stacked in member order.
    np.testing.assert_array_equal(got, DATA)
