"""The tracing errors of the seed documents, with their text.

The seeds use ``jnp`` operators; here the same programs are written with
``tessela_tracer.lax`` calls, which trace the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tessela_tracer as tt
from tessela_tracer import errors, lax

DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."


def _where(fun: Callable[..., Any]) -> str:
    code = fun.__code__
    return f"{code.co_name} at {code.co_filename}:{code.co_firstlineno}"


def _depends(fun: Callable[..., Any], arg: str, traced_for: str = "jit") -> str:
    return (
        f"The error occurred while tracing the function {_where(fun)} for {traced_for}. "
        "This concrete value was not available in Python because it depends on the value "
        f"of the argument {arg}."
    )


def test_sharp_bits_if_on_traced_value() -> None:
    def f(x):
        if lax.lt(x, 3):
            return lax.mul(3.0, lax.integer_pow(x, 2))
        return lax.mul(-4, x)

    with pytest.raises(errors.TracerBoolConversionError) as info:
        tt.jit(f)(2)
    assert str(info.value) == "\n".join(
        [
            "Attempted boolean conversion of traced array with shape bool[].",
            _depends(f, "x"),
            DOCS + "TracerBoolConversionError",
        ]
    ).replace(DOCS, "See " + DOCS)
    assert isinstance(info.value, errors.ConcretizationTypeError)
    assert isinstance(info.value, TypeError)


def test_quickstart_static_argnums() -> None:
    def f(x, neg):
        return lax.neg(x) if neg else x

    with pytest.raises(errors.TracerBoolConversionError) as info:
        tt.jit(f)(1, True)
    msg = str(info.value)
    assert msg.startswith("Attempted boolean conversion of traced array with shape bool[].\n")
    assert _depends(f, "neg") in msg
    assert msg.endswith("See " + DOCS + "TracerBoolConversionError")
    # Marking the argument static is the fix the seed shows.
    g = tt.jit(f, static_argnums=(1,))
    closed = tt.make_jaxpr(g, static_argnums=(1,))(1, True)
    assert [e.primitive.name for e in closed.eqns[0].params["jaxpr"].eqns] == ["neg"]
    closed = tt.make_jaxpr(g, static_argnums=(1,))(1, False)
    assert closed.eqns[0].params["jaxpr"].eqns == []


def test_faq_divide_needs_static_y() -> None:
    def divide(x, y):
        return lax.div(x, y) if lax.ge(y, 1.0) else 0.0

    with pytest.raises(errors.TracerBoolConversionError, match=re.escape(_depends(divide, "y"))):
        tt.jit(divide)(3.0, 2.0)

    # With y static the comparison is Python's own.
    def divide_static(x, y):
        return lax.div(x, y) if y >= 1.0 else 0.0

    jitted = tt.jit(divide_static, static_argnums=1)
    closed = tt.make_jaxpr(jitted, static_argnums=1)(3.0, 2.0)
    assert [e.primitive.name for e in closed.eqns[0].params["jaxpr"].eqns] == ["div"]


@pytest.mark.parametrize("fn", [int, float, complex])
def test_faq_conversions_raise_concretization_error(fn: type) -> None:
    def f(x, y):
        return fn(y)

    with pytest.raises(errors.ConcretizationTypeError) as info:
        tt.jit(f)(3.0, 2.0)
    assert not isinstance(info.value, errors.TracerIntegerConversionError)
    assert str(info.value) == "\n".join(
        [
            "Abstract tracer value encountered where concrete value is expected: "
            "traced array with shape float32[]",
            f"The problem arose with the `{fn.__name__}` function. If trying to convert the "
            f"data type of a value, try using `x.astype({fn.__name__})` or "
            f"`tnp.array(x, {fn.__name__})` instead.",
            _depends(f, "y"),
            "",
            "See " + DOCS + "ConcretizationTypeError",
        ]
    )


def test_faq_tracer_to_numpy_array() -> None:
    def f(x):
        return np.asarray(x)

    with pytest.raises(errors.TracerArrayConversionError) as info:
        tt.jit(f)(np.arange(5.0, dtype=np.float32))
    msg = str(info.value)
    assert msg.startswith(
        "The numpy.ndarray conversion method __array__() was called on traced array "
        "with shape float32[5]\n" + _depends(f, "x")
    )
    assert msg.endswith("See " + DOCS + "TracerArrayConversionError")


@pytest.mark.parametrize("use", [lambda x: list(range(x)), lambda x: [1, 2, 3][x]])
def test_traced_value_as_python_index(use: Callable[[Any], Any]) -> None:
    with pytest.raises(errors.TracerIntegerConversionError) as info:
        tt.jit(use)(3)
    assert str(info.value) == "\n".join(
        [
            "The __index__() method was called on traced array with shape int32[]",
            _depends(use, "x"),
            "See " + DOCS + "TracerIntegerConversionError",
        ]
    )


@pytest.mark.parametrize("n", [5, 10])
def test_non_concrete_boolean_index(n: int) -> None:
    # What tessela-numpy raises for ``x[x < 0]`` under jit.
    def get_negatives(x):
        raise errors.NonConcreteBooleanIndexError(lax.lt(x, 0.0))

    with pytest.raises(errors.NonConcreteBooleanIndexError) as info:
        tt.jit(get_negatives)(np.ones(n, np.float32))
    assert str(info.value) == (
        f"Array boolean indices must be concrete; got bool[{n}]\n\n"
        "See " + DOCS + "NonConcreteBooleanIndexError"
    )
    assert isinstance(info.value, IndexError)


def test_escaped_tracer_is_unexpected() -> None:
    leaked: list[Any] = []

    def g(x):
        leaked.append(x)
        return x

    tt.make_jaxpr(g)(1.0)
    with pytest.raises(errors.UnexpectedTracerError) as info:
        tt.make_jaxpr(lambda y: lax.add(y, leaked[0]))(1.0)
    msg = str(info.value)
    assert "type float32[] wrapped in a JitTracer" in msg
    assert f"The function being traced when the value leaked was {_where(g)}" in msg
    assert msg.endswith("See " + DOCS + "UnexpectedTracerError")


def test_argument_names_follow_pytree_paths() -> None:
    def f(x, y, *, z):
        if lax.gt(x[0]["a"], 0.0):
            return y
        return z

    with pytest.raises(errors.TracerBoolConversionError) as info:
        tt.jit(f)([{"a": 1.0, "b": 2.0}], 3.0, z=4.0)
    assert _depends(f, "x[0]['a']") in str(info.value)

    def g(x, y, z):
        return 1 if lax.gt(lax.add(x, z["k"][1]), 0.0) else 0

    with pytest.raises(errors.TracerBoolConversionError) as info:
        tt.jit(g)(1.0, 2.0, {"k": (1.0, 2.0)})
    assert "depends on the values of the arguments x and z['k'][1]." in str(info.value)

    def h(*args):
        return 1 if lax.gt(args[1], 0.0) else 0

    with pytest.raises(errors.TracerBoolConversionError, match=re.escape("argument args[1].")):
        tt.jit(h)(1.0, 2.0)

    def k(x, z):
        return 1 if lax.gt(z, 0.0) else 0

    with pytest.raises(errors.TracerBoolConversionError, match=re.escape("argument z.")):
        tt.jit(k)(1.0, z=2.0)


def test_make_jaxpr_names_itself_in_provenance() -> None:
    def f(x):
        return bool(lax.gt(x, 0.0))

    with pytest.raises(errors.TracerBoolConversionError) as info:
        tt.make_jaxpr(f)(1.0)
    assert _depends(f, "x", "make_jaxpr") in str(info.value)


def test_partial_functions_are_named() -> None:
    def f(x, s):
        return bool(lax.gt(x, s))

    with pytest.raises(errors.TracerBoolConversionError, match="for jit"):
        tt.jit(functools.partial(f, s=1.0))(2.0)
