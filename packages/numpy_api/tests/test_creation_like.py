"""``full`` of an empty shape, ``*_like`` of duck-typed shapes, ``device=`` and the array API's
``correction=``, as in JAX."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tessela_lowering
import tessela_numpy as tnp
from tessela_tracer import ArrayOps, ShapeDtypeStruct, jit, make_jaxpr


@pytest.mark.parametrize(
    ("fill", "dtype", "want", "weak"),
    [
        (-29, None, "int32", True),
        (2.5, None, "float32", True),
        (True, None, "bool", False),  # JAX: Array(True, dtype=bool)
        (-29, "int8", "int8", False),
        (np.int8(3), None, "int8", False),
        (np.float32(1.5), None, "float32", False),
    ],
)
def test_full_of_empty_shape_is_an_array(fill: Any, dtype: Any, want: str, weak: bool) -> None:
    out = tnp.full((), fill, dtype=dtype)
    assert isinstance(out, ArrayOps)
    assert (str(out.dtype), out.weak_type, out.shape) == (want, weak, ())
    assert float(out) == float(fill)


def test_full_of_matching_numpy_array_is_an_array() -> None:
    out = tnp.full((2,), np.ones(2, np.float32))
    assert isinstance(out, ArrayOps)
    np.testing.assert_array_equal(np.asarray(out), [1.0, 1.0])


def test_full_of_empty_shape_stays_a_literal_under_a_trace() -> None:
    assert str(make_jaxpr(lambda: tnp.full((), 2.5))()) == "{ lambda ; . let  in (2.5:f32[],) }"


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like"])
def test_like_accepts_a_shape_dtype_struct(fn: str) -> None:
    out = getattr(tnp, fn)(ShapeDtypeStruct((2, 3), np.int16))
    assert isinstance(out, ArrayOps)
    assert (out.shape, str(out.dtype), out.weak_type) == ((2, 3), "int16", False)


def test_full_like_of_a_duck_type_and_overrides() -> None:
    class Duck:
        shape = (3,)
        dtype = np.dtype("float64")  # canonicalised to float32 without x64

    out = tnp.full_like(Duck(), 1.5)
    assert (out.shape, str(out.dtype)) == ((3,), "float32")
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 1.5, np.float32))
    out = tnp.full_like(ShapeDtypeStruct((2,), np.float32), 7, dtype="int32", shape=(1, 4))
    assert (out.shape, str(out.dtype)) == ((1, 4), "int32")
    with pytest.raises(TypeError, match="full_like requires ndarray"):
        tnp.full_like([1, 2], 0)


def test_like_keeps_the_weak_type_as_jax_does() -> None:
    # JAX 0.10.2: zeros_like(2.0) and full_like(asarray(2.0), 1) are weakly typed float32.
    assert tnp.zeros_like(2.0).weak_type
    assert tnp.full_like(tnp.asarray(2.0), 1).weak_type
    assert not tnp.full_like(tnp.asarray(2.0), 1, dtype="float32").weak_type
    out = tnp.full_like(3, 2.5)  # JAX: Array(2, dtype=int32, weak_type=True)
    assert (str(out.dtype), out.weak_type, int(out)) == ("int32", True, 2)
    assert str(tnp.zeros_like(np.ones(2)).dtype) == "float32"


def test_device_keyword_places_the_result() -> None:
    dev = tessela_lowering.devices()[0]
    for out in (
        tnp.zeros(2, device=dev),
        tnp.ones((1, 2), device=dev),
        tnp.empty(3, device=dev),
        tnp.full((), 4, device=dev),
        tnp.zeros_like(np.ones(2), device=dev),
        tnp.arange(3, device=dev),
        tnp.linspace(0, 1, 3, device=dev),
        tnp.eye(2, device=dev),
        tnp.array([1, 2], device=dev),
        tnp.asarray(np.ones(2), device=dev),
    ):
        assert isinstance(out, ArrayOps)
        assert out.devices() == {dev}
    np.testing.assert_array_equal(jit(lambda: tnp.ones(2, device=dev))(), [1.0, 1.0])
    x = tnp.ones(3)
    assert tnp.asarray(x, copy=False) is x


def test_var_std_take_the_array_api_correction() -> None:
    # JAX 0.10.2: var(x, correction=1) == 3.5 for arange(6.0).reshape(2, 3);
    # std(x, axis=0, correction=0.5) == sqrt(3) for each column.
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    assert float(tnp.var(x, correction=1)) == pytest.approx(3.5)
    np.testing.assert_allclose(tnp.std(x, axis=0, correction=0.5), np.full(3, np.sqrt(3.0)), 1e-6)
    assert float(tnp.var(x, correction=0)) == pytest.approx(float(np.var(x)))
    with pytest.raises(ValueError, match="ddof and correction"):
        tnp.var(x, ddof=1, correction=1)
