"""The collectives that move data between members: ppermute, psum_scatter, all_to_all."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import ShapeDtypeStruct, eval_shape, lax, make_jaxpr
from tessela_tracer.extend import axis_frame

F32 = np.float32


def _shape(fun, *shape: int) -> tuple[int, ...]:
    return tuple(eval_shape(fun, ShapeDtypeStruct(shape, F32)).shape)


def test_shapes_follow_jax() -> None:
    with axis_frame("i", 4):
        assert _shape(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]), 3) == (3,)
        assert _shape(lambda x: lax.psum_scatter(x, "i"), 4, 3) == (3,)
        assert _shape(
            lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True), 2, 8
        ) == (2, 2)
        assert _shape(lambda x: lax.all_to_all(x, "i", 0, 1, tiled=True), 8, 3) == (2, 12)
        assert _shape(lambda x: lax.all_to_all(x, "i", 0, 1), 4, 3) == (3, 4)
        assert _shape(lambda x: lax.all_to_all(x, "i", 1, 0), 3, 4) == (4, 3)
        assert _shape(lambda x: lax.pswapaxes(x, "i", 0), 4, 3) == (4, 3)


def test_the_equations_carry_their_parameters() -> None:
    with axis_frame("i", 2):
        closed = make_jaxpr(lambda x: lax.psum_scatter(x, "i", tiled=True))(np.ones(4, F32))
    (eqn,) = closed.eqns
    assert eqn.primitive.name == "reduce_scatter"
    assert eqn.params == {
        "axis_name": ("i",),
        "axis_size": 2,
        "scatter_dimension": 0,
        "tiled": True,
    }


def test_bad_arguments_raise_value_errors_naming_the_fix() -> None:
    with axis_frame("i", 2):
        with pytest.raises(ValueError, match="unique"):
            make_jaxpr(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 1)]))(F32(1))
        with pytest.raises(ValueError, match="outside the axis"):
            make_jaxpr(lambda x: lax.ppermute(x, "i", [(0, 2)]))(F32(1))
        with pytest.raises(ValueError, match="tiled=True"):
            make_jaxpr(lambda x: lax.psum_scatter(x, "i"))(np.ones(3, F32))
        with pytest.raises(ValueError, match="multiple of 2"):
            make_jaxpr(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True))(np.ones(3, F32))
    with pytest.raises(NameError, match="unbound axis name"):
        make_jaxpr(lambda x: lax.ppermute(x, "j", [(0, 1)]))(F32(1))
