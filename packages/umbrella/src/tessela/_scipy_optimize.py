"""``jax.scipy.optimize``: ``minimize`` with BFGS, JAX 0.10.2's algorithm.

BFGS with the inverse-Hessian update, and a line search for the strong Wolfe
conditions (Nocedal and Wright's algorithms 3.5 and 3.6: bracketing, then
zooming with cubic, quadratic or bisection steps), all inside ``lax.while_loop``
so that ``minimize`` traces, compiles and batches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, cast

import numpy as np
import tessela_numpy as tnp
from tessela_autodiff import value_and_grad
from tessela_numpy import linalg as tnp_linalg
from tessela_tracer import dtypes, lax
from tessela_tracer.typing import Array, ArrayLike

__all__ = ["OptimizeResults", "minimize"]


def _dot(a: Any, b: Any) -> Any:
    return tnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _where(bit: Any, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {k: tnp.where(bit, v, old[k]) for k, v in new.items()}


def _cubicmin(a: Any, fa: Any, fpa: Any, b: Any, fb: Any, c: Any, fc: Any) -> Any:
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = tnp.stack([tnp.stack([dc**2, -(db**2)]), tnp.stack([-(dc**3), db**3])])
    d2 = tnp.stack([fb - fa - fpa * db, fc - fa - fpa * dc])
    big_a, big_b = _dot(d1, d2) / denom
    radical = big_b * big_b - 3.0 * big_a * fpa
    return a + (-big_b + tnp.sqrt(radical)) / (3.0 * big_a)


def _quadmin(a: Any, fa: Any, fpa: Any, b: Any, fb: Any) -> Any:
    db = b - a
    big_b = (fb - fa - fpa * db) / db**2
    return a - fpa / (2.0 * big_b)


class _Zoom(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(
    func: Callable[[Any], Any], wolfe_one: Callable[..., Any], wolfe_two: Callable[..., Any],
    lo: tuple[Any, Any, Any], hi: tuple[Any, Any, Any], g_0: Any, pass_through: Any,
) -> _Zoom:  # fmt: skip
    a_lo, phi_lo, dphi_lo = lo
    a_hi, phi_hi, dphi_hi = hi
    false, zero = tnp.array(False), np.int32(0)
    state = _Zoom(
        false, false, zero, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi, (a_lo + a_hi) / 2.0,
        (phi_lo + phi_hi) / 2.0, tnp.ones_like(a_lo), phi_lo, dphi_lo, g_0, zero, zero,
    )  # fmt: skip

    def body(s: _Zoom) -> _Zoom:
        dalpha = s.a_hi - s.a_lo
        a, b = tnp.minimum(s.a_hi, s.a_lo), tnp.maximum(s.a_hi, s.a_lo)
        cchk, qchk = 0.2 * dalpha, 0.1 * dalpha
        threshold = 1e-5 if dtypes.finfo(dalpha.dtype).bits < 64 else 1e-10
        s = s._replace(failed=s.failed | (dalpha <= threshold))
        a_cubic = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (a_cubic > a + cchk) & (a_cubic < b - cchk)
        a_quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (a_quad > a + qchk) & (a_quad < b - qchk)
        use_bisection = ~use_cubic & ~use_quad
        a_j = tnp.where(use_cubic, a_cubic, s.a_rec)
        a_j = tnp.where(use_quad, a_quad, a_j)
        a_j = tnp.where(use_bisection, (s.a_lo + s.a_hi) / 2.0, a_j)
        phi_j, dphi_j, g_j = func(a_j)
        phi_j, dphi_j = phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = wolfe_two(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        d = s._asdict()
        s = s._replace(**_where(hi_to_j, d, {
            "a_hi": a_j, "phi_hi": phi_j, "dphi_hi": dphi_j, "a_rec": s.a_hi, "phi_rec": s.phi_hi,
        }))  # fmt: skip
        d = s._asdict()
        s = s._replace(done=star_to_j | s.done, **_where(star_to_j, d, {
            "a_star": a_j, "phi_star": phi_j, "dphi_star": dphi_j, "g_star": g_j,
        }))  # fmt: skip
        d = s._asdict()
        s = s._replace(**_where(hi_to_lo, d, {
            "a_hi": s.a_lo, "phi_hi": s.phi_lo, "dphi_hi": s.dphi_lo, "a_rec": s.a_hi,
            "phi_rec": s.phi_hi,
        }))  # fmt: skip
        d = s._asdict()
        s = s._replace(**_where(lo_to_j & ~hi_to_lo, d, {"a_rec": s.a_lo, "phi_rec": s.phi_lo}))
        d = s._asdict()
        s = s._replace(**_where(lo_to_j, d, {"a_lo": a_j, "phi_lo": phi_j, "dphi_lo": dphi_j}))
        s = s._replace(j=s.j + 1)
        return s._replace(failed=s.failed | (s.j >= 30))

    out: _Zoom = lax.while_loop(lambda s: ~s.done & ~pass_through & ~s.failed, body, state)
    return out


class _Search(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class _SearchResult(NamedTuple):
    failed: Any
    nfev: Any
    ngev: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def _line_search(
    f: Callable[[Any], Any], xk: Any, pk: Any, old_fval: Any, old_old_fval: Any, gfk: Any,
    maxiter: int, c1: float = 1e-4, c2: float = 0.9,
) -> _SearchResult:  # fmt: skip
    def func(t: ArrayLike) -> tuple[Array, Array, Array]:
        t = tnp.asarray(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, tnp.real(_dot(g, pk)), g

    phi_0, dphi_0 = old_fval, tnp.real(_dot(gfk, pk))
    candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
    start = tnp.where(candidate > 1, tnp.ones_like(candidate), candidate)

    def wolfe_one(a_i: Array, phi_i: Array) -> Array:
        return cast(Array, phi_i > phi_0 + c1 * a_i * dphi_0)

    def wolfe_two(dphi_i: Array) -> Array:
        return tnp.abs(dphi_i) <= -c2 * dphi_0

    zero_a = tnp.zeros((), pk.dtype)
    false, zero = tnp.array(False), np.int32(0)
    state = _Search(false, false, np.int32(1), zero_a, phi_0, dphi_0, zero, zero, zero_a,
                    phi_0, dphi_0, gfk)  # fmt: skip
    keys = ("a_star", "phi_star", "dphi_star", "g_star")

    def body(s: _Search) -> _Search:
        a_i = tnp.where(s.i == 1, start, s.a_i1 * 2.0).astype(pk.dtype)
        phi_i, dphi_i, g_i = func(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        star_to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        star_to_i = wolfe_two(dphi_i) & ~star_to_zoom1
        star_to_zoom2 = (dphi_i >= 0.0) & ~star_to_zoom1 & ~star_to_i
        zoom1 = _zoom(func, wolfe_one, wolfe_two, (s.a_i1, s.phi_i1, s.dphi_i1),
                      (a_i, phi_i, dphi_i), gfk, ~star_to_zoom1)  # fmt: skip
        s = s._replace(nfev=s.nfev + zoom1.nfev, ngev=s.ngev + zoom1.ngev)
        zoom2 = _zoom(func, wolfe_one, wolfe_two, (a_i, phi_i, dphi_i),
                      (s.a_i1, s.phi_i1, s.dphi_i1), gfk, ~star_to_zoom2)  # fmt: skip
        s = s._replace(nfev=s.nfev + zoom2.nfev, ngev=s.ngev + zoom2.ngev)
        z1 = {k: getattr(zoom1, k) for k in keys}
        s = s._replace(done=star_to_zoom1 | s.done, failed=(star_to_zoom1 & zoom1.failed) | s.failed,
                       **_where(star_to_zoom1, s._asdict(), z1))  # fmt: skip
        new_i = {"a_star": a_i, "phi_star": phi_i, "dphi_star": dphi_i, "g_star": g_i}
        s = s._replace(done=star_to_i | s.done, **_where(star_to_i, s._asdict(), new_i))
        z2 = {k: getattr(zoom2, k) for k in keys}
        s = s._replace(done=star_to_zoom2 | s.done, failed=(star_to_zoom2 & zoom2.failed) | s.failed,
                       **_where(star_to_zoom2, s._asdict(), z2))  # fmt: skip
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    s = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = tnp.where(s.failed, np.int32(1), tnp.where(s.i > maxiter, np.int32(3), np.int32(0)))
    alpha = tnp.asarray(s.a_star)
    if dtypes.finfo(alpha.dtype).bits != 64:
        alpha = tnp.where(tnp.abs(alpha) < 1e-8, tnp.sign(alpha) * 1e-8, alpha)
    return _SearchResult(s.failed | ~s.done, s.nfev, s.ngev, alpha, s.phi_star, s.g_star, status)


class OptimizeResults(NamedTuple):
    """The result of :func:`minimize`, with SciPy's field names.

    Fields: ``x`` (the solution), ``success``, ``status`` (0 converged, 1 the
    iteration limit, 2 + the line search's status when it failed), ``fun``,
    ``jac``, ``hess_inv``, ``nfev``, ``njev`` and ``nit``.
    """

    x: Array
    success: Array
    status: Array
    fun: Array
    jac: Array
    hess_inv: Array
    nfev: Array
    njev: Array
    nit: Array


class _BFGS(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    h_k: Any
    old_old_fval: Any
    line_search_status: Any


def _bfgs(
    fun: Callable[[Any], Any], x0: Any, maxiter: int | None = None, norm: Any = np.inf,
    gtol: float = 1e-5, line_search_maxiter: int = 10,
) -> OptimizeResults:  # fmt: skip
    if maxiter is None:
        maxiter = int(np.size(x0)) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    one = np.int32(1)
    state = _BFGS(
        tnp_linalg.norm(g_0, ord=norm) < gtol, tnp.array(False), np.int32(0), one, one, x0,
        f_0, g_0, tnp.eye(d, dtype=x0.dtype), f_0 + tnp_linalg.norm(g_0) / 2, np.int32(0),
    )  # fmt: skip

    def body(s: _BFGS) -> _BFGS:
        p_k = -_dot(s.h_k, s.g_k)
        ls = _line_search(fun, s.x_k, p_k, s.f_k, s.old_old_fval, s.g_k, line_search_maxiter)
        s = s._replace(nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
                       line_search_status=ls.status)  # fmt: skip
        s_k = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho_k = 1.0 / _dot(y_k, s_k)
        w = tnp.eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, None] * y_k[None, :])
        h_next = tnp.einsum("ij,jk,lk", w, s.h_k, w, precision=lax.Precision.HIGHEST)
        h_next = h_next + rho_k * s_k[:, None] * s_k[None, :]
        h_next = tnp.where(tnp.isfinite(rho_k), h_next, s.h_k)
        return s._replace(
            converged=tnp_linalg.norm(ls.g_k, ord=norm) < gtol, k=s.k + 1, x_k=s.x_k + s_k,
            f_k=ls.f_k, g_k=ls.g_k, h_k=h_next, old_old_fval=s.f_k,
        )  # fmt: skip

    s = lax.while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), body, state)
    status = tnp.where(
        s.converged, np.int32(0),
        tnp.where(s.k == maxiter, np.int32(1),
                  tnp.where(s.failed, 2 + s.line_search_status, np.int32(-1))),
    )  # fmt: skip
    return OptimizeResults(
        x=s.x_k, success=s.converged & ~s.failed, status=status, fun=s.f_k, jac=s.g_k,
        hess_inv=s.h_k, nfev=s.nfev, njev=s.ngev, nit=s.k,
    )  # fmt: skip


def minimize(
    fun: Callable[..., ArrayLike], x0: ArrayLike, args: tuple[Any, ...] = (), *, method: str,
    tol: float | None = None, options: Mapping[str, Any] | None = None,
) -> OptimizeResults:  # fmt: skip
    """Minimize a scalar function of one vector (``method="BFGS"``, as JAX supports).

    Args:
        fun: ``fun(x, *args)`` returning a scalar.
        x0: the starting point, a 1-D array.
        args: extra arguments of ``fun`` (a tuple).
        method: ``"BFGS"`` (case-insensitive).
        tol: ignored, as in JAX (use ``options={"gtol": ...}``).
        options: ``maxiter``, ``norm``, ``gtol``, ``line_search_maxiter``.

    Returns:
        :class:`OptimizeResults`.

    Raises:
        TypeError: ``args`` is not a tuple.
        ValueError: another ``method``.

    Example:
        >>> res = minimize(lambda x: tnp.sum((x - 3.0) ** 2), tnp.zeros(2), method="BFGS")
        >>> print(tnp.round(res.x, 4), bool(res.success))
        [3. 3.] True
    """
    del tol
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    if method.lower() != "bfgs":
        raise ValueError(f"Method {method} not recognized")
    return _bfgs(lambda x: fun(x, *args), tnp.asarray(x0), **dict(options or {}))
