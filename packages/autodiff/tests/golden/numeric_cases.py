"""Programs whose derivatives are compared numerically with the reference.

Shared by ``generate.py`` (run under the reference) and ``test_golden_numeric.py``.
Each case builds ``(fun, args)`` from an ``api`` namespace (``lax``, ``jit``,
``checkpoint``, ``custom_jvp``, ``custom_vjp``, ``grad``, ``jvp``, ``vjp``,
``jacfwd``, ``jacrev``, ``hessian``, ``zeta``: a Hurwitz zeta differentiable in
``q``); :func:`evaluate` runs the same
derivative computations on either implementation and returns host arrays:

- ``grad``: ``grad(loss, argnums=all)`` with ``loss = sum(fun(*args) * w)``;
- ``jvp``: the primal output and the output tangent for fixed tangents;
- ``vjp``: the input cotangents for a fixed output cotangent (non-scalar outputs);
- ``value``: ``fun(*args)`` itself (used for nested derivatives).

Inputs, weights, tangents and cotangents come from NumPy generators seeded by
the case name, so both sides see the same numbers.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Fun = Callable[..., Any]
Spec = tuple[tuple[int, ...], float, float]  # shape, low, high


@dataclass(frozen=True)
class Case:
    family: str
    build: Callable[[Any], Fun]
    specs: tuple[Spec, ...]
    dtype: str = "float32"
    modes: tuple[str, ...] = ("grad", "jvp", "vjp")


CASES: dict[str, Case] = {}
M23 = (2, 3)


def _add(name: str, family: str, build: Callable[[Any], Fun], *specs: Spec, **kw: Any) -> None:
    assert name not in CASES, name
    CASES[name] = Case(family, build, tuple(specs), **kw)


def _rng(name: str, tag: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{name}/{tag}".encode()))


def inputs(name: str) -> tuple[np.ndarray, ...]:
    case = CASES[name]
    rng = _rng(name, "args")
    return tuple(
        rng.uniform(lo, hi, shape).astype(case.dtype) for shape, lo, hi in case.specs
    )  # fmt: skip


def _draw(name: str, tag: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    return _rng(name, tag).standard_normal(shape).astype(dtype)


def _sum_all(lax: Any, y: Any) -> Any:
    return lax.reduce_sum(y, tuple(range(np.ndim(y))))


def evaluate(api: Any, name: str) -> dict[str, np.ndarray]:
    """Every derivative the case asks for, as ``{"mode:index": array}``."""
    case = CASES[name]
    lax = api.lax
    fun = case.build(api)
    args = inputs(name)
    argnums = tuple(range(len(args)))
    out: dict[str, np.ndarray] = {}
    if "value" in case.modes:
        out["value:0"] = np.asarray(fun(*args))
    if "jvp" in case.modes:
        tangents = tuple(_draw(name, f"t{i}", a.shape, a.dtype) for i, a in enumerate(args))
        y, t = api.jvp(fun, args, tangents)
        out["primal:0"] = np.asarray(y)
        out["jvp:0"] = np.asarray(t)
    if "grad" in case.modes or "vjp" in case.modes:
        y0 = np.asarray(fun(*args))
        if "grad" in case.modes:
            w = _draw(name, "w", y0.shape, y0.dtype)

            def loss(*xs: Any) -> Any:
                return _sum_all(lax, lax.mul(fun(*xs), w))

            for i, g in enumerate(api.grad(loss, argnums=argnums)(*args)):
                out[f"grad:{i}"] = np.asarray(g)
        if "vjp" in case.modes and y0.ndim > 0:
            ct = _draw(name, "ct", y0.shape, y0.dtype)
            _, pullback = api.vjp(fun, *args)
            for i, c in enumerate(pullback(ct)):
                out[f"vjp:{i}"] = np.asarray(c)
    return out


# --- elementwise unary -------------------------------------------------------------------

UNARY: dict[str, tuple[str, float, float]] = {
    "sin": ("sin", -2, 2), "cos": ("cos", -2, 2), "tan": ("tan", -1, 1),
    "tanh": ("tanh", -2, 2), "exp": ("exp", -2, 2), "exp2": ("exp2", -2, 2),
    "log": ("log", 0.5, 3), "log1p": ("log1p", -0.5, 2), "expm1": ("expm1", -2, 2),
    "logistic": ("logistic", -3, 3), "sqrt": ("sqrt", 0.5, 3), "rsqrt": ("rsqrt", 0.5, 3),
    "cbrt": ("cbrt", 0.5, 3), "square": ("square", -2, 2), "asin": ("asin", -0.8, 0.8),
    "acos": ("acos", -0.8, 0.8), "atan": ("atan", -2, 2), "sinh": ("sinh", -2, 2),
    "cosh": ("cosh", -2, 2), "asinh": ("asinh", -2, 2), "acosh": ("acosh", 1.5, 3),
    "atanh": ("atanh", -0.8, 0.8), "erf": ("erf", -2, 2), "erfc": ("erfc", -2, 2),
    "erf_inv": ("erf_inv", -0.8, 0.8), "lgamma": ("lgamma", 0.5, 3),
    "digamma": ("digamma", 0.5, 3), "abs": ("abs", -2, 2), "neg": ("neg", -2, 2),
}  # fmt: skip


def _unary(op: str) -> Callable[[Any], Fun]:
    return lambda api: getattr(api.lax, op)


for _dt in ("float32", "float64"):
    _sfx = "" if _dt == "float32" else "_f64"
    for _name, (_op, _lo, _hi) in UNARY.items():
        _add(f"unary_{_name}{_sfx}", "unary", _unary(_op), (M23, _lo, _hi), dtype=_dt)
    _add(
        f"unary_integer_pow3{_sfx}", "unary",
        lambda api: lambda x: api.lax.integer_pow(x, 3), (M23, -2, 2), dtype=_dt,
    )  # fmt: skip
    _add(
        f"unary_integer_pow_m2{_sfx}", "unary",
        lambda api: lambda x: api.lax.integer_pow(x, -2), (M23, 0.5, 2), dtype=_dt,
    )  # fmt: skip

# --- elementwise binary ------------------------------------------------------------------

BINARY: dict[str, tuple[str, float, float]] = {
    "add": ("add", -2, 2), "sub": ("sub", -2, 2), "mul": ("mul", -2, 2),
    "div": ("div", 0.5, 2), "pow": ("pow", 0.5, 2), "atan2": ("atan2", -2, 2),
    "max": ("max", -2, 2), "min": ("min", -2, 2), "rem": ("rem", 0.5, 2),
}  # fmt: skip

for _dt in ("float32", "float64"):
    _sfx = "" if _dt == "float32" else "_f64"
    for _name, (_op, _lo, _hi) in BINARY.items():
        _add(f"binary_{_name}{_sfx}", "binary", _unary(_op), (M23, _lo, _hi), (M23, _lo, _hi),
             dtype=_dt)  # fmt: skip
_add("binary_mul_bcast_scalar", "binary", _unary("mul"), ((), -2, 2), (M23, -2, 2))
_add(
    "binary_max_ties", "binary",
    lambda api: lambda x: api.lax.max(x, api.lax.round(x)), (M23, -2, 2),
)  # fmt: skip
_add(
    "binary_min_ties", "binary",
    lambda api: lambda x: api.lax.min(api.lax.floor(x), x), (M23, -2, 2),
)  # fmt: skip
_add(
    "binary_max_equal", "binary",
    lambda api: lambda x, y: api.lax.max(x, api.lax.mul(y, 0.0)), (M23, -2, 2), (M23, -2, 2),
)  # fmt: skip

# --- special functions of two operands ---------------------------------------------------
# polygamma in x with whole-number orders held fixed (the order is not differentiable), and
# zeta in q with exponents held fixed: the reference's lax.zeta has no derivative rule, so
# ``api.zeta`` is its differentiable Hurwitz zeta (jax.scipy.special.zeta), on Tessela lax.zeta.

_ORDERS = np.array([[0, 1, 2], [3, 1, 0]])
_EXPONENTS = np.array([[1.5, 2.0, 2.5], [3.0, 4.0, 1.75]])


def _polygamma_x(api: Any) -> Fun:
    return lambda x: api.lax.polygamma(_ORDERS.astype(x.dtype), x)


def _zeta_q(api: Any) -> Fun:
    return lambda q: api.zeta(_EXPONENTS.astype(q.dtype), q)


for _dt in ("float32", "float64"):
    _sfx = "" if _dt == "float32" else "_f64"
    _add(f"special_polygamma{_sfx}", "special", _polygamma_x, (M23, 0.5, 3), dtype=_dt)
    _add(f"special_zeta_q{_sfx}", "special", _zeta_q, (M23, 0.5, 3), dtype=_dt)

# --- incomplete gamma and beta, scaled Bessel functions ----------------------------------
# betainc is differentiable in x only; igamma_grad_a and random_gamma_grad (itself a
# derivative, computed inline by the reference) are compared by value.
_BETA_AB = (
    np.array([[0.5, 1.0, 2.5], [4.0, 0.75, 9.0]]),
    np.array([[3.0, 0.5, 1.5], [2.0, 6.0, 1.0]]),
)


def _betainc_x(api: Any) -> Fun:
    return lambda x: api.lax.betainc(_BETA_AB[0].astype(x.dtype), _BETA_AB[1].astype(x.dtype), x)


for _dt in ("float32", "float64"):
    _sfx = "" if _dt == "float32" else "_f64"
    _add(f"special_igamma{_sfx}", "special", lambda api: api.lax.igamma,
         (M23, 0.5, 4), (M23, 0.2, 6), dtype=_dt)  # fmt: skip
    _add(f"special_igammac{_sfx}", "special", lambda api: api.lax.igammac,
         (M23, 0.5, 4), (M23, 0.2, 6), dtype=_dt)  # fmt: skip
    _add(f"special_betainc_x{_sfx}", "special", _betainc_x, (M23, 0.05, 0.95), dtype=_dt)
    _add(f"special_bessel_i0e{_sfx}", "special", lambda api: api.lax.bessel_i0e,
         (M23, -8, 8), dtype=_dt)  # fmt: skip
    _add(f"special_bessel_i1e{_sfx}", "special", lambda api: api.lax.bessel_i1e,
         (M23, -8, 8), dtype=_dt)  # fmt: skip
for _name in ("igamma_grad_a", "random_gamma_grad"):
    _add(f"special_{_name}", "special", lambda api, n=_name: getattr(api.lax, n),
         (M23, 0.5, 4), (M23, 0.2, 6), modes=("value",))  # fmt: skip


def _complex(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any, y: Any) -> Any:
        z = lax.complex(x, y)
        w = lax.mul(z, lax.conj(lax.complex(y, lax.sin(x))))
        return lax.add(lax.real(w), lax.mul(lax.imag(w), 2.0))

    return f


_add("complex_real_imag_conj", "complex", _complex, (M23, -2, 2), (M23, -2, 2))

# --- zero-derivative primitives (sign, rounding, comparisons, argmax, stop_gradient) -----


def _zero_grad(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        a = lax.mul(lax.sign(x), x)
        b = lax.mul(lax.add(lax.floor(x), lax.ceil(x)), lax.round(x))
        return lax.add(a, lax.mul(b, x))

    return f


def _compare(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any, y: Any) -> Any:
        r = lax.select_n(lax.lt(x, y), x, y)
        r = lax.add(r, lax.select_n(lax.ge(x, 0.0), lax.sin(y), y))
        r = lax.add(r, lax.select_n(lax.gt(y, 0.5), x, lax.mul(x, y)))
        r = lax.add(r, lax.select_n(lax.le(x, -0.5), y, lax.exp(x)))
        r = lax.add(r, lax.select_n(lax.eq(lax.round(x), 0.0), x, y))
        return lax.add(r, lax.select_n(lax.ne(lax.round(y), 1.0), x, y))

    return f


def _argmax(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        i = lax.add(lax.argmax(x, 1, np.int32), lax.argmin(x, 1, np.int32))
        k = lax.broadcast_in_dim(lax.convert_element_type(i, x.dtype), M23, (0,))
        return lax.mul(x, k)

    return f


def _stop(api: Any) -> Fun:
    lax = api.lax
    return lambda x: lax.mul(x, lax.stop_gradient(lax.sin(x)))


def _is_finite(api: Any) -> Fun:
    lax = api.lax
    return lambda x: lax.select_n(lax.is_finite(lax.log(x)), lax.sin(x), lax.cos(x))


_add("zero_sign_floor_ceil_round", "zero-derivative", _zero_grad, (M23, -2, 2))
_add("zero_comparisons", "zero-derivative", _compare, (M23, -2, 2), (M23, -2, 2))
_add("zero_argmax_argmin", "zero-derivative", _argmax, (M23, -2, 2))
_add("zero_stop_gradient", "zero-derivative", _stop, (M23, -2, 2))
_add("zero_is_finite", "zero-derivative", _is_finite, (M23, -1, 1))

# --- reductions and cumulative ops -------------------------------------------------------

REDUCE: dict[str, Callable[[Any], Fun]] = {
    "reduce_sum": lambda api: lambda x: api.lax.reduce_sum(x, (1,)),
    "reduce_sum_all": lambda api: lambda x: api.lax.reduce_sum(x, (0, 1)),
    "reduce_prod": lambda api: lambda x: api.lax.reduce_prod(x, (1,)),
    "reduce_max": lambda api: lambda x: api.lax.reduce_max(x, (1,)),
    "reduce_min": lambda api: lambda x: api.lax.reduce_min(x, (0,)),
    "reduce_max_ties": lambda api: lambda x: api.lax.reduce_max(api.lax.round(x), (1,)),
    "reduce_max_ties_x": lambda api: (
        lambda x: api.lax.reduce_max(
            api.lax.mul(x, api.lax.stop_gradient(api.lax.div(api.lax.round(x), x))), (1,)
        )
    ),
    "cumsum": lambda api: lambda x: api.lax.cumsum(x, 1),
    "cumsum_reverse": lambda api: lambda x: api.lax.cumsum(x, 0, reverse=True),
    "cumprod": lambda api: lambda x: api.lax.cumprod(x, 1),
    "cumprod_reverse": lambda api: lambda x: api.lax.cumprod(x, 1, reverse=True),
    "cummax": lambda api: lambda x: api.lax.cummax(x, 1),
    "cummin": lambda api: lambda x: api.lax.cummin(x, 0),
    "cumlogsumexp": lambda api: lambda x: api.lax.cumlogsumexp(x, 1),
}
for _name, _build in REDUCE.items():
    _add(f"reduce_{_name}" if not _name.startswith("reduce") else _name, "reduction", _build,
         (M23, 0.2, 2))  # fmt: skip
_add("reduce_sum_f64", "reduction", REDUCE["reduce_sum"], (M23, 0.2, 2), dtype="float64")
_add("reduce_prod_f64", "reduction", REDUCE["reduce_prod"], (M23, 0.2, 2), dtype="float64")
_add("reduce_cumlogsumexp_f64", "reduction", REDUCE["cumlogsumexp"], (M23, 0.2, 2),
     dtype="float64")  # fmt: skip

# --- linear algebra ------------------------------------------------------------------------


def _gram(lax: Any, x: Any) -> Any:
    """``x @ x.T + n I``: symmetric positive definite for the Cholesky cases."""
    n = x.shape[-1]
    xxt = lax.dot_general(x, x, (((1,), (1,)), ((), ())))
    return lax.add(xxt, np.asarray(n * np.eye(n), x.dtype))


def _cholesky(api: Any) -> Fun:
    return lambda x: api.lax.linalg.cholesky(_gram(api.lax, x))


def _tri_solve(left_side: bool, lower: bool, transpose_a: bool) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        def f(a: Any, b: Any) -> Any:
            n = a.shape[-1]
            a = api.lax.add(a, np.broadcast_to(3 * np.eye(n), a.shape).astype(a.dtype))
            return api.lax.linalg.triangular_solve(
                a, b, left_side=left_side, lower=lower, transpose_a=transpose_a
            )

        return f

    return build


def _lu_factors(api: Any) -> Fun:
    return lambda x: api.lax.linalg.lu(x)[0]


def _qr_stacked(full: bool, axis: int) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        def f(x: Any) -> Any:
            q, r = api.lax.linalg.qr(x, full_matrices=full)
            return api.lax.concatenate([q, r], axis)

        return f

    return build


_add("linalg_cholesky", "linalg", _cholesky, ((4, 4), -1, 1))
_add("linalg_cholesky_f64", "linalg", _cholesky, ((4, 4), -1, 1), dtype="float64")
_add("linalg_triangular_solve_left_lower", "linalg", _tri_solve(True, True, False),
     ((3, 3), -1, 1), ((3, 2), -1, 1))  # fmt: skip
_add("linalg_triangular_solve_right_upper_transposed", "linalg", _tri_solve(False, False, True),
     ((2, 3, 3), -1, 1), ((2, 2, 3), -1, 1))  # fmt: skip
_add("linalg_lu", "linalg", _lu_factors, ((4, 4), -1, 1))
_add("linalg_lu_wide_f64", "linalg", _lu_factors, ((3, 5), -1, 1), dtype="float64")
_add("linalg_qr_square", "linalg", _qr_stacked(True, 1), ((4, 4), -1, 1))
_add("linalg_qr_tall_complete", "linalg", _qr_stacked(True, 1), ((5, 3), -1, 1))
_add("linalg_qr_tall_reduced", "linalg", _qr_stacked(False, 0), ((5, 3), -1, 1))
_add("linalg_qr_wide", "linalg", _qr_stacked(True, 1), ((3, 5), -1, 1))
_add("linalg_qr_tall_complete_f64", "linalg", _qr_stacked(True, 1), ((5, 3), -1, 1),
     dtype="float64")  # fmt: skip


def _spread(lax: Any, x: Any, diag: tuple[float, ...]) -> Any:
    """``x`` plus a fixed diagonal that keeps its eigen/singular values apart."""
    m, n = x.shape[-2:]
    d = np.zeros((m, n))
    d[range(len(diag)), range(len(diag))] = diag
    return lax.add(x, np.broadcast_to(d, x.shape).astype(x.dtype))


def _eigh(vectors: bool) -> Callable[[Any], Fun]:
    # Squared entries of the eigenvectors: independent of each vector's sign.
    def build(api: Any) -> Fun:
        def f(x: Any) -> Any:
            v, w = api.lax.linalg.eigh(_spread(api.lax, x, (0.0, 4.0, 8.0, 12.0)))
            return api.lax.mul(v, v) if vectors else w

        return f

    return build


def _svd(shape_diag: tuple[float, ...], vectors: bool) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        def f(x: Any) -> Any:
            x = _spread(api.lax, x, shape_diag)
            if not vectors:
                return api.lax.linalg.svd(x, compute_uv=False)
            u, s, vt = api.lax.linalg.svd(x, full_matrices=False)
            uu, vv = api.lax.mul(u, u), api.lax.mul(vt, vt)
            nd = len(x.shape)
            # One output: u*u, s and vt*vt side by side (u is m x k, vt k x n).
            uu_t = api.lax.transpose(uu, (*range(nd - 2), nd - 1, nd - 2))
            s_col = api.lax.broadcast_in_dim(s, (*s.shape, 1), tuple(range(nd - 1)))
            return api.lax.concatenate([uu_t, s_col, vv], nd - 1)

        return f

    return build


_add("linalg_eigh_values", "linalg", _eigh(False), ((4, 4), -1, 1))
_add("linalg_eigh_vectors", "linalg", _eigh(True), ((2, 4, 4), -1, 1))
_add("linalg_eigh_vectors_f64", "linalg", _eigh(True), ((4, 4), -1, 1), dtype="float64")
_add("linalg_svd_values_tall", "linalg", _svd((6.0, 3.0), False), ((5, 3), -1, 1))
_add("linalg_svd_values_wide_f64", "linalg", _svd((6.0, 3.0), False), ((3, 5), -1, 1),
     dtype="float64")  # fmt: skip
_add("linalg_svd_vectors_tall", "linalg", _svd((6.0, 3.0), True), ((5, 3), -1, 1))
_add("linalg_svd_vectors_wide", "linalg", _svd((6.0, 3.0), True), ((2, 3, 5), -1, 1))
_add("linalg_svd_vectors_square_f64", "linalg", _svd((6.0, 3.0, 1.5), True), ((3, 3), -1, 1),
     dtype="float64")  # fmt: skip


# --- shape and indexing ------------------------------------------------------------------

_GDN = ((1,), (0,), (0,))  # offset_dims, collapsed_slice_dims, start_index_map
_SDN = ((1,), (0,), (0,))  # update_window_dims, inserted_window_dims, scatter_dims_to_operand


def _gather(api: Any) -> Fun:
    lax = api.lax
    idx = np.array([[1], [0], [1]], np.int32)
    return lambda x: lax.gather(x, idx, lax.GatherDimensionNumbers(*_GDN), (1, 3))


def _scatter(op: str, unique: bool) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        lax = api.lax
        idx = np.array([[2], [0]] if unique else [[1], [1]], np.int32)
        dn = lax.ScatterDimensionNumbers(*_SDN)
        return lambda x, u: getattr(lax, op)(x, idx, u, dn, unique_indices=unique)

    return build


def _split(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        a, b, c = lax.split(x, (1, 3, 1), axis=1)
        return lax.concatenate([lax.mul(c, 2.0), lax.sin(b), a], 1)

    return f


def _unstack(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        a, b, c = lax.unstack(x, 0)
        return lax.add(lax.mul(a, b), lax.exp(c))

    return f


def _scatter_mul_operand(api: Any) -> Fun:
    lax = api.lax
    idx = np.array([[2], [0]], np.int32)
    u = np.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
    dn = lax.ScatterDimensionNumbers(*_SDN)
    return lambda x: lax.scatter_mul(x, idx, u, dn)


SHAPE: dict[str, tuple[Callable[[Any], Fun], tuple[Spec, ...]]] = {
    "broadcast_in_dim": (lambda api: lambda x: api.lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
                         ((M23, -2, 2),)),
    "reshape": (lambda api: lambda x: api.lax.reshape(x, (3, 2)), ((M23, -2, 2),)),
    "reshape_dims": (lambda api: lambda x: api.lax.reshape(x, (6,), (1, 0)), ((M23, -2, 2),)),
    "squeeze": (lambda api: lambda x: api.lax.squeeze(x, (0,)), (((1, 3), -2, 2),)),
    "expand_dims": (lambda api: lambda x: api.lax.expand_dims(x, (1,)), ((M23, -2, 2),)),
    "transpose": (lambda api: lambda x: api.lax.transpose(x, (1, 0)), ((M23, -2, 2),)),
    "rev": (lambda api: lambda x: api.lax.rev(x, (0, 1)), ((M23, -2, 2),)),
    "concatenate": (lambda api: lambda x, y: api.lax.concatenate([x, y, x], 1),
                    ((M23, -2, 2), ((2, 2), -2, 2))),
    "pad": (lambda api: lambda x, v: api.lax.pad(x, v, [(1, -1, 1), (0, 2, 0)]),
            ((M23, -2, 2), ((), -2, 2))),
    "slice": (lambda api: lambda x: api.lax.slice(x, (0, 1), (2, 3), (1, 2)), ((M23, -2, 2),)),
    "dynamic_slice": (lambda api: lambda x: api.lax.dynamic_slice(
        x, (np.int32(1), np.int32(1)), (1, 2)), ((M23, -2, 2),)),
    "dynamic_slice_clamped": (lambda api: lambda x: api.lax.dynamic_slice(
        x, (np.int32(1), np.int32(2)), (2, 2)), ((M23, -2, 2),)),
    "dynamic_update_slice": (lambda api: lambda x, u: api.lax.dynamic_update_slice(
        x, u, (np.int32(1), np.int32(0))), ((M23, -2, 2), ((1, 2), -2, 2))),
    "gather": (_gather, ((M23, -2, 2),)),
    "split": (_split, (((2, 5), -2, 2),)),
    "stack": (lambda api: lambda x, y: api.lax.stack([x, y, x], 1), ((M23, -2, 2),) * 2),
    "unstack": (_unstack, (((3, 2, 2), -2, 2),)),
    "tile": (lambda api: lambda x: api.lax.tile(x, (2, 2)), ((M23, -2, 2),)),
    "scatter": (_scatter("scatter", True), (((3, 3), -2, 2), ((2, 3), -2, 2))),
    "scatter_add": (_scatter("scatter_add", False), (((3, 3), -2, 2), ((2, 3), -2, 2))),
    "scatter_mul": (_scatter("scatter_mul", True), (((3, 3), -2, 2), ((2, 3), -2, 2))),
    "scatter_mul_operand": (_scatter_mul_operand, (((3, 3), -2, 2),)),
    "scatter_min": (_scatter("scatter_min", True), (((3, 3), -2, 2), ((2, 3), -2, 2))),
    "scatter_max": (_scatter("scatter_max", True), (((3, 3), -2, 2), ((2, 3), -2, 2))),
    "select_n": (lambda api: lambda x, y, z: api.lax.select_n(
        np.array([[0, 1, 2], [2, 1, 0]], np.int32), x, y, z), ((M23, -2, 2),) * 3),
    "select_n_bool": (lambda api: lambda x, y: api.lax.select_n(
        api.lax.gt(x, y), x, api.lax.sin(y)), ((M23, -2, 2),) * 2),
    "clamp": (lambda api: lambda lo, x, hi: api.lax.clamp(lo, x, hi),
              ((M23, -1.5, 0), (M23, -2, 2), (M23, 0, 1.5))),
    "clamp_scalar_bounds": (lambda api: lambda x: api.lax.clamp(-0.5, x, 0.5),
                            ((M23, -2, 2),)),
    "sort": (lambda api: lambda x: api.lax.sort(x, 1), ((M23, -2, 2),)),
    "sort_two_operands": (lambda api: lambda x, y: api.lax.sort((x, y), 0, num_keys=1)[1],
                          ((M23, -2, 2), (M23, -2, 2))),
    "top_k": (lambda api: lambda x: api.lax.top_k(x, 2)[0], (((2, 4), -2, 2),)),
    "dot_general": (lambda api: lambda a, b: api.lax.dot_general(
        a, b, (((1,), (0,)), ((), ()))), ((M23, -1, 1), ((3, 4), -1, 1))),
    "dot_general_batched": (lambda api: lambda a, b: api.lax.dot_general(
        a, b, (((2,), (1,)), ((0,), (0,)))), (((2, 3, 4), -1, 1), ((2, 4, 2), -1, 1))),
    "convert_element_type": (lambda api: lambda x: api.lax.mul(api.lax.convert_element_type(
        api.lax.convert_element_type(x, np.float16), np.float32), x), ((M23, -2, 2),)),
}  # fmt: skip
for _name, (_build, _specs) in SHAPE.items():
    _add(f"shape_{_name}", "shape/indexing", _build, *_specs)
_add("shape_dot_general_f64", "shape/indexing", SHAPE["dot_general"][0],
     *SHAPE["dot_general"][1], dtype="float64")  # fmt: skip

# --- control flow --------------------------------------------------------------------------


def _cond(pred_sign: float) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        lax = api.lax

        def f(x: Any, y: Any) -> Any:
            p = lax.gt(lax.mul(lax.reduce_sum(x, (0, 1)), pred_sign), -100.0)
            return lax.cond(
                p, lambda a, b: lax.mul(lax.sin(a), b), lambda a, b: lax.sub(a, lax.exp(b)), x, y
            )

        return f

    return build


def _switch(index: int) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        lax = api.lax
        branches = [
            lambda a, b: lax.mul(a, b),
            lambda a, b: lax.add(lax.tanh(a), b),
            lambda a, b: lax.div(lax.cos(a), lax.add(lax.mul(b, b), 1.0)),
        ]
        return lambda x, y: lax.switch(np.int32(index), branches, x, y)

    return build


def _scan(reverse: bool) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        lax = api.lax

        def f(w: Any, h0: Any, xs: Any) -> Any:
            def body(h: Any, x: Any) -> tuple[Any, Any]:
                h = lax.tanh(lax.add(lax.mul(w, h), x))
                return h, lax.mul(h, lax.sin(x))

            h, ys = lax.scan(body, h0, xs, reverse=reverse)
            return lax.add(ys, lax.broadcast_in_dim(h, (4, 3), (1,)))

        return f

    return build


def _fori(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any, w: Any) -> Any:
        def body(i: Any, c: Any) -> Any:
            k = lax.convert_element_type(i, c.dtype)
            return lax.add(lax.sin(lax.mul(c, w)), lax.mul(k, 0.1))

        return lax.fori_loop(0, 3, body, x)

    return f


def _while(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any, w: Any) -> Any:
        def cond(c: Any) -> Any:
            return lax.lt(c[0], 4)

        def body(c: Any) -> Any:
            return (lax.add(c[0], np.int32(1)), lax.mul(lax.cos(c[1]), w))

        return lax.while_loop(cond, body, (np.int32(0), x))[1]

    return f


def _while_data(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def cond(c: Any) -> Any:
            return lax.lt(lax.reduce_sum(c, (0,)), 10.0)

        return lax.while_loop(cond, lambda c: lax.mul(c, 1.5), x)

    return f


def _jit_nested(api: Any) -> Fun:
    lax = api.lax
    inner = api.jit(lambda a: lax.mul(lax.sin(a), a))

    @api.jit
    def f(x: Any, y: Any) -> Any:
        return lax.add(inner(lax.mul(x, y)), lax.exp(inner(y)))

    return f


def _checkpoint(api: Any) -> Fun:
    lax = api.lax

    @api.checkpoint
    def g(a: Any, b: Any) -> Any:
        return lax.sin(lax.mul(lax.cos(a), b))

    return lambda x, y: lax.mul(g(x, y), g(y, x))


def _sin_times(custom: Any, lax: Any) -> Any:
    """``sin(x) * y`` under the custom-derivative decorator ``custom``."""

    def f(x: Any, y: Any) -> Any:
        return lax.mul(lax.sin(x), y)

    return custom(f)


def _custom_jvp(api: Any) -> Fun:
    lax = api.lax
    f = _sin_times(api.custom_jvp, lax)

    def rule(primals: Any, tangents: Any) -> Any:
        x, y = primals
        tx, ty = tangents
        # deliberately not the true derivative: the rule must be the one used
        t = lax.add(lax.mul(lax.mul(tx, 2.0), lax.cos(x)), lax.mul(ty, lax.exp(x)))
        return f(x, y), t

    f.defjvp(rule)
    return lambda x, y: lax.mul(f(lax.mul(x, x), y), x)


def _custom_vjp(api: Any) -> Fun:
    lax = api.lax
    f = _sin_times(api.custom_vjp, lax)

    def fwd(x: Any, y: Any) -> Any:
        return f(x, y), (lax.cos(x), y)

    def bwd(res: Any, ct: Any) -> Any:
        c, y = res
        return lax.mul(ct, lax.mul(c, 3.0)), lax.mul(ct, y)

    f.defvjp(fwd, bwd)
    return lambda x, y: lax.add(f(lax.tanh(x), y), x)


CONTROL: dict[str, tuple[Callable[[Any], Fun], tuple[Spec, ...], tuple[str, ...]]] = {
    "cond_true": (_cond(1.0), ((M23, -1, 1), (M23, -1, 1)), ("grad", "jvp", "vjp")),
    "cond_false": (_cond(-1000.0), ((M23, -1, 1), (M23, -1, 1)), ("grad", "jvp", "vjp")),
    "switch_1": (_switch(1), ((M23, -1, 1),) * 2, ("grad", "jvp", "vjp")),
    "switch_2_clamped": (_switch(7), ((M23, -1, 1),) * 2, ("grad", "jvp", "vjp")),
    "scan": (_scan(False), (((3,), -1, 1), ((3,), -1, 1), ((4, 3), -1, 1)),
             ("grad", "jvp", "vjp")),
    "scan_reverse": (_scan(True), (((3,), -1, 1), ((3,), -1, 1), ((4, 3), -1, 1)),
                     ("grad", "jvp", "vjp")),
    "fori_loop_static": (_fori, ((M23, -1, 1), ((), 0.5, 1.5)), ("grad", "jvp", "vjp")),
    "while_loop_jvp": (_while, ((M23, -1, 1), ((), 0.5, 1.5)), ("jvp",)),
    "while_loop_data_jvp": (_while_data, (((3,), 0.5, 1.5),), ("jvp",)),
    "jit_nested": (_jit_nested, ((M23, -1, 1),) * 2, ("grad", "jvp", "vjp")),
    "checkpoint": (_checkpoint, ((M23, -1, 1),) * 2, ("grad", "jvp", "vjp")),
    "custom_jvp": (_custom_jvp, ((M23, -1, 1),) * 2, ("grad", "jvp", "vjp")),
    "custom_vjp": (_custom_vjp, ((M23, -1, 1),) * 2, ("grad", "vjp")),
}  # fmt: skip
for _name, (_build, _specs, _modes) in CONTROL.items():
    _add(f"control_{_name}", "control flow", _build, *_specs, modes=_modes)
_add("control_scan_f64", "control flow", _scan(False), *CONTROL["scan"][1], dtype="float64")

# --- nested differentiation ----------------------------------------------------------------


def _scalar_fn(lax: Any) -> Fun:
    return lambda x: lax.mul(lax.sin(x), lax.mul(x, lax.mul(x, x)))


def _vec_fn(lax: Any) -> Fun:
    def f(x: Any) -> Any:
        a = lax.reduce_sum(lax.mul(lax.sin(x), x), (0,))
        b = lax.reduce_prod(lax.add(x, 2.0), (0,))
        return lax.concatenate(
            [
                lax.broadcast_in_dim(a, (1,), ()),
                lax.broadcast_in_dim(b, (1,), ()),
                lax.exp(lax.slice(x, (0,), (1,))),
            ],
            0,
        )

    return f


def _loss_fn(lax: Any) -> Fun:
    def f(x: Any) -> Any:
        y = lax.tanh(lax.mul(x, lax.cumsum(x, 0)))
        return lax.reduce_sum(lax.mul(y, lax.exp(lax.neg(x))), (0,))

    return f


def _hvp(api: Any) -> Fun:
    lax = api.lax
    v = np.array([0.5, -1.0, 2.0], np.float32)

    def f(x: Any) -> Any:
        return api.jvp(api.grad(_loss_fn(lax)), (x,), (v,))[1]

    return f


def _grad_scan_hessian(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def body(c: Any, xi: Any) -> tuple[Any, Any]:
            return lax.add(lax.mul(c, lax.sin(xi)), xi), c

        c, _ = lax.scan(body, lax.reduce_sum(x, (0,)), x)
        return lax.mul(c, c)

    return api.hessian(f)


def _hessian_cond(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        p = lax.gt(lax.reduce_sum(x, (0,)), 0.0)
        y = lax.cond(p, lambda a: lax.mul(lax.sin(a), a), lambda a: lax.exp(a), x)
        return lax.reduce_sum(lax.mul(y, y), (0,))

    return api.hessian(f)


def _grad_grad_custom_jvp(api: Any) -> Fun:
    lax = api.lax

    @api.custom_jvp
    def f(x: Any) -> Any:
        return lax.sin(x)

    def rule(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return f(x), lax.mul(t, lax.mul(lax.cos(x), lax.mul(x, x)))

    f.defjvp(rule)
    return api.grad(api.grad(lambda x: lax.mul(f(x), x)))


NESTED: dict[str, tuple[Callable[[Any], Fun], tuple[Spec, ...]]] = {
    "grad_of_grad": (lambda api: api.grad(api.grad(_scalar_fn(api.lax))), (((), -2, 2),)),
    "grad_of_grad_of_grad": (lambda api: api.grad(api.grad(api.grad(_scalar_fn(api.lax)))),
                             (((), -2, 2),)),
    "jacfwd": (lambda api: api.jacfwd(_vec_fn(api.lax)), (((3,), -1, 1),)),
    "jacrev": (lambda api: api.jacrev(_vec_fn(api.lax)), (((3,), -1, 1),)),
    "jacfwd_of_jacrev": (lambda api: api.jacfwd(api.jacrev(_vec_fn(api.lax))), (((3,), -1, 1),)),
    "hessian": (lambda api: api.hessian(_loss_fn(api.lax)), (((3,), -1, 1),)),
    "hvp_forward_over_reverse": (_hvp, (((3,), -1, 1),)),
    "hessian_scan": (_grad_scan_hessian, (((3,), -1, 1),)),
    "hessian_cond": (_hessian_cond, (((3,), -1, 1),)),
    "grad_of_grad_custom_jvp": (_grad_grad_custom_jvp, (((), -2, 2),)),
    "grad_of_grad_digamma": (lambda api: api.grad(api.grad(api.lax.digamma)), (((), 0.5, 3),)),
}  # fmt: skip
for _name, (_build, _specs) in NESTED.items():
    _modes = ("value", "grad", "jvp") if _specs[0][0] == () else ("value", "grad")
    _add(f"nested_{_name}", "nested", _build, *_specs, modes=_modes)
_add("nested_grad_of_grad_f64", "nested", NESTED["grad_of_grad"][0], ((), -2, 2), dtype="float64",
     modes=("value", "grad", "jvp"))  # fmt: skip

# --- nested differentiation through control flow -----------------------------------------------


def _hessian_switch(api: Any) -> Fun:
    lax = api.lax
    branches = [
        lambda a: lax.mul(lax.sin(a), a),
        lambda a: lax.exp(lax.mul(a, 0.5)),
        lambda a: lax.cos(lax.mul(a, a)),
    ]

    def f(x: Any) -> Any:
        i = lax.convert_element_type(lax.floor(lax.mul(lax.abs(lax.slice(x, (0,), (1,))), 3.0)),
                                     np.int32)  # fmt: skip
        y = lax.switch(lax.reshape(i, ()), branches, x)
        return lax.reduce_sum(lax.mul(y, y), (0,))

    return api.hessian(f)


def _hessian_fori(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def body(i: Any, c: Any) -> Any:
            k = lax.convert_element_type(i, c.dtype)
            return lax.add(lax.sin(lax.mul(c, x)), lax.mul(k, 0.25))

        return lax.reduce_sum(lax.mul(lax.fori_loop(0, 3, body, x), x), (0,))

    return api.hessian(f)


def _grad_of_grad_scan(api: Any) -> Fun:
    # The carry enters the body non-linearly (c * c), and a closed-over value is a const.
    lax = api.lax
    xs = np.array([0.5, -1.25, 0.75, 1.5], np.float32)

    def f(s: Any) -> Any:
        def body(c: Any, xi: Any) -> tuple[Any, Any]:
            c2 = lax.add(lax.mul(lax.mul(c, c), lax.mul(xi, 0.25)), lax.sin(lax.mul(s, xi)))
            return c2, lax.mul(c2, s)

        c, ys = lax.scan(body, s, xs.astype(s.dtype))
        return lax.add(c, lax.reduce_sum(ys, (0,)))

    return api.grad(api.grad(f))


def _jacrev_jacrev_scan_of_cond(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def body(c: Any, xi: Any) -> tuple[Any, Any]:
            c2 = lax.cond(lax.gt(xi, 0.0), lambda a: lax.mul(lax.sin(a), xi),
                          lambda a: lax.mul(lax.mul(a, a), xi), c)  # fmt: skip
            return c2, lax.mul(c2, c)

        c, ys = lax.scan(body, lax.reduce_sum(x, (0,)), x)
        return lax.add(c, lax.reduce_sum(lax.tanh(ys), (0,)))

    return api.jit(api.jacrev(api.jacrev(f)))


NESTED_CONTROL: dict[str, tuple[Callable[[Any], Fun], tuple[Spec, ...]]] = {
    "hessian_switch": (_hessian_switch, (((3,), -1, 1),)),
    "hessian_fori_loop": (_hessian_fori, (((3,), -1, 1),)),
    "grad_of_grad_scan": (_grad_of_grad_scan, (((), -1, 1),)),
}  # fmt: skip
for _name, (_build, _specs) in NESTED_CONTROL.items():
    _modes = ("value", "grad", "jvp") if _specs[0][0] == () else ("value", "grad")
    _add(f"nested_{_name}", "nested", _build, *_specs, modes=_modes)
# Second order only: one compiled program (a third derivative of it takes seconds to compile).
_add("nested_jit_jacrev_of_jacrev_scan_of_cond", "nested", _jacrev_jacrev_scan_of_cond,
     ((4,), -1, 1), modes=("value",))  # fmt: skip
_add("nested_hessian_cond_f64", "nested", NESTED["hessian_cond"][0], ((3,), -1, 1),
     dtype="float64", modes=("value", "grad"))  # fmt: skip


# --- convolution and windowed reductions -------------------------------------------------

NHWC = ("NHWC", "HWIO", "NHWC")


def _conv_case(**kw: Any) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        return lambda x, w: api.lax.conv_general_dilated(x, w, **kw)

    return build


def _pool(api: Any, kind: str, x: Any, **kw: Any) -> Any:
    lax = api.lax
    op, init = {"sum": (lax.add, 0.0), "max": (lax.max, -np.inf), "min": (lax.min, np.inf)}[kind]
    return lax.reduce_window(x, init, op, **kw)


def _window_case(kind: str, **kw: Any) -> Callable[[Any], Fun]:
    return lambda api: lambda x: _pool(api, kind, x, **kw)


_POOL = {"window_dimensions": (1, 2, 2), "window_strides": (1, 2, 1), "padding": "SAME"}


def _pool_jvp_ties(api: Any) -> Fun:
    # rounded inputs: many ties inside a window
    def f(x: Any, t: Any) -> Any:
        pool = lambda v: _pool(api, "max", v, **_POOL)  # noqa: E731
        return api.jvp(pool, (api.lax.round(x),), (t,))[1]

    return f


def _pool_vjp_ties(kind: str) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        def f(x: Any, c: Any) -> Any:
            pool = lambda v: _pool(api, kind, v, **_POOL)  # noqa: E731
            return api.vjp(pool, api.lax.round(x))[1](c)[0]

        return f

    return build


def _tiny_cnn(api: Any) -> Fun:
    """Loss values of three gradient steps of conv + relu + max pool + dense."""
    lax = api.lax

    def loss(params: Any, x: Any, y: Any) -> Any:
        w1, w2 = params
        h = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=NHWC)
        h = lax.max(h, 0.0)
        h = lax.reduce_window(h, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = lax.reshape(h, (4, 36))
        out = lax.dot_general(h, w2, (((1,), (0,)), ((), ())))
        d = lax.sub(out, y)
        return lax.div(lax.reduce_sum(lax.mul(d, d), (0, 1)), 12.0)

    def train(x: Any, y: Any, w1: Any, w2: Any) -> Any:
        params, losses = (w1, w2), []
        for _ in range(3):
            value = loss(params, x, y)
            g1, g2 = api.grad(loss)(params, x, y)
            params = (lax.sub(params[0], lax.mul(g1, 0.1)), lax.sub(params[1], lax.mul(g2, 0.1)))
            losses.append(lax.reshape(value, (1,)))
        losses.append(lax.reshape(loss(params, x, y), (1,)))
        return lax.concatenate(losses, 0)

    return train


_add(
    "conv_nchw_same",
    "conv",
    _conv_case(window_strides=(1, 1), padding="SAME"),
    ((2, 3, 5, 5), -1, 1),
    ((4, 3, 3, 3), -1, 1),
)
_add(
    "conv_nhwc_dilated_groups",
    "conv",
    _conv_case(
        window_strides=(2, 1),
        padding=((1, 0), (0, 2)),
        lhs_dilation=(1, 2),
        rhs_dilation=(2, 1),
        dimension_numbers=NHWC,
        feature_group_count=2,
    ),
    ((2, 5, 6, 4), -1, 1),
    ((2, 3, 2, 6), -1, 1),
)
_add(
    "conv_batch_groups",
    "conv",
    _conv_case(
        window_strides=(2,),
        padding="VALID",
        dimension_numbers=("NWC", "WIO", "NWC"),
        batch_group_count=2,
    ),
    ((4, 6, 3), -1, 1),
    ((2, 3, 4), -1, 1),
)
_add(
    "conv_f64",
    "conv",
    _conv_case(window_strides=(1,), padding=((2, -1),), rhs_dilation=(2,)),
    ((2, 2, 7), -1, 1),
    ((3, 2, 3), -1, 1),
    dtype="float64",
)
_add(
    "reduce_window_sum_strided",
    "conv",
    _window_case(
        "sum",
        window_dimensions=(2, 3),
        window_strides=(2, 1),
        padding=((1, 0), (0, 2)),
        base_dilation=(1, 2),
        window_dilation=(1, 2),
    ),
    ((5, 4), -1, 1),
)
_add("max_pool_same", "conv", _window_case("max", **_POOL), ((2, 5, 5), -1, 1))
_add(
    "min_pool_base_dilated",
    "conv",
    _window_case(
        "min",
        window_dimensions=(2, 2),
        window_strides=(1, 2),
        padding="VALID",
        base_dilation=(2, 1),
    ),
    ((3, 5), -1, 1),
)
_add("max_pool_jvp_ties", "conv", _pool_jvp_ties, ((2, 5, 5), -2, 2), ((2, 5, 5), -1, 1))
_add("max_pool_vjp_ties", "conv", _pool_vjp_ties("max"), ((2, 5, 5), -2, 2), ((2, 3, 5), -1, 1))
_add("min_pool_vjp_ties", "conv", _pool_vjp_ties("min"), ((2, 5, 5), -2, 2), ((2, 3, 5), -1, 1))
_add(
    "tiny_cnn_training",
    "conv",
    _tiny_cnn,
    ((4, 6, 6, 2), -1, 1),
    ((4, 3), -1, 1),
    ((3, 3, 2, 4), -0.5, 0.5),
    ((36, 3), -0.3, 0.3),
    modes=("value",),
)


# --- fft ---------------------------------------------------------------------------------


def _fft_parts(api: Any, y: Any) -> Any:
    return api.lax.concatenate([api.lax.real(y), api.lax.imag(y)], 0)


def _fft_case(kind: str, lengths: tuple[int, ...]) -> Callable[[Any], Fun]:
    def build(api: Any) -> Fun:
        lax = api.lax
        if kind == "rfft":
            return lambda a: _fft_parts(api, lax.fft(a, kind, lengths))
        if kind == "irfft":
            return lambda a, b: lax.fft(lax.complex(a, b), kind, lengths)
        return lambda a, b: _fft_parts(api, lax.fft(lax.complex(a, b), kind, lengths))

    return build


_add("fft_c2c", "fft", _fft_case("fft", (3, 4)), ((2, 3, 4), -1, 1), ((2, 3, 4), -1, 1))
_add("ifft_c2c", "fft", _fft_case("ifft", (5,)), ((2, 5), -1, 1), ((2, 5), -1, 1))
_add("rfft_even", "fft", _fft_case("rfft", (3, 8)), ((2, 3, 8), -1, 1))
_add("rfft_odd", "fft", _fft_case("rfft", (7,)), ((3, 7), -1, 1))
_add("irfft_even", "fft", _fft_case("irfft", (3, 6)), ((2, 3, 4), -1, 1), ((2, 3, 4), -1, 1))
_add("irfft_odd_f64", "fft", _fft_case("irfft", (5,)), ((2, 3), -1, 1), ((2, 3), -1, 1),
     dtype="float64")  # fmt: skip


# --- reduce_precision, optimization_barrier, general reduce, linear solves --------------
_add("reduce_precision_bf16", "unary",
     lambda api: lambda x: api.lax.mul(api.lax.reduce_precision(x, 8, 7), x), (M23, -2, 2))  # fmt: skip
_add("optimization_barrier_pair", "binary", lambda api: lambda x, y: api.lax.mul(
    *api.lax.optimization_barrier((api.lax.sin(x), api.lax.mul(x, y)))), (M23, -2, 2), (M23, -2, 2))  # fmt: skip


def _general_reduce(api: Any) -> Fun:
    lax = api.lax

    def comp(a: Any, b: Any) -> Any:  # (1 + a)(1 + b) - 1: associative, identity 0
        return lax.add(lax.add(a, b), lax.mul(a, b))

    return lambda x: lax.reduce(lax.mul(x, 0.3), np.float32(0), comp, (1,))


_add("reduce_general_product", "reduction", _general_reduce, ((3, 5), -1, 1))


def _linear_solve(api: Any) -> Fun:
    lax = api.lax
    dn = (((1,), (0,)), ((), ()))

    def f(a: Any, b: Any) -> Any:
        a = lax.add(a, lax.mul(np.eye(3, dtype=np.float32), 4.0))
        d = lax.reduce_sum(lax.mul(a, np.eye(3, dtype=np.float32)), (1,))

        def jacobi(apply: Any, r: Any) -> Any:
            x = lax.div(r, d)
            for _ in range(30):
                x = lax.add(x, lax.div(lax.sub(r, apply(x)), d))
            return x

        return lax.custom_linear_solve(lambda v: lax.dot_general(a, v, dn), b, jacobi, jacobi)

    return f


_add("custom_linear_solve_jacobi", "linalg", _linear_solve, ((3, 3), -0.5, 0.5), ((3,), -1, 1))


def _root(api: Any) -> Fun:
    lax = api.lax

    def f(x: Any) -> Any:
        def newton(g: Any, y0: Any) -> Any:
            for _ in range(8):
                y0 = lax.sub(y0, lax.div(g(y0), lax.mul(2.0, y0)))
            return y0

        c = lax.add(lax.mul(x, x), 1.0)
        g = lambda y: lax.sub(lax.mul(y, y), c)  # noqa: E731
        return lax.custom_root(g, lax.full_like(x, 1.5), newton, lambda h, y: lax.div(y, h(1.0)))

    return f


_add("custom_root_sqrt", "linalg", _root, ((), -1, 1), modes=("grad", "jvp"))
