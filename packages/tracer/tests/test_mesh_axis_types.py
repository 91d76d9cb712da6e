"""AbstractMesh's axis-type queries, AbstractDevice, ManualAxisType and grad's seed check."""

from __future__ import annotations

import copy
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from tessela_tracer import ShapedArray
from tessela_tracer.sharding import (
    AbstractDevice,
    AbstractMesh,
    AxisType,
    ManualAxisType,
    check_seed_mesh,
    concrete_mesh_var,
)

MESH = AbstractMesh((4, 2), ("x", "y"), (AxisType.Explicit, AxisType.Auto))


def test_axis_type_queries_and_update() -> None:
    assert MESH.explicit_axes == ("x",) and MESH.auto_axes == ("y",) and MESH.manual_axes == ()
    assert MESH.abstract_mesh is MESH
    new = MESH.update_axis_types({"y": AxisType.Explicit, "x": AxisType.Manual})
    assert new.axis_types == (AxisType.Manual, AxisType.Explicit)
    assert new.axis_sizes == MESH.axis_sizes and new.axis_names == MESH.axis_names
    assert MESH.axis_types == (AxisType.Explicit, AxisType.Auto)  # unchanged


def test_abstract_device_is_a_frozen_value() -> None:
    d = AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")
    assert d == AbstractDevice("cpu", None, "cpu") and hash(d) == hash(
        AbstractDevice("cpu", None, "cpu")
    )
    assert repr(d) == "AbstractDevice(device_kind=cpu, num_cores=None, platform=cpu)"
    with pytest.raises(AttributeError):
        d.platform = "gpu"  # type: ignore[misc]


def test_manual_axis_type_is_interned_and_checked() -> None:
    m = ManualAxisType(varying={"x"})
    assert m is ManualAxisType(varying=frozenset({"x"}))
    assert pickle.loads(pickle.dumps(m)) is m and copy.deepcopy(m) is m
    assert m.update(reduced={"y"}).reduced == frozenset({"y"}) and m.reduced == frozenset()
    assert repr(ManualAxisType()) == (
        "ManualAxisType(varying=frozenset(), unreduced=frozenset(), reduced=frozenset())"
    )
    with pytest.raises(ValueError, match="varying and unreduced cannot have common mesh axes"):
        ManualAxisType(varying={"x"}, unreduced={"x"})
    with pytest.raises(AttributeError, match="immutable"):
        m.varying = frozenset()  # type: ignore[misc]


def _concrete_mesh(types: tuple[AxisType, ...]) -> SimpleNamespace:
    # A stand-in for the lowering's Mesh: names, sizes, types and devices.
    return SimpleNamespace(axis_names=("x", "y"), axis_sizes=(4, 2), axis_types=types, size=8,
                           devices=np.empty((4, 2), object))  # fmt: skip


def test_seed_check_raises_only_for_explicit_meshes_outside_set_mesh() -> None:
    aval = ShapedArray((), np.float32)
    # Results over Explicit axes (of a jit or of eager operations alike).
    explicit = SimpleNamespace(
        sharding=SimpleNamespace(mesh=_concrete_mesh((AxisType.Explicit,) * 2))
    )
    auto = SimpleNamespace(sharding=SimpleNamespace(mesh=_concrete_mesh((AxisType.Auto,) * 2)))
    with pytest.raises(ValueError, match=r"size of the mesh 8 of aval f32\[\].*set_mesh"):
        check_seed_mesh(explicit, aval)
    check_seed_mesh(auto, aval)
    check_seed_mesh(np.float32(1), aval)
    abstract = SimpleNamespace(sharding=SimpleNamespace(mesh=MESH))
    check_seed_mesh(abstract, aval)
    token = concrete_mesh_var.set(explicit.sharding.mesh)
    try:
        check_seed_mesh(explicit, aval)  # the mesh is set: the seed can be placed
    finally:
        concrete_mesh_var.reset(token)
