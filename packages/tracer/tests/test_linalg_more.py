"""Abstract evaluation of eig, schur and the structured-matrix primitives, and their bad inputs.

Shapes and dtypes are JAX 0.10.2's (``jax.eval_shape`` of the same calls);
each rejected input raises JAX's exception class with a message naming the
argument.
"""

from __future__ import annotations

import numpy as np
import pytest
from tessela_tracer import ShapeDtypeStruct, eval_shape, make_jaxpr
from tessela_tracer.lax import linalg


def _s(shape: tuple[int, ...], dtype: str = "float32") -> ShapeDtypeStruct:
    return ShapeDtypeStruct(shape, dtype)


def _sig(outs: object) -> list[tuple[tuple[int, ...], str]]:
    seq = outs if isinstance(outs, (list, tuple)) else [outs]
    return [(tuple(o.shape), o.dtype.name) for o in seq]


@pytest.mark.parametrize(
    ("fn", "args", "want"),
    [
        (linalg.eig, [_s((2, 3, 3))], [((2, 3), "complex64")] + [((2, 3, 3), "complex64")] * 2),
        (lambda x: linalg.eig(x, compute_left_eigenvectors=False), [_s((3, 3), "complex64")],
         [((3,), "complex64"), ((3, 3), "complex64")]),
        (lambda x: linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False),
         [_s((3, 3))], [((3,), "complex64")]),
        (linalg.schur, [_s((2, 4, 4))], [((2, 4, 4), "float32")] * 2),
        (lambda x: linalg.schur(x, compute_schur_vectors=False), [_s((4, 4))],
         [((4, 4), "float32")]),
        (linalg.hessenberg, [_s((4, 4), "complex64")], [((4, 4), "complex64"), ((3,), "complex64")]),
        (linalg.tridiagonal, [_s((3, 3), "complex64")],
         [((3, 3), "complex64"), ((3,), "float32"), ((2,), "float32"), ((2,), "complex64")]),
        (linalg.householder_product, [_s((2, 5, 3)), _s((2, 2))], [((2, 5, 3), "float32")]),
        (lambda a, t, c: linalg.ormqr(a, t, c, left=False, transpose=True),
         [_s((5, 3)), _s((3,)), _s((2, 5))], [((2, 5), "float32")]),
        (linalg.tridiagonal_solve, [_s((2, 4))] * 3 + [_s((2, 4, 3))], [((2, 4, 3), "float32")]),
        (lambda p: linalg.lu_pivots_to_permutation(p, 6), [_s((2, 3), "int32")],
         [((2, 6), "int32")]),
        (linalg.cholesky_update, [_s((3, 3)), _s((3,))], [((3, 3), "float32")]),
        (linalg.symmetric_product, [_s((2, 4, 3)), _s((2, 4, 4))], [((2, 4, 4), "float32")]),
        (linalg.qdwh, [_s((5, 3))], [((5, 3), "float32"), ((3, 3), "float32"), ((), "int32"),
                                     ((), "bool")]),
    ],
)  # fmt: skip
def test_shapes_and_dtypes_as_jax(fn: object, args: list[ShapeDtypeStruct], want: object) -> None:
    assert _sig(eval_shape(fn, *args)) == want


@pytest.mark.parametrize(
    ("fn", "args", "exc", "match"),
    [
        (linalg.eig, [_s((2, 3))], ValueError, "square"),
        (linalg.eig, [_s((3, 3), "int32")], TypeError, "does not accept dtype int32"),
        (linalg.schur, [_s((3,))], TypeError, "rank at least 2"),
        (linalg.hessenberg, [_s((3, 4))], ValueError, "square"),
        (linalg.tridiagonal, [_s((0, 0))], ValueError, "square"),
        (linalg.householder_product, [_s((3, 4)), _s((2,))], ValueError, "at least as many rows"),
        (linalg.householder_product, [_s((4, 3)), _s((4,))], ValueError, "must not have more"),
        (linalg.ormqr, [_s((4, 3)), _s((3,)), _s((5, 2))], ValueError, "same number of rows"),
        (linalg.tridiagonal_solve, [_s((4,)), _s((4,)), _s((3,)), _s((4, 1))], TypeError,
         "same shape"),
        (linalg.tridiagonal_solve, [_s((4,))] * 3 + [_s((5, 1))], TypeError, "leading ndim-1"),
        (lambda p: linalg.lu_pivots_to_permutation(p, 2), [_s((3,), "int32")], ValueError,
         "has to exceed"),
        (lambda p: linalg.lu_pivots_to_permutation(p, 4), [_s((3,), "float32")], TypeError,
         "int32"),
        (linalg.cholesky_update, [_s((2, 3, 3)), _s((2, 3))], TypeError, "exactly 2"),
        (linalg.cholesky_update, [_s((3, 3), "complex64"), _s((3,), "complex64")], TypeError,
         "floating"),
        (linalg.symmetric_product, [_s((4, 3)), _s((3, 3))], ValueError, "shape"),
        (linalg.qdwh, [_s((3, 5))], ValueError, "M >= N"),
    ],
)  # fmt: skip
def test_bad_inputs_raise_as_jax(
    fn: object, args: list[ShapeDtypeStruct], exc: type[Exception], match: str
) -> None:
    with pytest.raises(exc, match=match):
        eval_shape(fn, *args)


def test_primitives_are_named_as_in_jax() -> None:
    names = {p.name for p in (linalg.eig_p, linalg.schur_p, linalg.hessenberg_p,
                              linalg.tridiagonal_p, linalg.tridiagonal_solve_p,
                              linalg.householder_product_p, linalg.ormqr_p,
                              linalg.lu_pivots_to_permutation_p, linalg.cholesky_update_p,
                              linalg.symmetric_product_p)}  # fmt: skip
    assert names == {"eig", "schur", "hessenberg", "tridiagonal", "tridiagonal_solve",
                     "householder_product", "ormqr", "lu_pivots_to_permutation",
                     "cholesky_update", "symmetric_product"}  # fmt: skip


def test_eig_jaxpr_carries_jax_parameters() -> None:
    text = str(make_jaxpr(lambda x: linalg.eig(x, compute_left_eigenvectors=False))(np.eye(2)))
    assert "compute_left_eigenvectors=False" in text and "enable_eigvec_derivs=False" in text
    assert "implementation=None" in text


def test_eig_use_magma_is_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match="use_magma"):
        outs = eval_shape(lambda x: linalg.eig(x, use_magma=False), _s((2, 2)))
    assert len(outs) == 3


def test_symmetric_product_symmetrizes_from_the_lower_triangle() -> None:
    jaxpr = make_jaxpr(lambda a, c: linalg.symmetric_product(a, c, symmetrize_output=True))(
        np.ones((3, 2), np.float32), np.eye(3, dtype=np.float32)
    )
    assert jaxpr.eqns[0].primitive.name == "symmetric_product"
    assert "select_n" in {e.primitive.name for e in jaxpr.eqns}
