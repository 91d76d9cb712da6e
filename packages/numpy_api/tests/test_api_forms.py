"""Forms of calls JAX 0.10.2 accepts: one-argument ``where``, array API keywords, slice bounds."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest
import tessela_lowering  # noqa: F401  (eager execution)
import tessela_numpy as tnp
from conftest import GOLDEN_DIR
from signature_names import SIGNATURE_NAMES
from tessela_lowering import jit
from tessela_tracer.errors import ConcretizationTypeError


def test_where_one_argument_under_jit_needs_size() -> None:
    x = np.array([1, 0, 1], np.int32)
    with pytest.raises(ConcretizationTypeError, match="size"):
        jit(lambda c: tnp.where(c))(x)
    (idx,) = jit(lambda c: tnp.where(c, size=2))(x)
    assert idx.tolist() == [0, 2]


def test_where_rejects_half_and_mixed_forms() -> None:
    c = np.array([True, False])
    with pytest.raises(TypeError, match="position 2"):
        tnp.where(c, 1.0)
    with pytest.raises(ValueError, match="size and fill_value"):
        tnp.where(c, 1.0, 2.0, size=2)
    with pytest.raises(ValueError, match="0d"):
        tnp.where(np.bool_(True))


def test_array_api_keywords() -> None:
    x = tnp.asarray(np.arange(6, dtype=np.float32))
    assert tnp.reshape(x, shape=(2, 3), copy=None).shape == (2, 3)
    assert tnp.reshape(a=x, shape=(3, 2), order="C").shape == (3, 2)
    assert tnp.broadcast_to(x, shape=(2, 6)).shape == (2, 6)
    out = tnp.astype(x, tnp.int32, device=x.device)
    assert out.dtype == np.int32 and out.tolist() == [0, 1, 2, 3, 4, 5]
    params = inspect.signature(tnp.astype).parameters
    assert params["device"].kind is inspect.Parameter.KEYWORD_ONLY


def test_slice_bounds_may_be_concrete_integer_arrays() -> None:
    # JAX 0.10.2: x[0:jnp.array(5)] is x[0:5] (the array's __index__); traced bounds raise.
    x = tnp.arange(10)
    assert x[0 : tnp.asarray(5)].tolist() == [0, 1, 2, 3, 4]
    assert x[tnp.int32(2) : np.int64(4)].tolist() == [2, 3]
    with pytest.raises(TypeError):
        x[0 : tnp.asarray(2.0)]
    with pytest.raises(IndexError, match="static integers"):
        jit(lambda n: x[0:n])(3)


def test_arange_stop_none_with_step() -> None:
    # JAX 0.10.2: arange(6.0, None, step=2) counts from 0 to 6.
    out = tnp.arange(6.0, None, step=2)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 2.0, 4.0]


SIGNATURES = json.loads((GOLDEN_DIR / "signatures.json").read_text())


@pytest.mark.parametrize("name", SIGNATURE_NAMES)
def test_parameters_as_jax(name: str) -> None:
    params = inspect.signature(getattr(tnp, name)).parameters.values()
    assert [[p.name, p.kind.name] for p in params] == SIGNATURES[name]
