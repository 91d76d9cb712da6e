"""``lax.linalg.qdwh``: the polar decomposition by the QR-based dynamically weighted Halley iteration.

Nakatsukasa, Bai and Gygi, "Optimizing Halley's iteration for computing the
matrix polar decomposition", SIAM J. Matrix Anal. Appl. 31 (2010), as JAX
computes it: the weights ``(a, b, c)`` of each step are fixed in Python from
the lower bound ``l`` of the smallest singular value (starting at ``eps``),
steps with ``c > 100`` use a QR factorisation and the others a Cholesky
factorisation, then plain Halley steps run until the iterate moves less than
``(5 eps)^(1/3)`` or ``max_iterations`` steps were taken, and one
Newton-Schulz step refines the result. Written with ``lax`` operations only,
so it runs wherever ``qr``, ``cholesky`` and ``triangular_solve`` do, and
staged in one ``jit`` (``max_iterations`` and ``eps`` static), as in JAX.

Example:
    >>> import numpy as np
    >>> from tessela_tracer import eval_shape, ShapeDtypeStruct
    >>> [o.shape for o in eval_shape(qdwh, ShapeDtypeStruct((4, 3), "float32"))]
    [(4, 3), (3, 3), (), ()]
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tessela_tracer import _dtypes, _lax, _lax_composite, _lax_control, _lax_reduce, _lax_shape
from tessela_tracer._core import get_aval_of
from tessela_tracer._errors import ConcretizationTypeError
from tessela_tracer._jit import jit
from tessela_tracer._prims_linalg import cholesky_p, qr_p, triangular_solve_p
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["qdwh"]

_CHOLESKY_CUTOFF = 100


def _is_complex(x: Any) -> bool:
    return bool(_dtypes.issubdtype(get_aval_of(x).dtype, np.complexfloating))


def _H(x: Any) -> Any:
    xt = _lax_shape.transpose(x, (1, 0))
    return _lax.conj(xt) if _is_complex(x) else xt


def _mm(a: Any, b: Any) -> Any:
    return _lax_reduce.dot_general(a, b, (((1,), (0,)), ((), ())))


def _scalar(value: Any, like: Any) -> Any:
    return np.asarray(value, get_aval_of(like).dtype)


def _eye(n: int, dtype: Any) -> Any:
    return np.eye(n, dtype=dtype)


def _mask(x: Any, dims: tuple[Any, Any], alternative: Any = 0) -> Any:
    """``x`` with the entries outside the leading ``dims`` block replaced by ``alternative``."""
    aval = get_aval_of(x)
    rows, cols = (
        _lax.lt(_lax_shape.broadcasted_iota(np.int32, aval.shape, axis), d)
        for axis, d in enumerate(dims)
    )
    inside = _lax.bitwise_and(rows, cols)
    alt: Any
    if np.ndim(alternative) == 2:
        alt = np.asarray(alternative, aval.dtype)
    else:
        alt = _lax_shape.broadcast_in_dim(np.asarray(alternative, aval.dtype), aval.shape, ())
    return _lax.select(inside, x, alt)


def _tril(x: Any) -> Any:
    shape = get_aval_of(x).shape
    rows = _lax_shape.broadcasted_iota(np.int32, shape, 0)
    cols = _lax_shape.broadcasted_iota(np.int32, shape, 1)
    zeros = _lax_shape.broadcast_in_dim(np.zeros((), get_aval_of(x).dtype), shape, ())
    return _lax.select(_lax.ge(rows, cols), x, zeros)


def _abs_sum(x: Any, axis: int) -> Any:
    return _lax_reduce.reduce_sum(_lax.abs(x), (axis,))


def _frobenius(x: Any) -> Any:
    mag = _lax.abs(x)
    return _lax.sqrt(_lax_reduce.reduce_sum(_lax.mul(mag, mag), (0, 1)))


def _use_qr(u: Any, m: Any, n: Any, params: Any) -> Any:
    """One QR-based step on ``u`` (static shape ``M x N``, true shape ``m x n``)."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    big_m, big_n = get_aval_of(u).shape
    dtype = get_aval_of(u).dtype
    padded = _lax_shape.pad(_lax.mul(sqrt_c, u), np.zeros((), dtype), [(0, big_n, 0), (0, 0, 0)])
    y = _lax_shape.dynamic_update_slice(padded, _eye(big_n, dtype), (m, np.int32(0)))
    q, _ = qr_p.bind(y, pivoting=False, full_matrices=False, use_magma=None)
    q1 = _mask(_lax_shape.slice(q, (0, 0), (big_m, big_n)), (m, n))
    q2 = _lax_shape.dynamic_slice(q, (m, np.int32(0)), (big_n, big_n))
    q2 = _H(_mask(q2, (n, n)))
    return _lax.add(_lax.mul(e, u), _lax.mul(a_minus_e_by_sqrt_c, _mm(q1, q2)))


def _use_cholesky(u: Any, m: Any, n: Any, params: Any) -> Any:
    """One Cholesky-based step on ``u`` (static shape ``M x N``, true shape ``m x n``)."""
    a_minus_e, c, e = params
    big_n = get_aval_of(u).shape[1]
    dtype = get_aval_of(u).dtype
    x = _lax.add(_lax.mul(c, _mm(_H(u), u)), _eye(big_n, dtype))
    # The identity outside the true block keeps the padded matrix positive definite.
    x = _mask(x, (n, n), _eye(big_n, dtype))
    y = _tril(cholesky_p.bind(x))
    ut = _lax_shape.transpose(u, (1, 0))
    z = triangular_solve_p.bind(
        y, ut, left_side=True, lower=True, transpose_a=False,
        conjugate_a=_is_complex(u), unit_diagonal=False,
    )  # fmt: skip
    z = _lax.conj(z) if _is_complex(u) else z
    z = triangular_solve_p.bind(
        y, z, left_side=True, lower=True, transpose_a=True,
        conjugate_a=_is_complex(u), unit_diagonal=False,
    )  # fmt: skip
    return _lax.add(_lax.mul(e, u), _lax.mul(a_minus_e, _H(z)))


def _qr_params(a: float, b: float, c: float) -> tuple[float, float, float]:
    e = b / c
    sqrt_c = c ** (1 / 2)
    return ((a - e) / sqrt_c, sqrt_c, e)


def _chol_params(a: float, b: float, c: float) -> tuple[float, float, float]:
    e = b / c
    return (a - e, c, e)


def _coefficients(eps: float, max_iterations: int) -> tuple[list[Any], list[Any]]:
    """The weights of the QR-based and the Cholesky-based steps, fixed from ``eps``."""
    lower, tol_l = eps, 10.0 * eps / 2.0
    qr_coefs: list[Any] = []
    chol_coefs: list[Any] = []
    k = 0
    while lower + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = lower * lower
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        lower = lower * (a + b * l2) / (1 + c * l2)
        if c > _CHOLESKY_CUTOFF:
            qr_coefs.append(_qr_params(a, b, c))
        else:
            chol_coefs.append(_chol_params(a, b, c))
    return qr_coefs, chol_coefs


def _qdwh(x: Any, m: Any, n: Any, max_iterations: int, eps: float | None) -> tuple[Any, ...]:
    dtype = get_aval_of(x).dtype
    if eps is None:
        eps = float(_dtypes.finfo(dtype).eps)
    one_norm = _lax_reduce.reduce_max(_abs_sum(x, 0), (0,))
    inf_norm = _lax_reduce.reduce_max(_abs_sum(x, 1), (0,))
    alpha_inverse = _lax.mul(_lax.rsqrt(one_norm), _lax.rsqrt(inf_norm))
    zero = np.zeros((), get_aval_of(one_norm).dtype)
    alpha_inverse = _lax.select(_lax.eq(one_norm, zero), np.ones((), zero.dtype), alpha_inverse)
    u = _lax.mul(x, _lax.convert_element_type(alpha_inverse, dtype))
    tol_norm = float(np.cbrt(10.0 * eps / 2.0))
    qr_coefs, chol_coefs = _coefficients(eps, max_iterations)
    halley = tuple(np.asarray(p, dtype) for p in _chol_params(3, 1, 3))

    def step(
        u: Array, params: tuple[ArrayLike, ...], update: Callable[..., Array], test: bool
    ) -> tuple[Array, ArrayLike]:
        new = update(u, m, n, params)
        if not test:
            return new, np.bool_(True)
        return new, _lax.gt(_frobenius(_lax.sub(new, u)), np.asarray(tol_norm, zero.dtype))

    def iterate(
        u: Array, coefs: list[tuple[float, ...]], update: Callable[..., Array], test: bool
    ) -> tuple[Array, ArrayLike]:
        if not coefs:
            return u, np.bool_(True)
        table = np.asarray(coefs, dtype)

        def body(k: Array, state: tuple[Array, ArrayLike]) -> tuple[Array, ArrayLike]:
            row = _lax_composite.dynamic_index_in_dim(table, k, 0, keepdims=False)
            params = tuple(_lax_shape.squeeze(_lax_shape.slice(row, (i,), (i + 1,)), (0,))
                           for i in range(3))  # fmt: skip
            return step(state[0], params, update, test)

        init: tuple[Array, ArrayLike] = (u, np.bool_(True))
        out = _lax_control.fori_loop(0, len(coefs), body, init)
        return out

    u, _ = iterate(u, qr_coefs, _use_qr, False)
    u, not_converged = iterate(u, chol_coefs, _use_cholesky, True)

    def cond_fun(state: tuple[ArrayLike, Array, ArrayLike]) -> Array:
        k, _, not_converged = state
        return _lax.bitwise_and(not_converged, _lax.lt(k, np.int32(max_iterations)))

    def body_fun(state: tuple[ArrayLike, Array, ArrayLike]) -> tuple[ArrayLike, Array, ArrayLike]:
        k, u, _ = state
        u, not_converged = step(u, halley, _use_cholesky, True)
        return _lax.add(k, np.int32(1)), u, not_converged

    k0 = np.int32(len(qr_coefs) + len(chol_coefs))
    state: tuple[ArrayLike, Array, ArrayLike] = (
        k0,
        u,
        _lax.convert_element_type(not_converged, np.bool_),
    )
    num_iters, u, not_converged = _lax_control.while_loop(cond_fun, body_fun, state)
    # One Newton-Schulz step refines the unitary factor.
    u = _lax.sub(_lax.mul(_scalar(1.5, u), u), _lax.mul(_scalar(0.5, u), _mm(u, _mm(_H(u), u))))
    h = _mm(_H(u), x)
    h = _lax.div(_lax.add(h, _H(h)), _scalar(2, h))
    return u, h, num_iters, _lax.bitwise_not(not_converged)


_qdwh_jit = jit(_qdwh, static_argnums=(3, 4))


def _static(name: str, kind: type, value: Any) -> Any:
    try:
        return kind(value)
    except (TypeError, ConcretizationTypeError):
        raise ConcretizationTypeError(
            f"The `{name}` argument must be statically specified to use `qdwh` within "
            f"transformations; pass a Python {kind.__name__}."
        ) from None


def qdwh(
    x: ArrayLike,
    *,
    is_hermitian: bool = False,
    max_iterations: int | None = None,
    eps: float | None = None,
    dynamic_shape: tuple[int, int] | None = None,
) -> tuple[Array, Array, Array, Array]:
    """Polar decomposition ``x = u h`` by the QDWH iteration.

    Args:
      x: a full-rank matrix ``[M, N]`` with ``M >= N``, floating or complex; it
        may be a padded copy of a smaller matrix (``dynamic_shape``).
      is_hermitian: accepted as JAX does; unused.
      max_iterations: the most iterations (default 10); a Python int.
      eps: the convergence tolerance base (default the dtype's machine
        epsilon): iteration stops once ``|u_k - u_{k-1}| < (5 eps)^(1/3)``.
      dynamic_shape: ``(m, n)``, the true shape inside the padded ``x``.

    Returns:
      ``(u, h, num_iters, is_converged)``: ``u`` ``[M, N]`` with orthonormal
      columns, ``h`` ``[N, N]`` Hermitian positive semidefinite, the number of
      iterations run (int32) and whether the iteration converged (bool).

    Raises:
      ValueError: ``M < N``.

    Example:
        >>> import numpy as np
        >>> from tessela_tracer import make_jaxpr
        >>> [e.primitive.name for e in make_jaxpr(qdwh)(np.eye(2, dtype=np.float32)).eqns]
        ['jit']
    """
    _static("is_hermitian", bool, is_hermitian)
    iters = 10 if max_iterations is None else _static("max_iterations", int, max_iterations)
    aval = get_aval_of(x)
    if aval.ndim != 2:
        raise ValueError(f"qdwh takes one matrix [M, N], got shape {aval.shape}.")
    big_m, big_n = aval.shape
    if big_m < big_n:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    m: Any = np.int32(big_m)
    n: Any = np.int32(big_n)
    if dynamic_shape is not None:
        m, n = (np.int32(operator.index(d)) if isinstance(d, int) else d for d in dynamic_shape)
        x = _mask(x, (m, n))
    u, h, num_iters, is_converged = _qdwh_jit(x, m, n, iters, eps)
    return u, h, num_iters, is_converged
