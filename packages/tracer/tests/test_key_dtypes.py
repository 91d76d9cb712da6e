"""The extended key dtype and the random primitives at the tracer level."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from tessela_tracer import ShapedArray, ShapeDtypeStruct, lax, make_jaxpr
from tessela_tracer import dtypes as D
from tessela_tracer import primitives as P
from tessela_tracer.extend import physical_aval, random_unwrap, random_wrap, tangent_aval

KEYS = ShapedArray((3,), D.key_fry)


def test_key_dtype_kinds_and_names() -> None:
    assert str(D.key_fry) == "key<fry>" and D.key_fry == "key<fry>"
    assert D.issubdtype(D.key_fry, D.prng_key) and D.issubdtype(D.key_fry, D.extended)
    assert not D.issubdtype(D.key_fry, np.integer)
    assert not D.issubdtype(D.key_fry, np.generic)
    assert not D.issubdtype(np.uint32, D.prng_key)
    assert not D.issubdtype(np.float32, D.extended)
    assert D.dtype(D.key_fry) is D.key_fry
    assert pickle.loads(pickle.dumps(D.key_fry)) == D.key_fry
    assert D.key_fry.itemsize == 8 and D.is_key_dtype(D.key_fry)


def test_avals_keep_the_key_dtype_and_print_it() -> None:
    assert KEYS.dtype is D.key_fry
    assert KEYS.str_short(short_dtypes=True) == "key<fry>[3]"
    assert repr(KEYS) == "ShapedArray(key<fry>[3])"
    assert physical_aval(KEYS) == ShapedArray((3, 2), np.uint32)
    assert tangent_aval(KEYS).dtype == D.float0
    assert ShapeDtypeStruct((2,), D.key_fry).dtype is D.key_fry


def test_keys_promote_only_with_themselves() -> None:
    assert D.result_type(D.key_fry, D.key_fry) == D.key_fry
    with pytest.raises(TypeError, match="key"):
        D.result_type(D.key_fry, np.int32)
    with pytest.raises(TypeError, match="key"):
        D.result_type(D.key_fry, 1)


def test_wrap_and_unwrap_stage_as_jax_names_them() -> None:
    data = np.zeros((4, 2), np.uint32)
    closed = make_jaxpr(lambda d: random_unwrap(random_wrap(d)))(data)
    assert [e.primitive for e in closed.jaxpr.eqns] == [P.random_wrap_p, P.random_unwrap_p]
    assert str(closed.jaxpr.eqns[0].outvars[0].aval) == "key<fry>[4]"
    assert closed.out_avals == [ShapedArray((4, 2), np.uint32)]


@pytest.mark.parametrize(
    ("data", "match"),
    [(np.zeros((3,), np.uint32), "trailing shape"), (np.zeros((2,), np.float32), "uint32")],
)
def test_wrap_refuses_data_that_is_not_key_words(data: np.ndarray, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        make_jaxpr(random_wrap)(data)


def test_shape_ops_on_keys_keep_the_key_dtype() -> None:
    def f(d):
        k = random_wrap(d)
        k = lax.reshape(k, (2, 3))
        k = lax.transpose(k, (1, 0))
        k = lax.broadcast_in_dim(k, (4, 3, 2), (1, 2))
        k = lax.slice(k, (1, 0, 0), (3, 3, 2))
        return lax.concatenate([k, k], 0)

    out = make_jaxpr(f)(np.zeros((6, 2), np.uint32)).out_avals[0]
    assert out == ShapedArray((4, 3, 2), D.key_fry)


def test_arithmetic_and_conversion_of_keys_raise_type_error() -> None:
    data = np.zeros((2, 2), np.uint32)
    with pytest.raises(TypeError):
        make_jaxpr(lambda d: lax.add(random_wrap(d), random_wrap(d)))(data)
    with pytest.raises(TypeError, match="key"):
        make_jaxpr(lambda d: lax.convert_element_type(random_wrap(d), np.float32))(data)


class _ConcreteKey:
    """A stand-in for a backend's concrete key array: anything with a key aval."""

    aval = ShapedArray((), D.key_fry)


def test_key_constants_are_never_literals() -> None:
    key = _ConcreteKey()
    closed = make_jaxpr(lambda x: (random_unwrap(key), x))(1.0)
    assert len(closed.jaxpr.constvars) == 1 and closed.consts == [key]
    assert closed.jaxpr.eqns[0].invars == closed.jaxpr.constvars
