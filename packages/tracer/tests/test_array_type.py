"""The abstract Array type and the concrete-array API of tracers, against JAX 0.10.2.

The expected texts are JAX 0.10.2's (``jax.jit`` of a function reading each
attribute of a ``float32[2,3]`` / ``int8[2,3]`` tracer).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tessela_tracer import ARRAY_METHOD_NAMES, ArrayOps, Tracer, make_jaxpr
from tessela_tracer._array_decls import ArrayMethods
from tessela_tracer._traced_array import TracedArray
from tessela_tracer.errors import ConcretizationTypeError
from tessela_tracer.typing import Array


def _on_tracer(fn: Any, x: Any) -> list[Any]:
    seen: list[Any] = []

    def body(t: Any) -> Any:
        seen.append(fn(t))
        return t

    make_jaxpr(body)(x)
    return seen


def test_a_tracer_is_an_array_and_a_numpy_array_is_not() -> None:
    assert _on_tracer(lambda t: isinstance(t, Array), np.float32(1)) == [True]
    assert issubclass(Tracer, Array) and ArrayOps is Array
    assert not isinstance(np.ones(2), Array) and not isinstance(1.0, Array)
    assert Array.__name__ == "Array"


# JAX 0.10.2: x.itemsize, x.nbytes of a jit tracer of int8[2,3] -> 1, 6; float32[2,3] -> 4, 24
@pytest.mark.parametrize(
    ("dtype", "itemsize", "nbytes"), [(np.int8, 1, 6), (np.float32, 4, 24), (np.complex64, 8, 48)]
)
def test_itemsize_and_nbytes_follow_the_abstract_value(
    dtype: Any, itemsize: int, nbytes: int
) -> None:
    got = _on_tracer(lambda t: (t.itemsize, t.nbytes), np.ones((2, 3), dtype))
    assert got == [(itemsize, nbytes)]


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda t: t.devices(), "The devices() method was called on"),
        (lambda t: t.delete(), "The delete() method was called on"),
        (lambda t: t.is_deleted(), "The is_deleted() method was called on"),
        (lambda t: t.addressable_data(0), "The addressable_data() method was called on"),
        (lambda t: t.tobytes(), "The tobytes() method was called on"),
        (
            lambda t: t.on_device_size_in_bytes(),
            "The on_device_size_in_bytes() method was called on",
        ),
        (lambda t: t.unsafe_buffer_pointer(), "The unsafe_buffer_pointer() method was called on"),
        (lambda t: t.__dlpack__(), "The __dlpack__() method was called on"),
        (lambda t: t.committed, "The 'committed' attribute is not available on"),
        (lambda t: t.addressable_shards, "The 'addressable_shards' attribute is not available on"),
        (lambda t: t.is_fully_addressable, "The is_fully_addressable property was called on"),
        (lambda t: t.is_fully_replicated, "The is_fully_replicated property was called on"),
        (lambda t: t.global_shards, "The global_shards property was called on"),
        (lambda t: t.traceback, "The traceback property was called on"),
    ],
)
def test_buffer_api_raises_concretization_errors(call: Any, text: str) -> None:
    def probe(t: Any) -> str:
        with pytest.raises(ConcretizationTypeError) as info:
            call(t)
        return str(info.value).splitlines()[1]

    assert _on_tracer(probe, np.ones((2, 3), np.float32)) == [
        f"{text} traced array with shape float32[2,3]."
    ]


def test_device_sharding_and_waiting_raise_attribute_errors() -> None:
    names = ("device", "sharding", "block_until_ready", "copy_to_host_async")
    got = _on_tracer(lambda t: [hasattr(t, n) for n in names], np.float32(1))
    assert got == [[False, False, False, False]]
    msg = _on_tracer(lambda t: _attribute_error(t, "sharding"), np.ones(2, np.float32))
    assert msg == [
        "The 'sharding' attribute is not available on traced array with shape float32[2]. "
        "To query sharding information on tracers, use `jax.typeof(x)`."
    ]


def _attribute_error(t: Any, name: str) -> str:
    with pytest.raises(AttributeError) as info:
        getattr(t, name)
    return str(info.value)


def test_identity_helpers() -> None:
    got = _on_tracer(
        lambda t: (t.full_lower() is t, t.get_referent() is t, t.dimension_as_value),
        np.float32(1),
    )
    assert got == [(True, True, None)]


def test_reference_and_constant_bookkeeping_answers_as_jax() -> None:
    # JAX 0.10.2, jit tracer of float32[2,3]: aval_mutable_qdd is the aval,
    # cur_qdd() / get_const() / mutable_qdd / parent are None.
    got = _on_tracer(
        lambda t: (
            t.aval_mutable_qdd == t.aval,
            t.cur_qdd(),
            t.get_const(),
            t.mutable_qdd,
            t.parent,
        ),
        np.ones((2, 3), np.float32),
    )
    assert got == [(True, None, None, None, None)]


def test_every_forwarded_name_is_declared_for_the_type_checker() -> None:
    # ArrayMethods types each operator, property and method the mixin forwards
    # (x + y is an Array for mypy); Array defines item, tolist, __iter__ and
    # __setitem__ itself. At run time Array derives from object alone, and
    # every forwarded name is on the class: no ``__getattr__``, which would
    # send every attribute load on arrays and tracers down CPython's slow path.
    declared = set(vars(ArrayMethods)) | {"item", "tolist", "__iter__", "__setitem__"}
    assert sorted(ARRAY_METHOD_NAMES - declared) == []
    assert Array.__mro__ == (Array, object)
    assert sorted(ARRAY_METHOD_NAMES - set(vars(Array))) == []
    assert not hasattr(Array, "__getattr__") and not hasattr(TracedArray, "__getattr__")
