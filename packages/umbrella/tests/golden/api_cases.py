"""Cases for the JAX names added to close the API gap, run through either implementation.

``run(jx)`` takes the top-level module (``jax``, or ``tessela``) and returns
named NumPy arrays. ``generate.py`` stores JAX 0.10.2's results in
``api_golden.npz``; ``test_api_gap.py`` compares Tessela's with them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RNG = np.random.default_rng(0)
SPD = (lambda m: m @ m.T + 4.0 * np.eye(4))(RNG.normal(size=(4, 4))).astype(np.float32)
LOWER = np.tril(RNG.normal(size=(4, 4)) + 3.0 * np.eye(4)).astype(np.float32)
B1 = RNG.normal(size=(4,)).astype(np.float32)
B2 = RNG.normal(size=(4, 3)).astype(np.float32)
GEN = (RNG.normal(size=(4, 4)) + 4.0 * np.eye(4)).astype(np.float32)
DTYPES = ["bool", "int8", "uint8", "int32", "uint32", "float16", "float32", "complex64"]
KINDS = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
         "floating", "complexfloating"]  # fmt: skip


def _s(x: Any) -> np.ndarray:
    return np.array(str(x))


def _numpy_cases(jx: Any, out: dict[str, np.ndarray]) -> None:
    jnp = jx.numpy
    x = jnp.arange(6.0).reshape(2, 3)
    out["shape"] = np.array([*jnp.shape(x), jnp.ndim(x), jnp.size(x), jnp.size(x, 1)])
    out["shape_scalar"] = np.array([len(jnp.shape(1.0)), jnp.ndim(1.0), jnp.size(1.0)])
    out["shape_jit"] = np.asarray(jx.jit(lambda v: jnp.shape(v)[0] * 10 + jnp.ndim(v))(x))
    out["kinds"] = np.array(
        [[jnp.issubdtype(np.dtype(d), getattr(jnp, k)) for k in KINDS] for d in DTYPES]
    )
    out["kind_identity"] = np.array([getattr(jnp, k) is getattr(np, k) for k in KINDS])
    out["scalar_alias_dtypes"] = np.array(
        [str(jnp.dtype(getattr(jnp, n)(1)))
         for n in ("bool", "int_", "float_", "complex_", "single", "double", "csingle", "uint")]
    )  # fmt: skip
    out["complexobj"] = np.array(
        [[jnp.iscomplexobj(v), jnp.isrealobj(v)]
         for v in (1j, 1.0, None, jnp.ones(2), jnp.ones(2, jnp.complex64), np.zeros(1, complex))]
    )  # fmt: skip
    out["isscalar"] = np.array(
        [jnp.isscalar(v) for v in (1.0, np.float32(2), jnp.ones(()), jnp.ones(1), [1.0], "a")]
    )
    out["append_flat"] = np.asarray(jnp.append(jnp.ones((2, 2)), jnp.arange(3.0)))
    out["append_axis"] = np.asarray(jnp.append(jnp.ones((2, 2)), jnp.zeros((1, 2)), axis=0))
    out["np_broadcast_shapes"] = np.array(jnp.broadcast_shapes((5, 1, 3), (4, 1), 3))
    out["np_broadcast_shapes_empty"] = np.array(len(jnp.broadcast_shapes()))
    special = jnp.array([1.0, np.inf, -np.inf, np.nan, 0.0])
    out["isposinf"] = np.asarray(jnp.isposinf(special))
    out["isneginf"] = np.asarray(jnp.isneginf(special))
    out["isneginf_int"] = np.asarray(jnp.isneginf(jnp.arange(3)))
    out["copy"] = np.asarray(jnp.copy(x))
    out["tril_indices"] = np.asarray(jnp.tril_indices(3))
    out["tril_indices_k"] = np.asarray(jnp.tril_indices(3, 1, 4))
    out["triu_indices_k"] = np.asarray(jnp.triu_indices(3, -1))
    out["triu_indices_from"] = np.asarray(jnp.triu_indices_from(jnp.ones((2, 4)), k=1))
    out["tril_indices_from"] = np.asarray(jnp.tril_indices_from(jnp.ones((3, 2))))
    out["tril_indices_dtype"] = _s(jnp.tril_indices(3)[0].dtype)
    out["diag_indices"] = np.asarray(jnp.diag_indices(3, 3))
    out["diag_indices_from"] = np.asarray(jnp.diag_indices_from(jnp.ones((2, 2))))
    ints = jnp.array([0, 1, 7, -1, -8, 255, 2**20], jnp.int32)
    out["bitwise_count"] = np.asarray(jnp.bitwise_count(ints))
    out["bitwise_count_u8"] = np.asarray(jnp.bitwise_count(jnp.arange(5, dtype=jnp.uint8)))
    out["bitwise_count_dtype"] = _s(jnp.bitwise_count(ints).dtype)
    a, b = jnp.ones((2, 2)), 2.0 * jnp.ones((2, 1))
    out["block"] = np.asarray(jnp.block([[a, b], [jnp.zeros((1, 3))]]))
    out["block_1d"] = np.asarray(jnp.block([jnp.ones(2), 3.0]))
    out["amax_amin"] = np.array([np.asarray(jnp.amax(x, axis=0)), np.asarray(jnp.amin(x, axis=0))])
    y = jnp.array([0.1, 0.5, 0.9])
    out["array_api_trig"] = np.array(
        [np.asarray(f(y)) for f in (jnp.acos, jnp.asin, jnp.atan, jnp.asinh, jnp.atanh)]
        + [np.asarray(jnp.acosh(y + 1.0)), np.asarray(jnp.atan2(y, 1.0 - y))]
    )
    out["concat"] = np.asarray(jnp.concat([x, x], axis=1))
    out["concat_none"] = np.asarray(jnp.concat([x, x], axis=None))
    out["permute_dims"] = np.asarray(jnp.permute_dims(jnp.arange(24).reshape(2, 3, 4), (2, 0, 1)))
    out["matrix_transpose"] = np.asarray(jnp.matrix_transpose(jnp.arange(24).reshape(2, 3, 4)))
    out["unstack"] = np.array([np.asarray(t) for t in jnp.unstack(x, axis=1)])
    out["bitwise_shifts"] = np.array(
        [np.asarray(jnp.bitwise_left_shift(ints, 2)), np.asarray(jnp.bitwise_right_shift(ints, 1)),
         np.asarray(jnp.bitwise_invert(ints))]
    )  # fmt: skip
    out["cumulative_sum"] = np.asarray(jnp.cumulative_sum(x, axis=1, include_initial=True))
    out["cumulative_prod"] = np.asarray(jnp.cumulative_prod(jnp.arange(1.0, 5.0)))
    out["cumulative_sum_int8"] = _s(jnp.cumulative_sum(jnp.ones(3, jnp.int8)).dtype)
    out["indices"] = np.asarray(jnp.indices((2, 3)))
    out["indices_sparse"] = np.asarray(jnp.indices((2, 3), sparse=True)[1])


def _more_numpy_cases(jx: Any, out: dict[str, np.ndarray]) -> None:
    jnp = jx.numpy
    z = jnp.array([1.0 + 0j, 2j, 0.0 + 0j])
    out["iscomplex_isreal"] = np.array([np.asarray(jnp.iscomplex(z)), np.asarray(jnp.isreal(z))])
    out["iscomplex_real_input"] = np.asarray(jnp.iscomplex(jnp.arange(3.0)))
    out["rollaxis"] = np.array(jnp.rollaxis(jnp.ones((2, 3, 4, 5)), 3, 1).shape)
    out["rollaxis_neg"] = np.array(jnp.rollaxis(jnp.ones((2, 3, 4, 5)), -1, -3).shape)
    v = jnp.array([1.0, 2.0, 3.0])
    out["vander"] = np.asarray(jnp.vander(v))
    out["vander_inc"] = np.asarray(jnp.vander(jnp.array([2, 3]), 4, increasing=True))
    y = jnp.array([[1.0, 2.0, 4.0, 7.0], [0.5, 0.0, -1.0, 2.0]])
    out["trapezoid"] = np.asarray(jnp.trapezoid(y))
    out["trapezoid_x"] = np.asarray(jnp.trapezoid(y, x=jnp.array([0.0, 0.5, 2.0, 2.5])))
    out["trapezoid_dx_axis0"] = np.asarray(jnp.trapezoid(y, dx=0.25, axis=0))
    out["resize"] = np.asarray(jnp.resize(jnp.arange(3), (2, 4)))
    out["resize_int"] = np.asarray(jnp.resize(jnp.arange(4.0), 6))
    flat = jnp.array([0, 4, 5, 7, -1, -3])
    out["unravel_index"] = np.asarray(jnp.unravel_index(flat, (2, 3)))
    multi = (jnp.array([0, 1, 1]), jnp.array([2, 0, 4]))
    out["ravel_multi_index"] = np.array(
        [np.asarray(jnp.ravel_multi_index(multi, (2, 3), mode="clip")),
         np.asarray(jnp.ravel_multi_index(multi, (2, 3), mode="wrap")),
         np.asarray(jnp.ravel_multi_index(multi, (2, 5), order="F"))]
    )  # fmt: skip
    out["fill_diagonal"] = np.asarray(jnp.fill_diagonal(jnp.zeros((3, 4)), 5.0, inplace=False))
    out["fill_diagonal_vals"] = np.asarray(
        jnp.fill_diagonal(jnp.zeros((4, 4)), jnp.array([1.0, 2.0]), inplace=False)
    )
    a = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    c = jnp.array([1 + 2j, 3 - 1j], jnp.complex64)
    out["vecdot"] = np.asarray(jnp.vecdot(a, jnp.array([1.0, 0.0, -1.0])))
    out["vecdot_complex"] = np.asarray(jnp.vecdot(c, c * 2j))
    out["vecdot_axis0"] = np.asarray(jnp.vecdot(a, a, axis=0))
    out["matvec"] = np.asarray(jnp.matvec(jnp.stack([a, 2 * a]), jnp.array([1.0, 1.0, 0.0])))
    out["vecmat"] = np.asarray(jnp.vecmat(c, jnp.ones((2, 3), jnp.complex64)))
    out["windows"] = np.array(
        [np.asarray(f(7)) for f in (jnp.hamming, jnp.hanning, jnp.blackman, jnp.bartlett)]
        + [np.asarray(jnp.kaiser(7, 4.0))]
    )
    out["windows_short"] = np.array([len(jnp.hamming(1)), len(jnp.kaiser(0, 1.0))])


def _poly_special_cases(jx: Any, out: dict[str, np.ndarray]) -> None:
    jnp, sp = jx.numpy, jx.scipy.special
    p1, p2 = jnp.array([1.0, -2.0, 3.0]), jnp.array([4, 5])
    out["polyadd"] = np.asarray(jnp.polyadd(p1, p2))
    out["polyadd_int"] = np.asarray(jnp.polyadd(p2, jnp.array([1, 1, 1, 1])))
    out["polysub"] = np.asarray(jnp.polysub(p2, p1))
    out["polymul"] = np.asarray(jnp.polymul(p1, p2))
    out["polymul_trim"] = np.asarray(
        jnp.polymul(jnp.array([0.0, 0.0, 1.0, 2.0]), p1, trim_leading_zeros=True)
    )
    out["polyder"] = np.asarray(jnp.polyder(jnp.array([1.0, 2.0, 3.0, 4.0]), 2))
    out["polyint"] = np.asarray(jnp.polyint(p1, 2, k=jnp.array([1.0, 2.0])))
    out["polyint_scalar_k"] = np.asarray(jnp.polyint(p2, 1, k=3))
    z = jnp.array([1 + 1j, -1 + 0j, 0 - 2j], jnp.complex64)
    out["angle"] = np.array([np.asarray(jnp.angle(z)), np.asarray(jnp.angle(z, deg=True))])
    out["angle_real"] = np.array(
        [[*np.asarray(jnp.angle(jnp.array([-1.0, 2.0]))).tolist(), float(jnp.angle(-3))]]
    )
    out["angle_dtype"] = _s(jnp.angle(jnp.arange(2)).dtype)
    rows, cols = jnp.ix_(jnp.array([0, 2]), jnp.array([1, 2, 3]))
    out["ix_"] = np.asarray(jnp.arange(12).reshape(3, 4)[rows, cols])
    out["isdtype"] = np.array(
        [jnp.isdtype(jnp.dtype(d), k) for d in ("bool", "int8", "uint32", "float16", "float32", "complex64")
         for k in ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                   "complex floating", "numeric", ("bool", "real floating"), jnp.float32)]
    )  # fmt: skip
    x = jnp.array([0.5, 1.0, 2.5, 7.0])
    out["boxcox"] = np.array([np.asarray(sp.boxcox(x, lm)) for lm in (0.0, 0.5, -1.3)])
    out["boxcox1p"] = np.array([np.asarray(sp.boxcox1p(x - 0.4, lm)) for lm in (0.0, 2.0)])
    out["poch"] = np.asarray(
        sp.poch(jnp.array([1.0, 2.5, 4.0, 0.5]), jnp.array([0.0, 1.5, 2.0, 3.0]))
    )


def _stats_cases(jx: Any, out: dict[str, np.ndarray]) -> None:
    st = jx.scipy.stats
    x = np.array([-2.0, -0.5, 0.0, 0.7, 1.5, 3.0], np.float32)
    p = np.array([0.0, 0.1, 0.5, 0.9, 1.0, 1.2], np.float32)
    for name in ("gumbel_l", "gumbel_r"):
        dist = getattr(st, name)
        for fn in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"):
            out[f"{name}_{fn}"] = np.asarray(getattr(dist, fn)(x, 0.3, 1.7))
        out[f"{name}_ppf"] = np.asarray(dist.ppf(p, 0.3, 1.7))
        out[f"{name}_bad_scale"] = np.asarray(dist.logpdf(x, 0.0, -1.0))
    xs = np.array([0.5, 1.0, 1.5, 2.5, 10.0], np.float32)
    for fn in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"):
        out[f"pareto_{fn}"] = np.asarray(getattr(st.pareto, fn)(xs, 2.5, 0.2, 1.1))
    out["pareto_ppf"] = np.asarray(st.pareto.ppf(p, 2.5, 0.2, 1.1))
    out["chi2_logpdf"] = np.asarray(st.chi2.logpdf(xs - 0.7, np.float32(3.0), 0.1, 1.3))
    out["chi2_pdf"] = np.asarray(st.chi2.pdf(xs, 1.0))
    k = np.array([-1.0, 0.0, 1.0, 2.0, 5.0, 9.0], np.float32)
    out["geom_logpmf"] = np.asarray(st.geom.logpmf(k, 0.3))
    out["geom_pmf"] = np.asarray(st.geom.pmf(k, 0.3, loc=-1))
    out["nbinom_logpmf"] = np.asarray(st.nbinom.logpmf(k, 3.0, 0.4))
    out["nbinom_pmf"] = np.asarray(st.nbinom.pmf(k, 2.5, 0.7, loc=1))
    out["binom_logpmf"] = np.asarray(st.binom.logpmf(k, 6.0, 0.35))
    out["binom_pmf"] = np.asarray(st.binom.pmf(k, 6.0, 0.0))
    out["binom_pmf_n0"] = np.asarray(st.binom.pmf(k, 0.0, 0.5))
    out["betabinom_logpmf"] = np.asarray(st.betabinom.logpmf(k, 6.0, 1.5, 2.5))
    out["betabinom_pmf"] = np.asarray(st.betabinom.pmf(k, 6.0, 0.5, -1.0))
    angles = np.array([-0.5, 0.0, 1.0, 3.0, 6.0, 7.0], np.float32)
    out["wrapcauchy_logpdf"] = np.asarray(st.wrapcauchy.logpdf(angles, 0.6))
    out["wrapcauchy_pdf"] = np.asarray(st.wrapcauchy.pdf(angles, 1.5))
    simplex = np.array([[0.2, 0.5, 0.1], [0.3, 0.25, 0.6], [0.5, 0.25, 0.3]], np.float32)
    alpha = np.array([1.5, 0.7, 3.0], np.float32)
    out["dirichlet_logpdf"] = np.asarray(st.dirichlet.logpdf(simplex, alpha))
    out["dirichlet_pdf_short"] = np.asarray(st.dirichlet.pdf(simplex[:2, 0], alpha))
    counts = np.array([[1, 2, 3], [0, 0, 6], [2, 2, 1]], np.int32)
    probs = np.array([0.2, 0.3, 0.5], np.float32)
    out["multinomial_logpmf"] = np.asarray(st.multinomial.logpmf(counts[0], 6, probs))
    out["multinomial_pmf_wrong_n"] = np.asarray(st.multinomial.pmf(counts[2], 6, probs))


def _top_level_cases(jx: Any, out: dict[str, np.ndarray]) -> None:
    jnp = jx.numpy
    tree = {"a": 1.0, "b": (jnp.arange(3), jnp.ones((2, 2), jnp.float32)), "c": True}
    flat, unravel = jx.flatten_util.ravel_pytree(tree)
    out["ravel_flat"] = np.asarray(flat)
    out["ravel_dtype"] = _s(flat.dtype)
    back = unravel(flat + 1)
    out["unravel_leaves"] = np.concatenate(
        [np.ravel(np.asarray(v, np.float32)) for v in jx.tree_util.tree_leaves(back)]
    )
    out["unravel_dtypes"] = np.array([str(v.dtype) for v in jx.tree_util.tree_leaves(back)])
    same = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}
    flat2, unravel2 = jx.flatten_util.ravel_pytree(same)
    out["ravel_same"] = np.asarray(flat2)
    out["unravel_jit"] = np.asarray(jx.jit(lambda f: unravel2(f * 2.0)["w"])(flat2))
    empty, _ = jx.flatten_util.ravel_pytree([])
    out["ravel_empty"] = np.array([empty.shape[0], str(empty.dtype) == "float32"])
    out["typeof"] = np.array(
        [repr(jx.typeof(1.0)), str(jx.typeof(jnp.ones((2, 3)))), repr(jx.typeof(jnp.arange(2)))]
    )
    with jx.enable_x64(True):
        inside = str(jnp.ones(2).dtype)
    out["enable_x64"] = np.array([inside, str(jnp.ones(2).dtype)])
    info = jnp.__array_namespace_info__()
    out["array_api_info"] = np.array(
        [str(sorted(info.capabilities().items())), str(info.default_device()),
         str(sorted((k, str(v)) for k, v in info.default_dtypes().items())),
         str(sorted(info.dtypes())), str(sorted(info.dtypes(kind="integral"))),
         str(sorted(info.dtypes(kind=("bool", "complex floating")))), jnp.__array_api_version__]
    )  # fmt: skip
    with jx.enable_x64(True):
        out["array_api_info_x64"] = np.array(
            [str(sorted(info.dtypes(kind="real floating"))), str(info.default_dtypes()["integral"])]
        )
    out["lax_broadcast_shapes"] = np.array(jx.lax.broadcast_shapes((5, 1, 3), (4, 1), (3,)))
    out["lax_misc"] = np.array(
        [str(jx.lax.dtype(1.0)), str(jx.lax.dtype(1)), str(jx.lax.dtype(np.float64)),
         str(jx.lax.dtype(jnp.ones(2, jnp.int8))), str(jx.lax.collapse(jnp.ones((2, 3, 4)), 1).shape),
         str(jx.lax.collapse(jnp.ones((2, 3, 4)), 0, 2).shape),
         str(jx.lax.broadcast_to_rank(jnp.ones(3), 3).shape), str(jx.float0),
         str(jx.process_indices()), str(jx.threefry_partitionable.value)]
    )  # fmt: skip
    out["lax_reciprocal"] = np.asarray(jx.lax.reciprocal(jnp.array([2.0, -4.0, 0.5])))
    out["isin"] = np.array(
        [np.asarray(jnp.isin(jnp.arange(6).reshape(2, 3), jnp.array([1, 4, 9]))).ravel(),
         np.asarray(jnp.isin(jnp.arange(6).reshape(2, 3), jnp.array([1.0, 4.0]), invert=True)).ravel(),
         np.asarray(jnp.isin(jnp.arange(6).reshape(2, 3), jnp.array([], jnp.int32))).ravel()]
    )  # fmt: skip
    out["lax_prim_names"] = np.array(
        [p.name for p in (jx.lax.add_p, jx.lax.mul_p, jx.lax.sin_p, jx.lax.reduce_sum_p,
                          jx.lax.dot_general_p, jx.lax.convert_element_type_p)]
    )  # fmt: skip


def _scipy_linalg_cases(jx: Any, out: dict[str, np.ndarray]) -> None:
    sl = jx.scipy.linalg
    out["cholesky_upper"] = np.asarray(sl.cholesky(SPD))
    out["cholesky_lower"] = np.asarray(sl.cholesky(SPD, lower=True))
    for lower in (False, True):
        factor = sl.cho_factor(SPD, lower=lower)
        out[f"cho_solve_{lower}"] = np.asarray(sl.cho_solve(factor, B2))
        out[f"cho_solve_1d_{lower}"] = np.asarray(sl.cho_solve(factor, B1))
    for trans in (0, 1, 2, "T"):
        out[f"solve_triangular_{trans}"] = np.asarray(
            sl.solve_triangular(LOWER, B2, trans=trans, lower=True)
        )
    out["solve_triangular_upper"] = np.asarray(sl.solve_triangular(LOWER.T, B1))
    out["solve_triangular_unit"] = np.asarray(
        sl.solve_triangular(LOWER, B1, lower=True, unit_diagonal=True)
    )
    out["solve_triangular_batched"] = np.asarray(
        sl.solve_triangular(np.stack([LOWER, 2 * LOWER]), np.stack([B2, B2]), lower=True)
    )
    out["solve_gen"] = np.asarray(sl.solve(GEN, B2))
    out["solve_pos"] = np.asarray(sl.solve(SPD, B1, assume_a="pos"))
    out["solve_pos_lower"] = np.asarray(sl.solve(SPD, B2, assume_a="pos", lower=True))
    out["inv"] = np.asarray(sl.inv(GEN))
    out["det"] = np.asarray(sl.det(GEN))
    out["eigh_w"] = np.asarray(sl.eigh(SPD, eigvals_only=True))
    out["eigh_upper_w"] = np.asarray(sl.eigh(np.triu(SPD), lower=False)[0])
    out["svd_s"] = np.asarray(sl.svd(GEN, compute_uv=False))
    q, r = sl.qr(GEN[:, :3], mode="economic")
    out["qr_economic_shapes"] = np.array([q.shape, r.shape])
    out["qr_recon"] = np.asarray(q @ r)
    out["qr_full_shape"] = np.array(sl.qr(GEN[:, :3])[0].shape)
    out["block_diag"] = np.asarray(sl.block_diag(np.ones((2, 2)), 3.0, np.arange(3.0)))
    out["block_diag_dtype"] = _s(
        sl.block_diag(np.ones((1, 1), np.int32), np.ones((1, 1), np.float32)).dtype
    )
    grad = jx.grad(lambda m: sl.solve(m, B1, assume_a="pos").sum())(SPD)
    out["solve_pos_grad"] = np.asarray(grad)
    out["solve_triangular_grad"] = np.asarray(
        jx.grad(lambda m: sl.solve_triangular(m, B1, lower=True).sum())(LOWER)
    )


def run(jx: Any) -> dict[str, np.ndarray]:
    """Every case's result under ``jx`` (``jax`` or ``tessela``).

    Args:
        jx: the top-level module of the implementation.

    Returns:
        Named NumPy arrays.
    """
    out: dict[str, np.ndarray] = {}
    _numpy_cases(jx, out)
    _more_numpy_cases(jx, out)
    _top_level_cases(jx, out)
    _scipy_linalg_cases(jx, out)
    _stats_cases(jx, out)
    _poly_special_cases(jx, out)
    return out
