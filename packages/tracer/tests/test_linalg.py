"""The linear-algebra primitives' abstract evaluation and ``lax.linalg`` wrappers."""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import ShapeDtypeStruct, eval_shape, lax, make_jaxpr
from tessela_tracer import primitives as P

F32 = "float32"


def _shapes(fn, *avals):  # type: ignore[no-untyped-def]
    out = eval_shape(fn, *avals)
    leaves = out if isinstance(out, tuple | list) else [out]
    return [(o.shape, np.dtype(o.dtype).name) for o in leaves]


def test_cholesky_jaxpr_symmetrizes_then_masks_the_upper_triangle() -> None:
    closed = make_jaxpr(lax.linalg.cholesky)(np.eye(2, dtype=np.float32))
    names = [e.primitive.name for e in closed.eqns]
    assert names == [
        "transpose", "add", "div", "cholesky", "iota", "iota", "ge", "broadcast_in_dim",
        "select_n",
    ]  # fmt: skip
    closed = make_jaxpr(lambda x: lax.linalg.cholesky(x, symmetrize_input=False))(np.eye(2))
    assert closed.eqns[0].primitive is P.cholesky_p


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
def test_shapes_map_over_batch_dimensions(batch: tuple[int, ...]) -> None:
    sq = ShapeDtypeStruct((*batch, 4, 4), F32)
    tall = ShapeDtypeStruct((*batch, 5, 3), F32)
    wide = ShapeDtypeStruct((*batch, 3, 5), F32)
    assert _shapes(lax.linalg.cholesky, sq) == [((*batch, 4, 4), F32)]
    assert _shapes(lax.linalg.lu, tall) == [
        ((*batch, 5, 3), F32), ((*batch, 3), "int32"), ((*batch, 5), "int32")
    ]  # fmt: skip
    assert _shapes(lax.linalg.lu, wide) == [
        ((*batch, 3, 5), F32), ((*batch, 3), "int32"), ((*batch, 3), "int32")
    ]  # fmt: skip
    assert _shapes(lax.linalg.qr, tall) == [((*batch, 5, 5), F32), ((*batch, 5, 3), F32)]
    reduced = _shapes(lambda x: lax.linalg.qr(x, full_matrices=False), tall)
    assert reduced == [((*batch, 5, 3), F32), ((*batch, 3, 3), F32)]
    assert _shapes(lambda x: lax.linalg.qr(x, full_matrices=False), wide) == [
        ((*batch, 3, 3), F32), ((*batch, 3, 5), F32)
    ]  # fmt: skip
    b = ShapeDtypeStruct((*batch, 4, 2), F32)
    solve = _shapes(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True), sq, b)
    assert solve == [((*batch, 4, 2), F32)]
    bt = ShapeDtypeStruct((*batch, 2, 4), F32)
    assert _shapes(lambda a, b: lax.linalg.triangular_solve(a, b), sq, bt) == [
        ((*batch, 2, 4), F32)
    ]


def test_triangular_solve_of_a_vector_adds_and_removes_a_unit_axis() -> None:
    a = ShapeDtypeStruct((2, 3, 3), F32)
    v = ShapeDtypeStruct((2, 3), F32)
    assert _shapes(lambda a, v: lax.linalg.triangular_solve(a, v, left_side=True), a, v) == [
        ((2, 3), F32)
    ]
    assert _shapes(lambda a, v: lax.linalg.triangular_solve(a, v), a, v) == [((2, 3), F32)]


def test_triangular_solve_params_print_like_jax() -> None:
    closed = make_jaxpr(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True))(
        np.eye(2, dtype=np.float32), np.ones((2, 2), np.float32)
    )
    (eqn,) = closed.eqns
    assert eqn.params == {
        "left_side": True, "lower": True, "transpose_a": False, "conjugate_a": False,
        "unit_diagonal": False,
    }  # fmt: skip


def test_conjugate_a_is_dropped_for_real_operands() -> None:
    closed = make_jaxpr(lambda a, b: lax.linalg.triangular_solve(a, b, conjugate_a=True))(
        np.eye(2, dtype=np.float32), np.ones((2, 2), np.float32)
    )
    assert closed.eqns[0].params["conjugate_a"] is False
    c = np.eye(2, dtype=np.complex64)
    closed = make_jaxpr(lambda a, b: lax.linalg.triangular_solve(a, b, conjugate_a=True))(c, c)
    assert closed.eqns[0].params["conjugate_a"] is True


def test_qr_params_and_pivoting_refused() -> None:
    (eqn,) = make_jaxpr(lax.linalg.qr)(np.ones((3, 2), np.float32)).eqns
    assert eqn.params == {"full_matrices": True, "pivoting": False, "use_magma": None}
    with pytest.raises(NotImplementedError, match="pivoting=False"):
        lax.linalg.qr(np.ones((3, 2), np.float32), pivoting=True)


@pytest.mark.parametrize(
    ("fn", "shape", "dtype", "err", "match"),
    [
        (
            lambda x: lax.linalg.cholesky(x, symmetrize_input=False),
            (3, 4),
            F32,
            ValueError,
            "square",
        ),
        (lax.linalg.cholesky, (3,), F32, TypeError, "rank at least 2"),
        (lax.linalg.lu, (3, 3), "int32", TypeError, "does not accept dtype int32"),
        (lax.linalg.lu, (3, 3), "bool", TypeError, "does not accept dtype bool"),
        (lax.linalg.qr, (3,), F32, TypeError, "rank at least 2"),
    ],
)
def test_invalid_operands_raise(fn, shape, dtype, err, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(err, match=match):
        eval_shape(fn, ShapeDtypeStruct(shape, dtype))


def test_triangular_solve_checks_shapes_and_dtypes() -> None:
    a = ShapeDtypeStruct((3, 3), F32)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        eval_shape(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True), a,
                   ShapeDtypeStruct((2, 3), F32))  # fmt: skip
    with pytest.raises(TypeError, match="same dtypes"):
        eval_shape(lambda a, b: lax.linalg.triangular_solve(a, b), a,
                   ShapeDtypeStruct((3, 3), "complex64"))  # fmt: skip
    with pytest.raises(TypeError, match="same batch dimensions"):
        eval_shape(lambda a, b: lax.linalg.triangular_solve(a, b),
                   ShapeDtypeStruct((2, 3, 3), F32), ShapeDtypeStruct((4, 3, 3), F32))  # fmt: skip
