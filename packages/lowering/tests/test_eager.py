"""Arrays, placement and eager execution of the tracer's primitives."""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_lowering as tl
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tessela_tracer import ArrayCopySemantics, make_jaxpr, to_concrete_array
from tessela_tracer import lax as lax_api
from tessela_tracer import primitives as lax

Shape = tuple[int, ...]
FLOAT_SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)


def _floats(shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float32, shape, elements=st.floats(-4, 4, width=32))


def test_repr_matches_the_array_printing_users_know() -> None:
    assert repr(tl.device_put(np.arange(10.0, dtype=np.float32))) == (
        "Array([0., 1., 2., 3., 4., 5., 6., 7., 8., 9.], dtype=float32)"
    )
    assert repr(tl.device_put(np.zeros((0, 3), np.float32))) == (
        "Array([], shape=(0, 3), dtype=float32)"
    )
    assert repr(tl.device_put(3)) == "Array(3, dtype=int32, weak_type=True)"
    assert repr(tl.device_put(np.bool_(True))) == "Array(True, dtype=bool)"
    wide = tl.device_put(np.linspace(0, 1, 12).astype(np.float32))
    assert repr(wide).endswith("0.90909094, 1.        ], dtype=float32)")


def test_array_is_immutable_and_points_to_at() -> None:
    x = tl.device_put(np.arange(3.0, dtype=np.float32))
    with pytest.raises(TypeError, match=r"\.at\[\]"):
        x[0] = 1.0


def test_scalar_conversions_and_host_views() -> None:
    x = tl.device_put(np.float32(2.5))
    assert float(x) == 2.5 and int(x) == 2 and complex(x) == 2.5 + 0j and bool(x)
    i = tl.device_put(np.int32(4))
    assert [10, 20, 30, 40, 50][i] == 50
    with pytest.raises(TypeError, match="only integer arrays"):
        [1, 2][x]
    y = tl.device_put(np.arange(4, dtype=np.int32).reshape(2, 2))
    assert y.tolist() == [[0, 1], [2, 3]] and y.item(3) == 3
    assert np.asarray(y).flags.writeable is False
    np.testing.assert_array_equal(np.from_dlpack(y), [[0, 1], [2, 3]])
    assert f"{x:.2f}" == "2.50"


def test_pickle_round_trip() -> None:
    x = tl.device_put(np.arange(6, dtype=np.int16).reshape(2, 3))
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, tl.Array) and y.dtype == np.int16
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))


def test_device_put_commits_only_with_a_device() -> None:
    x = tl.device_put(np.ones(2, np.float32))
    assert not x.committed and x.device == tl.devices()[0]
    assert tl.device_put(x) is x
    y = tl.device_put(x, tl.devices()[0])
    assert y.committed and y.sharding.device_set == {tl.devices()[0]}
    assert x.devices() == {tl.devices()[0]}
    got = tl.device_get({"a": y, "b": [x, 3]})
    assert isinstance(got["a"], np.ndarray) and got["b"][1] == 3


def test_device_put_places_every_leaf_of_a_pytree() -> None:
    dev = tl.devices()[0]
    tree = {"w": np.ones((2, 2), np.float32), "b": [0.5, np.int8(3)], "none": None}
    out = tl.device_put(tree, device=dev)
    assert sorted(out) == ["b", "none", "w"] and out["none"] is None
    leaves = [out["w"], *out["b"]]
    assert all(isinstance(a, tl.Array) and a.committed for a in leaves)
    assert [a.dtype for a in leaves] == [np.float32, np.float32, np.int8]
    np.testing.assert_array_equal(np.asarray(out["w"]), tree["w"])
    assert not tl.device_put((np.zeros(1),))[0].committed
    with pytest.raises(TypeError, match="device must be a Device"):
        tl.device_put([1.0], device="cpu")


def test_deleted_arrays_raise_a_clear_error() -> None:
    x = tl.device_put(np.ones(3, np.float32))
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(x)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        lax.add_p.bind(x, x)


def _bind_and_compare(
    name: str, ref: Callable[..., Any], arity: int, data: st.DataObject, shape: Shape, **tol: float
) -> None:
    """Bind ``<name>_p`` eagerly to ``arity`` drawn float32 arrays and compare with ``ref``."""
    xs = [data.draw(_floats(shape)) for _ in range(arity)]
    out = getattr(lax, f"{name}_p").bind(*map(tl.device_put, xs))
    np.testing.assert_allclose(np.asarray(out), ref(*xs), **tol)


UNARY = {"sin": np.sin, "exp": np.exp, "tanh": np.tanh, "neg": np.negative}


@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data(), shape=FLOAT_SHAPES)
def test_unary_primitives_match_numpy(name: str, data: st.DataObject, shape: Shape) -> None:
    _bind_and_compare(name, UNARY[name], 1, data, shape, rtol=2e-6, atol=1e-6)


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum}


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data(), shape=FLOAT_SHAPES)
def test_binary_primitives_match_numpy(name: str, data: st.DataObject, shape: Shape) -> None:
    _bind_and_compare(name, BINARY[name], 2, data, shape, rtol=1e-6, atol=1e-30)


@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
def test_reductions_match_numpy(data: st.DataObject, shape: tuple[int, ...]) -> None:
    x = data.draw(_floats(shape))
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    for name, ref in (("sum", np.sum), ("max", np.max), ("min", np.min)):
        out = getattr(lax, f"reduce_{name}_p").bind(tl.device_put(x), axes=axes)
        np.testing.assert_allclose(np.asarray(out), ref(x, axis=axes), rtol=1e-5, atol=1e-5)


@given(data=st.data(), m=st.integers(1, 4), k=st.integers(1, 4), n=st.integers(1, 4))
def test_dot_general_matches_matmul(data: st.DataObject, m: int, k: int, n: int) -> None:
    a, b = data.draw(_floats((m, k))), data.draw(_floats((k, n)))
    out = lax.dot_general_p.bind(
        tl.device_put(a),
        tl.device_put(b),
        dimension_numbers=(((1,), (0,)), ((), ())),
        precision=None,
        preferred_element_type=None,
        out_sharding=None,
    )
    np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-5, atol=1e-5)


def test_shape_primitives() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    tx = tl.device_put(x)
    np.testing.assert_array_equal(np.asarray(lax.transpose_p.bind(tx, permutation=(1, 0))), x.T)
    b = lax.broadcast_in_dim_p.bind(
        tl.device_put(x[0]), shape=(2, 3), broadcast_dimensions=(1,), sharding=None
    )
    np.testing.assert_array_equal(np.asarray(b), np.broadcast_to(x[0], (2, 3)))
    c = lax.convert_element_type_p.bind(
        tx, new_dtype=np.dtype(np.bool_), weak_type=False, sharding=None
    )
    np.testing.assert_array_equal(np.asarray(c), x.astype(bool))


def test_eager_ops_reuse_compiled_executables() -> None:
    x = tl.device_put(np.ones(5, np.float32))
    lax.add_p.bind(x, x)
    before = tl.eager_cache_size()
    for _ in range(5):
        lax.add_p.bind(x, x)
    assert tl.eager_cache_size() == before


def test_results_follow_committed_inputs() -> None:
    dev = tl.devices()[-1]
    x = tl.device_put(np.ones(3, np.float32), dev)
    y = tl.device_put(np.ones(3, np.float32))
    z = lax.add_p.bind(x, y)
    assert z.device == dev and z.committed
    w = lax.add_p.bind(y, y)
    assert not w.committed


def test_inputs_committed_to_different_devices_are_rejected() -> None:
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import numpy as np
        import tessela_lowering as tl
        from tessela_tracer import primitives as lax
        a = tl.device_put(np.ones(2, np.float32), tl.devices()[1])
        b = tl.device_put(np.ones(2, np.float32), tl.devices()[2])
        c = tl.device_put(np.ones(2, np.float32))
        print(lax.add_p.bind(a, c).device)
        try:
            lax.add_p.bind(a, b)
        except ValueError as e:
            print("ValueError", "CpuDevice(id=1)" in str(e), "CpuDevice(id=2)" in str(e))
        """
    )
    env = {"TESSELA_NUM_CPU_DEVICES": "4", "PATH": "/usr/bin:/bin"}
    import os

    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["cpu:1", "ValueError", "True", "True"]


def test_to_concrete_array_places_host_data_only_when_running_eagerly() -> None:
    host = np.arange(6.0).reshape(2, 3)
    x = to_concrete_array(host.astype(np.float32))
    assert isinstance(x, tl.Array) and not x.committed
    np.testing.assert_array_equal(np.asarray(x), host)
    weak = to_concrete_array(2.0)
    assert isinstance(weak, tl.Array) and weak.weak_type and weak.dtype == np.float32
    assert to_concrete_array(x) is x
    # Under a trace host data stay constants: a constvar, no equation.
    text = str(make_jaxpr(lambda: to_concrete_array(np.ones(3, np.float32)))())
    assert text == "{ lambda a:f32[3]; . let  in (a,) }"


def test_device_put_primitive_is_the_identity_under_jit() -> None:
    def f(a: tl.Array) -> tl.Array:
        (out,) = lax.device_put_p.bind(
            a, devices=(None,), srcs=(None,), copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
        )
        return lax.mul_p.bind(out, out)

    v = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(np.asarray(tl.jit(f)(v)), v * v)
    np.testing.assert_array_equal(np.asarray(f(tl.device_put(v))), v * v)


def test_cpu_sharding_prints_as_the_quickstart_shows() -> None:
    x = tl.device_put(np.arange(5, dtype=np.int32))
    cpu = tl.devices()[0]
    assert x.sharding == tl.SingleDeviceSharding(cpu)
    assert x.sharding.memory_kind == "unpinned_host"
    assert repr(x.sharding) == (f"SingleDeviceSharding(device={cpu!r}, memory_kind=unpinned_host)")
    assert repr(cpu) == "CpuDevice(id=0)"


def test_dlpack_has_the_array_api_signature_and_exports_versioned() -> None:
    y = tl.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    params = inspect.signature(type(y).__dlpack__).parameters
    assert list(params) == ["self", "stream", "max_version", "dl_device", "copy"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in list(params.values())[1:])
    # numpy asks for a versioned capsule: the export keeps the values, read-only.
    out = np.from_dlpack(y)
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3))
    copied = np.from_dlpack(y, copy=True)
    assert copied.flags.writeable and copied.dtype == np.float32
    assert y.__dlpack_device__() == (1, 0)


@given(
    value=st.one_of(
        st.floats(-100, 100, width=32),
        st.integers(-100, 100),
        hnp.arrays(
            np.float32,
            hnp.array_shapes(max_dims=2, max_side=3),
            elements=st.floats(-100, 100, width=32),
        ),
        hnp.arrays(np.int16, hnp.array_shapes(max_dims=2, max_side=3)),
    ),
    dtype=st.sampled_from([np.int8, np.int32, np.float32, np.float16, np.bool_]),
)
def test_eager_convert_element_type_of_a_constant_is_an_array(value: Any, dtype: Any) -> None:
    # As JAX: the host-folded constant comes back as an Array, with the value
    # the compiled conversion gives (inside the target's range, NumPy's too).
    out = lax_api.convert_element_type(value, dtype)
    assert type(out) is tl.Array
    assert out.dtype == np.dtype(dtype) and not out.aval.weak_type
    compiled = tl.jit(lambda x: lax_api.convert_element_type(x, dtype))(np.asarray(value))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(compiled))
    if np.dtype(dtype).kind in "iu" and np.all(np.abs(np.asarray(value)) <= 100):
        np.testing.assert_array_equal(np.asarray(out), np.trunc(np.asarray(value)).astype(dtype))
