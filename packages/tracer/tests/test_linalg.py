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


# ------------------------------------------------------------------ eigh, svd


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_eigh_and_svd_shapes_and_real_dtypes(batch: tuple[int, ...], dtype: str) -> None:
    real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    sq = ShapeDtypeStruct((*batch, 4, 4), dtype)
    assert _shapes(lax.linalg.eigh, sq) == [((*batch, 4, 4), dtype), ((*batch, 4), real)]
    tall = ShapeDtypeStruct((*batch, 5, 3), dtype)
    assert _shapes(lax.linalg.svd, tall) == [
        ((*batch, 5, 5), dtype), ((*batch, 3), real), ((*batch, 3, 3), dtype)
    ]  # fmt: skip
    wide = ShapeDtypeStruct((*batch, 3, 5), dtype)
    assert _shapes(lambda x: lax.linalg.svd(x, full_matrices=False), wide) == [
        ((*batch, 3, 3), dtype), ((*batch, 3), real), ((*batch, 3, 5), dtype)
    ]  # fmt: skip
    assert _shapes(lambda x: lax.linalg.svd(x, compute_uv=False), wide) == [((*batch, 3), real)]


def test_eigh_symmetrizes_unless_told_and_binds_jax_params() -> None:
    x = np.eye(3, dtype=np.float32)
    names = [e.primitive.name for e in make_jaxpr(lax.linalg.eigh)(x).eqns]
    assert names == ["transpose", "add", "div", "eigh"]
    (eqn,) = make_jaxpr(lambda x: lax.linalg.eigh(x, lower=False, symmetrize_input=False))(x).eqns
    assert eqn.primitive is P.eigh_p
    assert eqn.params == {
        "lower": False, "sort_eigenvalues": True, "subset_by_index": None, "algorithm": None
    }  # fmt: skip
    assert [v.aval.shape for v in eqn.outvars] == [(3, 3), (3,)]


def test_svd_binds_jax_params_and_returns_u_s_vh() -> None:
    x = np.ones((4, 3), np.float32)
    closed = make_jaxpr(lax.linalg.svd)(x)
    (eqn,) = closed.eqns
    assert eqn.params == {
        "full_matrices": True, "compute_uv": True, "subset_by_index": None, "algorithm": None
    }  # fmt: skip
    # The primitive's results are (s, u, vt); the wrapper returns (u, s, vt).
    assert [v.aval.shape for v in eqn.outvars] == [(3,), (4, 4), (3, 3)]
    assert closed.jaxpr.outvars == [eqn.outvars[1], eqn.outvars[0], eqn.outvars[2]]


def test_subset_by_index_shapes_and_checks() -> None:
    sq = ShapeDtypeStruct((5, 5), F32)
    assert _shapes(lambda x: lax.linalg.eigh(x, subset_by_index=(1, 4)), sq) == [
        ((5, 3), F32), ((3,), F32)
    ]  # fmt: skip
    tall = ShapeDtypeStruct((6, 4), F32)
    subset = _shapes(lambda x: lax.linalg.svd(x, full_matrices=False, subset_by_index=(0, 2)), tall)
    assert subset == [((6, 2), F32), ((2,), F32), ((2, 4), F32)]
    with pytest.raises(ValueError, match="full_matrices=False"):
        eval_shape(lambda x: lax.linalg.svd(x, subset_by_index=(0, 2)), tall)
    with pytest.raises(ValueError, match="0 <= start <= end <= 5"):
        eval_shape(lambda x: lax.linalg.eigh(x, subset_by_index=(3, 9)), sq)
    with pytest.raises(TypeError, match="pair of integers"):
        eval_shape(lambda x: lax.linalg.eigh(x, subset_by_index=3), sq)


def test_algorithm_enums_print_like_jax_and_are_checked() -> None:
    x = np.ones((4, 3), np.float32)
    alg = lax.linalg.SvdAlgorithm.QR
    text = str(make_jaxpr(lambda x: lax.linalg.svd(x, algorithm=alg))(x))
    assert "algorithm=SvdAlgorithm.QR" in text
    impl = lax.linalg.EighImplementation.JACOBI
    text = str(make_jaxpr(lambda x: lax.linalg.eigh(x, implementation=impl))(np.eye(2)))
    assert "algorithm=EighImplementation.JACOBI" in text
    with pytest.raises(TypeError, match="SvdAlgorithm"):
        lax.linalg.svd(x, algorithm="QR")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fn", "shape", "dtype", "err", "match"),
    [
        (lax.linalg.eigh, (3, 4), F32, ValueError, r"shape \[\.\.\., n, n\]"),
        (lambda x: lax.linalg.eigh(x, symmetrize_input=False), (3, 4), F32, ValueError, "square"),
        (lax.linalg.eigh, (3,), F32, TypeError, "rank at least 2"),
        (lax.linalg.eigh, (3, 3), "int32", TypeError, "does not accept dtype int32"),
        (lax.linalg.svd, (3,), F32, TypeError, "rank at least 2"),
        (lax.linalg.svd, (3, 3), "bool", TypeError, "does not accept dtype bool"),
    ],
)
def test_invalid_decomposition_operands_raise(fn, shape, dtype, err, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(err, match=match):
        eval_shape(fn, ShapeDtypeStruct(shape, dtype))
