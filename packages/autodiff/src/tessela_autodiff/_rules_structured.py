"""JVP and transpose rules of the structured-matrix primitives, as JAX defines them.

- ``tridiagonal_solve``: ``X = A^-1 B`` is linear in ``B``; its JVP solves
  with the same diagonals for ``B' - A' X`` (``A' X`` as a tridiagonal product
  of the diagonals' tangents), and its transpose solves with ``A^T``, whose
  subdiagonal is ``du`` shifted down one place and whose superdiagonal is
  ``dl`` shifted up.
- ``lu_pivots_to_permutation``: integer-valued, so its tangent is zero.
- ``hessenberg``, ``tridiagonal``, ``householder_product``, ``ormqr``,
  ``cholesky_update`` and ``symmetric_product`` have no derivative in JAX:
  differentiating them raises ``NotImplementedError`` naming the primitive
  (a symbolic zero tangent passes through).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tessela_tracer import lax
from tessela_tracer import primitives as P
from tessela_tracer.extend import Primitive, get_aval_of
from tessela_tracer.typing import Array, ArrayLike

from tessela_autodiff._ad_util import Tangent, Zero, add_tangents, instantiate, is_undefined
from tessela_autodiff._jvp import register_jvp
from tessela_autodiff._rule_helpers import defjvp_zero
from tessela_autodiff._transpose import register_transpose

__all__: list[str] = []


def _not_differentiable(prim: Primitive) -> Any:
    def rule(
        primals: Sequence[ArrayLike], tangents: Sequence[Tangent], **params: Any
    ) -> tuple[Array | list[Array], Zero | list[Zero]]:
        out = prim.bind(*primals, **params)
        if all(type(t) is Zero for t in tangents):
            outs = out if prim.multiple_results else [out]
            zeros = [Zero.from_primal(o) for o in outs]
            return out, (zeros if prim.multiple_results else zeros[0])
        raise NotImplementedError(
            f"Differentiation rule for '{prim.name}' not implemented (JAX defines none); "
            f"apply lax.stop_gradient to the operands of {prim.name} if their derivative is "
            "not needed."
        )

    return rule


for _prim in (
    P.hessenberg_p,
    P.tridiagonal_p,
    P.householder_product_p,
    P.ormqr_p,
    P.cholesky_update_p,
    P.symmetric_product_p,
):
    register_jvp(_prim, _not_differentiable(_prim))

defjvp_zero(P.lu_pivots_to_permutation_p)


# --------------------------------------------------------- tridiagonal_solve


def _shift(v: Any, offset: int) -> Any:
    """Vectors ``v[..., i - offset]`` (zeros shifted in) along the last axis."""
    aval = get_aval_of(v)
    config = [(0, 0, 0)] * (aval.ndim - 1) + [(offset, -offset, 0)]
    return lax.pad(v, np.zeros((), aval.dtype), config)


def _tridiagonal_product(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """``A @ b`` for the tridiagonal ``A`` of diagonals ``dl``, ``d``, ``du``."""
    nd = get_aval_of(b).ndim
    shape = get_aval_of(b).shape

    def col(v: ArrayLike) -> Array:
        return lax.broadcast_in_dim(v, shape, tuple(range(nd - 1)))

    b_dtype = get_aval_of(b).dtype
    below = lax.pad(b, np.zeros((), b_dtype), [(0, 0, 0)] * (nd - 2) + [(1, -1, 0), (0, 0, 0)])
    above = lax.pad(b, np.zeros((), b_dtype), [(0, 0, 0)] * (nd - 2) + [(-1, 1, 0), (0, 0, 0)])
    y = lax.mul(col(d), b)
    y = lax.add(y, lax.mul(col(dl), below))
    return lax.add(y, lax.mul(col(du), above))


def _tridiagonal_solve_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[Tangent], *, perturb_singular: bool
) -> tuple[Any, Any]:
    *diags, _ = primals
    *diag_dots, b_dot = tangents
    ans = P.tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is Zero for t in diag_dots):
        rhs = b_dot
    else:
        dl_dot, d_dot, du_dot = (instantiate(t) for t in diag_dots)
        product = _tridiagonal_product(dl_dot, d_dot, du_dot, ans)
        rhs = add_tangents(b_dot, lax.neg(product))
    if type(rhs) is Zero:
        return ans, Zero.from_primal(ans)
    return ans, P.tridiagonal_solve_p.bind(*diags, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(
    ct: Any, dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool
) -> list[Any]:
    if any(is_undefined(x) for x in (dl, d, du)) or not is_undefined(b):
        raise ValueError(
            "tridiagonal_solve is linear in b only; it cannot be transposed with respect to "
            "its diagonals."
        )
    if type(ct) is Zero:
        return [None, None, None, None]
    # A^T has subdiagonal du[i - 1] and superdiagonal dl[i + 1].
    dl_t, du_t = _shift(du, 1), _shift(dl, -1)
    ct_b = P.tridiagonal_solve_p.bind(dl_t, d, du_t, ct, perturb_singular=perturb_singular)
    return [None, None, None, ct_b]


register_jvp(P.tridiagonal_solve_p, _tridiagonal_solve_jvp)
register_transpose(P.tridiagonal_solve_p, _tridiagonal_solve_transpose)
