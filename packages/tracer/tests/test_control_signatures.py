"""Control flow as optax's suite calls it: weak carries the body promotes,
``cond`` with no operands or ``operand=``, ``fori_loop(..., unroll=)``.

The expected dtypes and values are JAX 0.10.2's for the same calls.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tessela_tracer import lax, make_jaxpr


# lax operations only: this package's tests run without tessela-numpy, which gives
# tracers their operators.
def _f32(c: object) -> object:
    return lax.convert_element_type(c, np.float32)


def _below_3(c: object) -> object:
    return lax.lt(_f32(c), np.float32(3))


def _out(closed: object) -> tuple[str, bool]:
    aval = closed.out_avals[0]  # type: ignore[attr-defined]
    return str(aval.dtype), aval.weak_type


def test_while_loop_promotes_a_weak_int_carry_to_the_body_float() -> None:
    body = lambda c: lax.add(_f32(c), np.float32(1.5))  # noqa: E731
    closed = make_jaxpr(lambda: lax.while_loop(_below_3, body, 0))()
    assert _out(closed) == ("float32", False)


def test_weak_int_carry_meets_a_strong_narrow_int() -> None:
    body = lambda c: lax.add(lax.convert_element_type(c, np.int8), np.int8(1))  # noqa: E731
    closed = make_jaxpr(lambda: lax.while_loop(_below_3, body, 0))()
    assert _out(closed) == ("int8", False)


def test_scan_and_fori_loop_promote_weak_carries() -> None:
    f = lambda xs: lax.scan(lambda c, x: (lax.add(_f32(c), x), None), 0, xs)[0]  # noqa: E731
    assert _out(make_jaxpr(f)(np.ones(3, np.float32))) == ("float32", False)
    g = lambda: lax.fori_loop(0, 3, lambda i, c: lax.add(_f32(c), np.float32(0.5)), 0)  # noqa: E731
    assert _out(make_jaxpr(g)()) == ("float32", False)


def test_a_strong_carry_of_another_dtype_is_still_an_error() -> None:
    with pytest.raises(TypeError, match="identical types"):
        body = lambda c: lax.add(_f32(c), np.float32(1.5))  # noqa: E731
        make_jaxpr(lambda: lax.while_loop(_below_3, body, np.int32(0)))()


def test_cond_without_operands_and_with_operand_keyword() -> None:
    closed = make_jaxpr(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(True)
    assert closed.eqns[-1].primitive.name == "cond" and not closed.eqns[-1].invars[1:]
    up, down = lambda x: lax.add(x, np.float32(1)), lambda x: lax.sub(x, np.float32(1))
    f = lambda p, x: lax.cond(p, up, down, operand=x)  # noqa: E731
    closed = make_jaxpr(f)(True, np.float32(3))
    assert len(closed.eqns[-1].invars) == 2
    with pytest.raises(TypeError, match="not both"):
        lax.cond(True, lambda x: x, lambda x: x, 1, operand=2)


@given(n=st.integers(0, 6), unroll=st.sampled_from([1, 2, 3, True]))
def test_fori_loop_unroll_reaches_the_scan(n: int, unroll: int | bool) -> None:
    body = lambda i, c: lax.add(lax.mul(c, 2), i)  # noqa: E731
    closed = make_jaxpr(lambda: lax.fori_loop(0, n, body, 1, unroll=unroll))()
    (eqn,) = [e for e in closed.eqns if e.primitive.name == "scan"]
    assert (eqn.params["length"], eqn.params["unroll"]) == (n, int(unroll))


def test_fori_loop_unroll_needs_concrete_bounds() -> None:
    with pytest.raises(ValueError, match="unroll needs loop bounds known"):
        make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: lax.add(c, i), 0, unroll=2))(4)
