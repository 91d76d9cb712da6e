"""reduce_precision, optimization_barrier, the general reduce and custom_linear_solve: JAX's jaxpr text (recorded from JAX 0.10.2) and argument checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tessela_tracer import check_jaxpr, lax, make_jaxpr
from tessela_tracer import primitives as P

F = np.float32
DN = (((1,), (0,)), ((), ()))


def test_reduce_precision_text_and_checks() -> None:
    closed = make_jaxpr(lambda x: lax.reduce_precision(x, 8, 7))(np.ones(3, F))
    assert str(closed) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = reduce_precision[exponent_bits=8 mantissa_bits=7] a\n"
        "  in (b,) }"
    )
    assert make_jaxpr(lambda x: lax.reduce_precision(x, 5, 10))(1.0).out_avals[0].weak_type
    with pytest.raises(TypeError, match="does not accept dtype int32"):
        make_jaxpr(lambda x: lax.reduce_precision(x, 8, 7))(np.ones(3, np.int32))
    with pytest.raises(ValueError, match="exponent_bits must be positive; got 0"):
        make_jaxpr(lambda x: lax.reduce_precision(x, 0, 7))(np.ones(3, F))
    with pytest.raises(ValueError, match="mantissa_bits must be non-negative"):
        make_jaxpr(lambda x: lax.reduce_precision(x, 5, -1))(np.ones(3, F))


def test_optimization_barrier_text_on_a_pytree() -> None:
    f = lambda x, y: lax.optimization_barrier((x, {"a": y}))  # noqa: E731
    closed = make_jaxpr(f)(np.ones(3, F), np.ones(3, F))
    assert str(closed) == (
        "{ lambda ; a:f32[3] b:f32[3]. let\n"
        "    c:f32[3] d:f32[3] = optimization_barrier a b\n"
        "  in (c, d) }"
    )


def _argmax(x: Any, i: Any) -> Any:
    def comp(a: Any, b: Any) -> Any:
        (av, ai), (bv, bi) = a, b
        p = lax.gt(av, bv)
        return lax.select(p, av, bv), lax.select(p, ai, bi)

    return lax.reduce((x, i), (F(-np.inf), np.int32(0)), comp, (0,))


def test_variadic_reduce_text() -> None:
    closed = make_jaxpr(_argmax)(np.ones((3, 4), F), np.ones((3, 4), np.int32))
    check_jaxpr(closed)
    assert str(closed) == (
        "{ lambda ; a:f32[3,4] b:i32[3,4]. let\n"
        "    c:f32[4] d:i32[4] = reduce[\n"
        "      computation=<function _argmax.<locals>.comp at 0xXXXXXXXXXXXX>\n"
        "      dimensions=(0,)\n"
        "      jaxpr={ lambda ; e:f32[] f:i32[] g:f32[] h:i32[]. let\n"
        "          i:bool[] = gt e g\n"
        "          j:f32[] = select_n i g e\n"
        "          k:i32[] = select_n i h f\n"
        "        in (j, k) }\n"
        "    ] a b -inf:f32[] 0:i32[]\n"
        "  in (c, d) }"
    )


@pytest.mark.parametrize(
    ("op", "init", "prim"),
    [(lax.add, 0.0, P.reduce_sum_p), (lax.mul, 1.0, P.reduce_prod_p),
     (lax.max, -np.inf, P.reduce_max_p), (lax.min, np.inf, P.reduce_min_p)],
)  # fmt: skip
def test_reduce_with_a_monoid_binds_its_reducer(op: Any, init: float, prim: Any) -> None:
    closed = make_jaxpr(lambda x: lax.reduce(x, init, op, (1,)))(np.ones((3, 4), F))
    assert [e.primitive for e in closed.eqns] == [prim]


def test_reduce_checks_its_arguments() -> None:
    x = np.ones((2, 3), F)
    with pytest.raises(ValueError, match="same tree structure"):
        make_jaxpr(lambda x: lax.reduce((x, x), F(0), lax.add, (0,)))(x)
    with pytest.raises(ValueError, match="non-scalar initial value"):
        sq = lambda a, b: lax.add(a, lax.mul(b, b))  # noqa: E731
        make_jaxpr(lambda x: lax.reduce(x, np.zeros(2, F), sq, (0,)))(x)
    with pytest.raises(TypeError, match="dtypes should match"):
        make_jaxpr(lambda x: lax.reduce(x, np.int32(0), lambda a, b: a, (0,)))(x)


def test_custom_linear_solve_symmetric_text() -> None:
    a = np.eye(3, dtype=F) * 2

    def f(b: Any) -> Any:
        mv = lambda v: lax.dot_general(a, v, DN, preferred_element_type=F)  # noqa: E731
        return lax.custom_linear_solve(mv, b, lambda m, r: lax.div(r, 2.0), symmetric=True)

    closed = make_jaxpr(f)(np.ones(3, F))
    check_jaxpr(closed)
    mv = (
        "{ lambda ; a:f32[3,3] b:f32[3]. let\n"
        "    c:f32[3] = dot_general[\n"
        "      dimension_numbers=(([1], [0]), ([], []))\n"
        "      preferred_element_type=float32\n"
        "    ] a b\n"
        "  in (c,) }"
    )
    solve = "{ lambda ; a:f32[3]. let b:f32[3] = div a 2.0:f32[] in (b,) }"
    assert str(closed) == (
        f"let jaxpr = {mv} in\n"
        "{ lambda d:f32[3,3]; e:f32[3]. let\n"
        "    f:f32[3] = custom_linear_solve[\n"
        "      const_lengths=_LinearSolveTuple(matvec=1, vecmat=1, solve=0, transpose_solve=0)\n"
        f"      jaxprs=_LinearSolveTuple(matvec={mv}, vecmat={mv}, solve={solve}, "
        f"transpose_solve={solve})\n"
        "    ] d d e\n"
        "  in (f,) }"
    )


def test_custom_linear_solve_checks_shapes_and_trees() -> None:
    b = np.ones(3, F)
    cls = lax.custom_linear_solve
    with pytest.raises(ValueError, match="matvec\\(\\) output shapes must match b"):
        make_jaxpr(lambda b: cls(lambda v: lax.reduce_sum(v, (0,)), b, lambda m, r: r))(b)
    with pytest.raises(TypeError, match="solve\\(\\) output pytree structure"):
        make_jaxpr(lambda b: cls(lambda v: v, b, lambda m, r: [r]))(b)
    aux_solve = lambda m, r: (r, lax.reduce_sum(r, (0,)))  # noqa: E731
    closed = make_jaxpr(lambda b: cls(lambda v: v, b, aux_solve, has_aux=True))(b)
    assert [a.shape for a in closed.out_avals] == [(3,), ()]


@pytest.mark.usefixtures("x64")
def test_python_int_start_indices_take_the_default_integer_dtype() -> None:
    # As JAX: under x64 a Python int start is int64, so it goes with an int64
    # index and not with an int32 one (JAX's TypeError for mixed index dtypes).
    x = np.ones((3, 4), F)
    ds = lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 2))  # noqa: E731
    assert make_jaxpr(ds)(x, np.int64(1)).out_avals[0].shape == (1, 2)
    with pytest.raises(TypeError, match="integers of the same type, got: int32, int64"):
        make_jaxpr(ds)(x, np.int32(1))


def test_a_refused_negative_sort_dimension_does_not_stick_to_later_calls() -> None:
    # A rank-0 operand refuses dimension -1; that refusal must not become the
    # canonical form of -1 for later sorts of arrays with dimensions.
    op = lambda v: lax.sort(v, dimension=-1)  # noqa: E731
    with pytest.raises(ValueError):
        make_jaxpr(op)(np.float32(1))
    assert make_jaxpr(op)(np.ones((2, 3), F)).out_avals[0].shape == (2, 3)


@pytest.mark.parametrize(
    "reducer",
    [
        "reduce_sum",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "reduce_and",
        "reduce_or",
        "reduce_xor",
    ],
)
def test_reduction_axes_are_taken_as_given_as_jax_lax_takes_them(reducer: str) -> None:
    # jax.lax counts no reduction axis from the end (tessela.numpy does).
    op = getattr(lax, reducer)
    x = np.ones((3, 2), np.bool_ if reducer in ("reduce_and", "reduce_or", "reduce_xor") else F)
    for axes, kept in [((0,), (2,)), ([1], (3,)), ((np.int64(1),), (3,)), ((1, 0), ())]:
        closed = make_jaxpr(lambda v, axes=axes: op(v, axes))(x)
        assert closed.eqns[0].params["axes"] == tuple(int(a) for a in axes)
        assert all(type(a) is int for a in closed.eqns[0].params["axes"])
        assert closed.out_avals[0].shape == kept
    for axes in [(-1,), (0, -1), (1, 1)]:
        with pytest.raises(ValueError, match="axes"):
            make_jaxpr(lambda v, axes=axes: op(v, axes))(x)
    # The logical reductions index the shape with the axes, as JAX's do.
    logical = reducer in ("reduce_and", "reduce_or", "reduce_xor")
    for axes in [(2,), (-3,), (0, 5)]:
        with pytest.raises(
            IndexError if logical else ValueError, match=r"out-of-bounds|out of bounds"
        ):
            make_jaxpr(lambda v, axes=axes: op(v, axes))(x)


def test_reduce_with_bitwise_xor_and_zero_is_reduce_xor() -> None:
    # As JAX's lax.reduce: xor with its identity is the reduce_xor primitive.
    b = np.array([[True, False, True], [True, True, True]])
    closed = make_jaxpr(lambda v: lax.reduce(v, np.bool_(False), lax.bitwise_xor, (1,)))(b)
    assert [e.primitive.name for e in closed.eqns] == ["reduce_xor"]
    i = np.array([[1, 2, 4], [3, 3, 0]], np.int32)
    closed = make_jaxpr(lambda v: lax.reduce(v, np.int32(0), lax.bitwise_xor, (1,)))(i)
    assert [e.primitive.name for e in closed.eqns] == ["reduce_xor"]
    # Another initial value is no identity: the general reduce.
    closed = make_jaxpr(lambda v: lax.reduce(v, np.int32(1), lax.bitwise_xor, (1,)))(i)
    assert [e.primitive.name for e in closed.eqns] == ["reduce"]


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_in_dim_helpers_give_the_other_starts_the_index_dtype(index_dtype: Any) -> None:
    # Start indices share one dtype; a Python 0 for the other axes would be
    # int64 under x64 and clash with an int32 traced index (JAX's
    # dynamic_slice_in_dim makes its zeros in the index's dtype).
    x = np.arange(12.0).reshape(3, 4)

    def f(i: Any) -> Any:
        a = lax.dynamic_slice_in_dim(x, i, 2, axis=1)
        b = lax.dynamic_index_in_dim(x, i, axis=1, keepdims=False)
        c = lax.dynamic_update_slice_in_dim(x, np.zeros((3, 1)), i, axis=1)
        return a, b, c

    jaxpr = make_jaxpr(f)(index_dtype(1))
    assert [v.aval.shape for v in jaxpr.jaxpr.outvars] == [(3, 2), (3,), (3, 4)]
    with pytest.raises(TypeError, match="integers of the same type"):
        make_jaxpr(lambda i: lax.dynamic_slice(x, [0, i], (3, 1)))(np.int32(1))
