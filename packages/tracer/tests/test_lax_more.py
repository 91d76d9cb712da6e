"""The newer ``jax.lax`` names at the tracer level, against JAX 0.10.2.

Every expected jaxpr text, shape and error below is what JAX 0.10.2 prints or
returns for the same call (``jax.make_jaxpr``, ``jax.eval_shape`` and the
shape helpers run under JAX); the values themselves are compared in the
umbrella's ``test_lax_more.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tessela_tracer import ShapeDtypeStruct, eval_shape, lax, make_jaxpr, primitives

SCATTER_SUB = """{ lambda a:i32[1,1]; b:f32[4,3] c:f32[1,3]. let
    d:f32[4,3] = scatter-sub[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = sub e f in (g,) }
    ] b a c
  in (d,) }"""


def test_jaxprs_print_as_jax() -> None:
    assert str(make_jaxpr(lax.mulhi)(np.int32(1), np.int32(2))) == (
        "{ lambda ; a:i32[] b:i32[]. let c:i32[] = mulhi a b in (c,) }"
    )
    assert str(make_jaxpr(lambda x: lax.reduce_xor(x, (0,)))(np.ones(3, np.int32))) == (
        "{ lambda ; a:i32[3]. let b:i32[] = reduce_xor[axes=(0,)] a in (b,) }"
    )
    dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
    idx = np.array([[1]], np.int32)
    jaxpr = make_jaxpr(lambda x, u: lax.scatter_sub(x, idx, u, dn))(
        np.ones((4, 3), np.float32), np.ones((1, 3), np.float32)
    )
    assert str(jaxpr) == SCATTER_SUB
    assert primitives.mulhi_p.name == "mulhi" and primitives.scatter_sub_p.name == "scatter-sub"


def test_mulhi_takes_integers_only() -> None:
    with pytest.raises(TypeError):
        make_jaxpr(lax.mulhi)(np.float32(1), np.float32(2))


# (call, JAX 0.10.2's answer)
SHAPES: list[tuple[Any, Any]] = [
    (lambda: lax.conv_shape_tuple((1, 3, 10, 10), (4, 3, 3, 3), (2, 1), "SAME"), (1, 4, 5, 10)),
    (
        lambda: lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 1), [(1, 1), (0, 0)], 2),
        (1, 4, 10, 8),
    ),
    (
        lambda: lax.conv_general_shape_tuple(
            (1, 10, 10, 3), (3, 3, 3, 4), (2, 2), "VALID", ("NHWC", "HWIO", "NHWC")
        ),
        (1, 4, 4, 4),
    ),
    (
        lambda: lax.conv_transpose_shape_tuple(
            (1, 10, 10, 3), (3, 3, 3, 4), (2, 2), "SAME", ("NHWC", "HWIO", "NHWC")
        ),
        (1, 20, 20, 4),
    ),
    (
        lambda: lax.conv_transpose_shape_tuple(
            (1, 3, 7, 5), (4, 3, 3, 2), (2, 1), "VALID", ("NCHW", "OIHW", "NCHW")
        ),
        (1, 4, 15, 6),
    ),
    (
        lambda: lax.reduce_window_shape_tuple((10, 12), (3, 2), (2, 2), [(1, 1), (0, 1)]),
        (5, 6),
    ),
    (
        lambda: lax.reduce_window_shape_tuple(
            (10, 12), (3, 2), (1, 2), [(0, 0), (0, 0)], (2, 1), (1, 3)
        ),
        (17, 5),
    ),
]


@pytest.mark.parametrize(("call", "want"), SHAPES)
def test_shape_helpers_match_jax(call: Any, want: tuple[int, ...]) -> None:
    got = call()
    assert got == want and all(type(d) is int for d in got)


def test_conv_shape_tuple_refuses_a_wrong_number_of_pads() -> None:
    with pytest.raises(
        TypeError, match="Wrong number of explicit pads for convolution: expected 2"
    ):
        lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 1), [(1, 1)])


def test_result_shapes_match_jax() -> None:
    s = ShapeDtypeStruct
    taken = eval_shape(
        lambda x: lax.index_take(x, (np.array([0, 2, 5]),), (1,)), s((2, 3), "float32")
    )
    assert taken.shape == (3, 2)
    values, indices = eval_shape(lambda x: lax.approx_max_k(x, 1, 0), s((2, 5), "float32"))
    assert (values.shape, indices.shape, str(indices.dtype)) == ((1, 5), (1, 5), "int32")
    assert eval_shape(lambda: lax.empty(3, "float32")) == s((3,), np.float32)
    with pytest.raises(ValueError, match="operand must be a floating type"):
        eval_shape(lambda x: lax.approx_min_k(x, 2), s((3,), "int32"))


def test_axis_size_is_unbound_outside_a_named_axis() -> None:
    with pytest.raises(NameError, match=r"^unbound axis name: i$"):
        lax.axis_size("i")


def test_type_names_exist() -> None:
    assert lax.DotDimensionNumbers is not None and lax.PrecisionLike is not None
    assert lax.ConvGeneralDilatedDimensionNumbers is not None


RNG_BITS = """{ lambda ; a:u32[4]. let
    b:u32[4] c:u32[2] = rng_bit_generator[
      algorithm=RNG_DEFAULT
      dtype=uint32
      out_sharding=None
      shape=(2,)
    ] a
  in (b, c) }"""
RNG_UNIFORM = """{ lambda ; . let
    a:f32[3] = rng_uniform[shape=(3,)] 0.0:f32[] 1.0:f32[]
  in (a,) }"""


def test_rng_jaxprs_print_as_jax() -> None:
    bits = make_jaxpr(lambda k: lax.rng_bit_generator(k, (2,)))(np.zeros(4, np.uint32))
    assert str(bits) == RNG_BITS
    assert str(make_jaxpr(lambda: lax.rng_uniform(0.0, 1.0, (3,)))()) == RNG_UNIFORM
    assert str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        lax.rng_bit_generator(np.zeros(4, np.uint32), (2,), np.int32)
